"""Copy-synthesis of each speaker's held-out prompts through several vocoders, judged by Praat's
harmonicity (HNR) against the speaker's own recordings: the measure a vocoder shared by several
voices is chosen by (docs/quality.md). Each recording → log-mel → the vocoder (`tts vocode`, seed
1 as the quality report's copy-synthesis), then Praat pools HNR over the voiced frames of each
speaker's prompts. With --words, pocketsphinx (US English) also hears every copy and the recording
at one speech level, scored against the corpus's transcript (its normalised third field where it
has one): how many of a voice's word errors its vocoder alone makes.

    /usr/bin/python3 tools/quality/compare_vocoders.py --model NAME=DIR [--model NAME=DIR ...] \
        [--speaker NAME=CORPUS:HELD_OUT ...] [--tts build/tools/tts] [--jobs N] [--json FILE] \
        [--words]

Default speakers: English (data/asterisk, voices/default/held-out.txt) and the Asterisk corpora of
Spanish, French, Italian and Russian (data/asterisk-XX, scripts/corpus/held-out/asterisk-XX.txt),
those that are built. Prints a Markdown table: per speaker, the recordings' HNR and each
vocoder's, with its mean log-mel distance to the recordings.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import praat  # noqa: E402
import scoring  # noqa: E402
import wer  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_speakers():
    speakers = [("en", os.path.join(ROOT, "data", "asterisk"),
                 os.path.join(ROOT, "voices", "default", "held-out.txt"))]
    for lang in ("es", "fr", "it", "ru"):
        speakers.append((lang, os.path.join(ROOT, "data", "asterisk-" + lang),
                         os.path.join(ROOT, "scripts", "corpus", "held-out",
                                      f"asterisk-{lang}.txt")))
    return [s for s in speakers if os.path.isfile(os.path.join(s[1], "metadata.csv"))]


def named_pair(value, what):
    name, sep, rest = value.partition("=")
    if not sep or not name or not rest:
        raise argparse.ArgumentTypeError(f"{value!r}: expected NAME={what}")
    return name, rest


def vocode(tts, model, wav, out):
    r = subprocess.run([tts, "vocode", wav, "--model", model, "-o", out, "--report", "--seed", "1"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"vocoding {wav} with {model} failed: {r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])["log_mel_distance"]


def pooled_hnr(paths, work, jobs):
    measured = praat.measure_files(paths, work, jobs)
    bad = {p: m for p, m in measured.items() if isinstance(m, str)}
    if bad:
        raise RuntimeError(f"Praat could not measure {len(bad)} files, e.g. {next(iter(bad.items()))}")
    return praat.Pool([measured[p] for p in paths]).hnr


def transcripts(corpus):
    """id -> the text to score against: a row's last field (normalised, where it has three)."""
    with open(os.path.join(corpus, "metadata.csv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("|") for line in f if line.strip()]
    return {row[0]: row[-1] for row in rows}


def word_error_rate(paths, texts, work, pool):
    """Pooled errors per word of what the recogniser hears in `paths` against `texts`."""
    def heard(index_path):
        index, path = index_path
        levelled = os.path.join(work, f"{index}.16k.wav")
        error, _ = scoring.to_16k(path, levelled)
        if error:
            raise RuntimeError(error)
        hypothesis, error = scoring.recognise(levelled)
        if error:
            raise RuntimeError(error)
        return hypothesis
    os.makedirs(work, exist_ok=True)
    total = wer.Counts()
    for text, hypothesis in zip(texts, pool.map(heard, enumerate(paths))):
        total += wer.score(text, hypothesis)
    return total.errors / total.words if total.words else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", action="append", required=True,
                   type=lambda v: named_pair(v, "VOCODER_DIR"),
                   help="NAME=DIR: a folder with vocoder.json and vocoder.safetensors")
    p.add_argument("--speaker", action="append", type=lambda v: named_pair(v, "CORPUS:HELD_OUT"),
                   help="NAME=CORPUS:HELD_OUT (an LJSpeech-style folder and a file of prompt ids)")
    p.add_argument("--tts", default=os.path.join(ROOT, "build", "tools", "tts"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--json", help="also write the figures to this file")
    p.add_argument("--words", action="store_true",
                   help="also the word error rate of each vocoder's copies (pocketsphinx)")
    a = p.parse_args()
    if a.speaker:
        speakers = []
        for name, rest in a.speaker:
            corpus, sep, held_out = rest.rpartition(":")
            if not sep:
                p.error(f"--speaker {name}={rest}: expected CORPUS:HELD_OUT")
            speakers.append((name, corpus, held_out))
    else:
        speakers = default_speakers()
    if not speakers:
        p.error("no corpus is built (scripts/build-training-corpora builds them)")
    for name, directory in a.model:
        if not os.path.isfile(os.path.join(directory, "vocoder.json")):
            p.error(f"--model {name}={directory}: no vocoder.json there")

    work = tempfile.mkdtemp(prefix="tts-compare-vocoders.")
    figures = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for speaker, corpus, held_out in speakers:
            with open(held_out, encoding="utf-8") as f:
                ids = [line.strip() for line in f if line.strip()]
            # Absolute: Praat reads the list from its own working folder.
            recordings = [os.path.abspath(os.path.join(corpus, "wavs", i + ".wav")) for i in ids]
            missing = [r for r in recordings if not os.path.isfile(r)]
            if missing:
                sys.exit(f"compare_vocoders: {held_out}: no recording {missing[0]}")
            row = {"prompts": len(ids),
                   "recordings_hnr_db": pooled_hnr(recordings, os.path.join(work, "praat"), a.jobs)}
            if a.words:
                text = transcripts(corpus)
                texts = [text[i] for i in ids]
                row["recordings_wer"] = word_error_rate(
                    recordings, texts, os.path.join(work, speaker, "heard-recordings"), pool)
            for name, directory in a.model:
                out_dir = os.path.join(work, speaker, name)
                os.makedirs(out_dir, exist_ok=True)
                outs = [os.path.join(out_dir, i + ".wav") for i in ids]
                distances = list(pool.map(lambda io: vocode(a.tts, directory, *io),
                                          zip(recordings, outs)))
                row[name] = {"hnr_db": pooled_hnr(outs, os.path.join(work, "praat"), a.jobs),
                             "log_mel_distance": sum(distances) / len(distances)}
                if a.words:
                    row[name]["wer"] = word_error_rate(
                        outs, texts, os.path.join(work, speaker, "heard-" + name), pool)
            figures[speaker] = row
            print(f"{speaker}: {json.dumps(row)}", file=sys.stderr, flush=True)
    subprocess.run(["rm", "-rf", work])

    names = [name for name, _ in a.model]
    percent = lambda rate: "-" if rate is None else f"{100 * rate:.1f}%"
    words = " | recordings WER" if a.words else ""
    print(f"| speaker | prompts | recordings HNR (dB){words} | "
          + " | ".join(f"{n} HNR (dB) | {n} log-mel distance" + (f" | {n} WER" if a.words else "")
                       for n in names) + " |")
    print("|---|---|---|" + ("---|" if a.words else "") + ("---|---|" + ("---|" if a.words else ""))
          * len(names))
    for speaker, row in figures.items():
        cells = [f"{row[n]['hnr_db']:.2f} | {row[n]['log_mel_distance']:.3f}"
                 + (f" | {percent(row[n]['wer'])}" if a.words else "") for n in names]
        recorded = f" | {percent(row['recordings_wer'])}" if a.words else ""
        print(f"| {speaker} | {row['prompts']} | {row['recordings_hnr_db']:.2f}{recorded} | "
              + " | ".join(cells) + " |")
    if a.json:
        with open(a.json + ".tmp", "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)
        os.replace(a.json + ".tmp", a.json)


if __name__ == "__main__":
    main()
