#!/usr/bin/env python3
"""Copies an LJSpeech corpus with a share of its rows broken the ways a person's recordings break,
for measuring what `tts voices create` makes of dirty data (docs/voice-creation.md):

    scripts/corpus/break_corpus.py SRC DST [--fraction 0.1] [--seed 1] [--keep FILE]

Each broken row is broken one way, in turn: its audio file missing, its transcript empty, its
transcript another row's, its audio at 8 kHz, in stereo, clipped (18 dB louder, cut at full
scale) or silent. Rows named in --keep (one id a line: the held-out prompts) are left whole.
DST/broken.tsv lists each broken row and how. The other rows' audio is linked, not copied.
"""
import argparse
import os
import random
import shutil
import sys
import warnings
import wave

with warnings.catch_warnings():  # audioop is in Debian 12's Python 3.11, deprecated since 3.11
    warnings.simplefilter("ignore", DeprecationWarning)
    import audioop

KINDS = ["missing audio", "empty transcript", "wrong transcript", "8 kHz", "stereo", "clipped",
         "silent"]


def read_wav(path):
    with wave.open(path, "rb") as w:
        return w.getparams(), w.readframes(w.getnframes())


def write_wav(path, channels, rate, frames):
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src")
    parser.add_argument("dst")
    parser.add_argument("--fraction", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="ids left whole, one a line")
    args = parser.parse_args()
    keep = set()
    if args.keep:
        with open(args.keep, encoding="utf-8") as f:
            keep = {line.strip() for line in f if line.strip()}
    with open(os.path.join(args.src, "metadata.csv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("|") for line in f if line.strip()]
    candidates = [i for i, row in enumerate(rows) if row[0] not in keep]
    rng = random.Random(args.seed)
    broken = rng.sample(candidates, round(args.fraction * len(rows)))
    how = {index: KINDS[k % len(KINDS)] for k, index in enumerate(sorted(broken))}

    if os.path.exists(args.dst):
        shutil.rmtree(args.dst)
    os.makedirs(os.path.join(args.dst, "wavs"))
    out_rows, log = [], []
    for i, row in enumerate(rows):
        ident, text = row[0], row[-1]
        src = os.path.abspath(os.path.join(args.src, "wavs", ident + ".wav"))
        dst = os.path.join(args.dst, "wavs", ident + ".wav")
        kind = how.get(i)
        if kind is None:
            os.symlink(src, dst)
        elif kind == "missing audio":
            pass
        elif kind in ("empty transcript", "wrong transcript"):
            os.symlink(src, dst)
            text = "" if kind == "empty transcript" else rows[rng.choice(candidates)][-1]
        else:
            params, frames = read_wav(src)
            rate = params.framerate
            if kind == "8 kHz":
                frames, _ = audioop.ratecv(frames, 2, 1, rate, 8000, None)
                rate = 8000
            elif kind == "clipped":
                frames = audioop.mul(frames, 2, 8.0)
            elif kind == "silent":
                frames = bytes(len(frames))
            channels = 1
            if kind == "stereo":
                frames, channels = audioop.tostereo(frames, 2, 1.0, 0.9), 2
            write_wav(dst, channels, rate, frames)
        if kind:
            log.append(f"{ident}\t{kind}")
        out_rows.append(f"{ident}|{text}")
    with open(os.path.join(args.dst, "metadata.csv"), "w", encoding="utf-8") as f:
        f.write("\n".join(out_rows) + "\n")
    with open(os.path.join(args.dst, "broken.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(log) + "\n")
    print(f"break_corpus: {len(broken)} of {len(rows)} rows broken in {args.dst} (broken.tsv)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
