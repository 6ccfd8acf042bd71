#!/usr/bin/python3
"""Build an LJSpeech-style corpus of synthetic speech with flite's kal16 voice (BSD licence).

Usage: flite_corpus.py OUT_DIR [N] [--seed S] [--jobs J] [--voice V] [--text generated|fortunes|mixed]
                      [--part K/P]

Text comes from scripts/corpus/sentences.py (generated, project-owned; the default), from the plain
sentences of Debian's fortunes package (fortune_sentences.py), or half from each, interleaved
(`mixed`). Sentences of ../shared/eval/dev-sentences.txt are never used. flite speaks the normalised
text, so the words in metadata.csv are exactly the words in the audio; OUT_DIR/phones.tsv holds
flite's phone sequence with end times in seconds for every kept row.

--part K/P speaks only sentences K, K+P, K+2P, ... (1-based K) of the N drawn: P corpora built with
the same N and seed, one per voice, split one draw of text between P voices without overlap (and
draw nothing from the sentences a single-voice corpus of N leaves out).
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fortune_sentences  # noqa: E402
import ljspeech  # noqa: E402
import sentences  # noqa: E402
from normalise import normalise  # noqa: E402


def synthesise(flite, voice, text, target):
    """Return (seconds, peak, rms, phones, error)."""
    out = subprocess.run([flite, "-voice", voice, "-psdur", "-t", text, "-o", target],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return 0.0, 0.0, 0.0, "", "flite exit %d: %s" % (out.returncode, out.stderr.strip()[-200:])
    try:
        seconds, peak, rms = ljspeech.inspect_wav(target)
    except ValueError as e:
        return 0.0, 0.0, 0.0, "", str(e)
    return seconds, peak, rms, " ".join(out.stdout.split()), None


EVAL_SENTENCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                              "shared", "eval", "dev-sentences.txt")
# Where each --text choice takes its sentences from, and their licence (summary.json records both).
TEXT_SOURCES = {
    "generated": ("scripts/corpus/sentences.py", "this project"),
    "fortunes": ("Debian fortunes package (plain sentences)", "BSD"),
    "mixed": ("scripts/corpus/sentences.py and Debian fortunes, alternating",
              "this project (generated), BSD (fortunes)"),
}


def choose_texts(kind, count, seed):
    """The `count` sentences to speak: generated, from fortunes, or alternating between the two."""
    if kind == "generated":
        return sentences.generate(count, seed)
    exclude = []
    if os.path.exists(EVAL_SENTENCES):
        with open(EVAL_SENTENCES, encoding="utf-8") as f:
            exclude = f.read().splitlines()
    if kind == "fortunes":
        return fortune_sentences.sample(count, seed, exclude=exclude)
    plain = fortune_sentences.sample(count // 2, seed, exclude=exclude)
    made = sentences.generate(count - len(plain), seed)
    return [s for pair in zip(made, plain) for s in pair] + made[len(plain):]


def parse_part(part):
    """(K, P) of "K/P", 1 <= K <= P; ValueError naming the argument otherwise."""
    try:
        k, p = (int(x) for x in part.split("/"))
    except ValueError:
        raise ValueError("--part %r: expected K/P, e.g. 2/4" % part) from None
    if not 1 <= k <= p:
        raise ValueError("--part %r: K must be between 1 and P" % part)
    return k, p


def build(out_dir, count, seed, jobs, flite, voice, text="generated", part=(1, 1)):
    started = time.time()
    stage = ljspeech.StagedFolder(out_dir)
    try:
        kept, dropped, phones = [], [], {}
        texts = choose_texts(text, count, seed)
        width = max(5, len(str(count)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {}
            for i, raw in enumerate(texts, 1):
                if (i - part[0]) % part[1] != 0:
                    continue
                ident = "flite%s" % str(i).zfill(width)
                spoken = normalise(raw)
                futures[pool.submit(synthesise, flite, voice, spoken,
                                    stage.path("wavs", ident + ".wav"))] = (ident, raw, spoken)
            for future in concurrent.futures.as_completed(futures):
                ident, raw, spoken = futures[future]
                seconds, peak, rms, phone_line, error = future.result()
                row = {"id": ident, "raw": raw, "normalised": spoken, "seconds": seconds,
                       "peak": peak, "rms": rms}
                if ljspeech.keep_synthesised(kept, dropped, stage.path("wavs", ident + ".wav"),
                                             row, error, "audio does not decode"):
                    phones[ident] = phone_line
        summary = ljspeech.write_outputs(stage, kept, dropped, {
            "source": {"synthesiser": "flite %s voice" % voice, "text": TEXT_SOURCES[text][0],
                       "seed": seed, "part": "%d/%d" % part,
                       "licence": "flite: BSD-style; text: " + TEXT_SOURCES[text][1]},
        })
        with open(stage.path("phones.tsv"), "w", encoding="utf-8") as f:
            f.write("id\tphone:end_seconds ...\n")
            for ident in sorted(phones):
                f.write("%s\t%s\n" % (ident, phones[ident]))
        stage.commit()
    except BaseException:
        stage.abandon()
        raise
    ljspeech.print_summary("build-flite-corpus", out_dir, summary)
    print("  built in %.0f s" % (time.time() - started))
    return summary


def main(argv):
    parser = argparse.ArgumentParser(prog="build-flite-corpus", description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("count", nargs="?", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--flite", default="flite")
    parser.add_argument("--voice", default="kal16")
    parser.add_argument("--text", choices=sorted(TEXT_SOURCES), default="generated")
    parser.add_argument("--part", default="1/1")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("N must be at least 1")
    try:
        build(args.out_dir, args.count, args.seed, max(1, args.jobs), args.flite, args.voice,
              args.text, parse_part(args.part))
    except (FileNotFoundError, ValueError) as e:
        print("build-flite-corpus: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
