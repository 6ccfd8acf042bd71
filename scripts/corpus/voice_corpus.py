#!/usr/bin/python3
"""Build an LJSpeech-style corpus of one of our own voices speaking plain English prose.

Usage: voice_corpus.py OUT_DIR [N] --tts TTS [--voice VOICE] [--seed S] [--jobs J]

Why: training the acoustic model's decoder on her 20 minutes of telephone prompts alone makes it
forget English it learnt in pre-training (docs/acoustic-model.md). Sentences
the voice itself speaks are a rehearsal set that needs no other speaker: trained beside her
prompts, they ask the decoder to keep rendering prose as it does now, in her voice, while the
prompts teach it something new (pseudo-rehearsal). With pitch-shifted copies of both
(pitch_shifted_corpus.py) it learns to follow a shift on prose as well as on prompts.

The N sentences are plain sentences of Debian's fortunes (fortune_sentences.py), never those of
../shared/eval/dev-sentences.txt; `tts say --voice VOICE --seed K` speaks sentence K (with
OPENBLAS_NUM_THREADS=1, as here), so the corpus repeats exactly. metadata.csv holds the text as
given and normalised as flite_corpus.py normalises it (the transcript the trainer phonemises is
the one the voice read).
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
from normalise import normalise  # noqa: E402

EVAL_SENTENCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                              "shared", "eval", "dev-sentences.txt")


def speak(tts, voice, text, seed, target):
    """Return (seconds, peak, rms, error)."""
    # One thread per process: the pool runs one process per core.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([tts, "say", "--voice", voice, "--seed", str(seed), "--threads", "1",
                          "-o", target, text], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return 0.0, 0.0, 0.0, "tts say exit %d: %s" % (out.returncode, out.stderr.strip()[-200:])
    try:
        seconds, peak, rms = ljspeech.inspect_wav(target)
    except ValueError as e:
        return 0.0, 0.0, 0.0, str(e)
    return seconds, peak, rms, None


def build(out_dir, count, seed, jobs, tts, voice):
    started = time.time()
    exclude = []
    if os.path.exists(EVAL_SENTENCES):
        with open(EVAL_SENTENCES, encoding="utf-8") as f:
            exclude = f.read().splitlines()
    texts = fortune_sentences.sample(count, seed, exclude=exclude)
    stage = ljspeech.StagedFolder(out_dir)
    try:
        kept, dropped = [], []
        width = max(5, len(str(count)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {}
            for i, raw in enumerate(texts, 1):
                ident = "voice%s" % str(i).zfill(width)
                target = stage.path("wavs", ident + ".wav")
                futures[pool.submit(speak, tts, voice, raw, i, target)] = (ident, raw, target)
            for future in concurrent.futures.as_completed(futures):
                ident, raw, target = futures[future]
                seconds, peak, rms, error = future.result()
                row = {"id": ident, "raw": raw, "normalised": normalise(raw), "seconds": seconds,
                       "peak": peak, "rms": rms}
                ljspeech.keep_synthesised(kept, dropped, target, row, error, "audio not made")
        if not kept:
            ident, why, detail = sorted(dropped)[0]
            raise ValueError("no sentence was kept; %s: %s (%s)" % (ident, why, detail))
        summary = ljspeech.write_outputs(stage, kept, dropped, {
            "source": {"synthesiser": "tts say --voice %s (--seed = the sentence's number)" % voice,
                       "text": "Debian fortunes package (plain sentences)", "seed": seed,
                       "licence": "audio: the voice's own; text: BSD"},
        })
        stage.commit()
    except BaseException:
        stage.abandon()
        raise
    ljspeech.print_summary("build-voice-corpus", out_dir, summary)
    print("  built in %.0f s" % (time.time() - started))
    return summary


def main(argv):
    parser = argparse.ArgumentParser(prog="build-voice-corpus", description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("count", nargs="?", type=int, default=500)
    parser.add_argument("--tts", required=True, help="the tts binary")
    parser.add_argument("--voice", default="default")
    parser.add_argument("--seed", type=int, default=2, help="which fortunes sentences")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("N must be at least 1")
    try:
        build(args.out_dir, args.count, args.seed, max(1, args.jobs), args.tts, args.voice)
    except (FileNotFoundError, ValueError) as e:
        print("build-voice-corpus: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
