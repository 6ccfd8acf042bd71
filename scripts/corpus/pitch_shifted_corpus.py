#!/usr/bin/python3
"""Build a pitch-augmented copy of an LJSpeech-style corpus: every recording as it is, and again
shifted by each of the given numbers of semitones (Praat's PSOLA, pitch_shift.praat, which keeps
the formants), so that a model can learn to render pitches outside the speaker's own range.

Usage: pitch_shifted_corpus.py SOURCE_DIR [SOURCE_DIR...] OUT_DIR [--shifts "-4 3 6"] [--exclude FILE]
                               [--min-hz 75] [--max-hz 600] [--jobs N]

A shifted copy of <id> is <id>-up<N> or <id>-down<N> with the same transcript. --exclude names
ids (one a line, '#' comments) left out with all their copies: the held-out prompts that judge a
voice must not reach its training in any form. Several sources make one corpus (one speaker's
prompts and prose the same voice speaks, say); their ids must not collide. See docs/corpus.md.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import concurrent.futures

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ljspeech  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pitch_shift.praat")


def shifted_id(utterance_id, semitones):
    word = "up" if semitones > 0 else "down"
    return "%s-%s%g" % (utterance_id, word, abs(semitones))


def parse_shifts(text):
    try:
        shifts = [float(s) for s in text.replace(",", " ").split()]
    except ValueError:
        raise SystemExit("pitch_shifted_corpus: --shifts %r is not a list of numbers" % text)
    if not shifts or any(s == 0 or abs(s) > 24 for s in shifts) or len(set(shifts)) != len(shifts):
        raise SystemExit("pitch_shifted_corpus: --shifts %r: give distinct non-zero semitones "
                         "within ±24" % text)
    return shifts


def read_metadata(source):
    path = os.path.join(source, "metadata.csv")
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line:
                    continue
                parts = line.split("|")
                if len(parts) < 2 or not ljspeech.ID_PATTERN.match(parts[0]):
                    raise SystemExit("pitch_shifted_corpus: %s:%d: expected \"id|text[|normalised]\""
                                     % (path, number))
                rows.append(parts)
    except OSError as e:
        raise SystemExit("pitch_shifted_corpus: %s: %s" % (path, e.strerror))
    return rows


def read_ids(path):
    try:
        with open(path, encoding="utf-8") as f:
            return {l.strip() for l in f if l.strip() and not l.startswith("#")}
    except OSError as e:
        raise SystemExit("pitch_shifted_corpus: --exclude %s: %s" % (path, e.strerror))


def shift_batch(names, source_wavs, out_wavs, semitones, min_hz, max_hz, work):
    """Runs one Praat process over `names`; returns the names it did not finish."""
    fd, list_file = tempfile.mkstemp(dir=work, suffix=".txt")
    with os.fdopen(fd, "w") as f:
        f.write("".join(n + "\n" for n in names))
    r = subprocess.run(["praat", "--run", SCRIPT, list_file, source_wavs, out_wavs,
                        repr(semitones), repr(min_hz), repr(max_hz)],
                       capture_output=True, text=True)
    done = {l[5:].strip() for l in r.stdout.splitlines() if l.startswith("done ")}
    missing = [n for n in names if n not in done]
    if missing:
        print("pitch_shifted_corpus: praat stopped at %s (%s): %s" % (
            missing[0], "exit %d" % r.returncode, r.stderr.strip()[-400:]), file=sys.stderr)
    return missing


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sources", nargs="+", metavar="SOURCE_DIR")
    parser.add_argument("out")
    parser.add_argument("--shifts", default="-4 3 6")
    parser.add_argument("--exclude")
    parser.add_argument("--min-hz", type=float, default=75.0)
    parser.add_argument("--max-hz", type=float, default=600.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    shifts = parse_shifts(args.shifts)
    args.jobs = max(1, args.jobs)
    if shutil.which("praat") is None:
        raise SystemExit("pitch_shifted_corpus: praat is not installed (scripts/install-deps "
                         "quality installs it)")
    started = time.time()
    excluded = read_ids(args.exclude) if args.exclude else set()
    rows, wav_of = [], {}
    for source in args.sources:
        source_wavs = os.path.abspath(os.path.join(source, "wavs"))
        for r in read_metadata(source):
            if r[0] in excluded:
                continue
            if r[0] in wav_of:
                raise SystemExit("pitch_shifted_corpus: id %s is in more than one source (%s)"
                                 % (r[0], ", ".join(args.sources)))
            wav_of[r[0]] = os.path.join(source_wavs, r[0] + ".wav")
            if not os.path.isfile(wav_of[r[0]]):
                raise SystemExit("pitch_shifted_corpus: %s lists %s, but %s has no %s.wav" % (
                    os.path.join(source, "metadata.csv"), r[0], source_wavs, r[0]))
            rows.append(r)

    out = os.path.abspath(args.out)
    staging = out + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    wavs = os.path.join(staging, "wavs")
    os.makedirs(wavs)
    work = tempfile.mkdtemp(prefix="pitch-shift-")
    try:
        for r in rows:
            shutil.copyfile(wav_of[r[0]], os.path.join(wavs, r[0] + ".wav"))
        names = [r[0] + ".wav" for r in rows]
        jobs = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for s in shifts:
                target = os.path.join(work, "shift%g" % s)
                os.makedirs(target)
                per_job = max(1, (len(names) + args.jobs - 1) // args.jobs)
                for i in range(0, len(names), per_job):
                    jobs.append((s, target, pool.submit(shift_batch, names[i:i + per_job],
                                                        wavs, target, s, args.min_hz,
                                                        args.max_hz, work)))
            failed = [n for _, _, j in jobs for n in j.result()]
        if failed:
            raise SystemExit("pitch_shifted_corpus: %d files were not shifted; nothing written"
                             % len(failed))
        metadata = list(rows)
        for s in shifts:
            for r in rows:
                new_id = shifted_id(r[0], s)
                os.replace(os.path.join(work, "shift%g" % s, r[0] + ".wav"),
                           os.path.join(wavs, new_id + ".wav"))
                metadata.append([new_id] + r[1:])
        with open(os.path.join(staging, "metadata.csv"), "w", encoding="utf-8") as f:
            f.write("".join("|".join(r) + "\n" for r in metadata))
        if os.path.exists(out):
            shutil.rmtree(out)
        os.replace(staging, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(staging, ignore_errors=True)  # left only when the build failed
    print("pitch_shifted_corpus: %d recordings, %d shifted copies (%s semitones) in %s; %d ids "
          "excluded; %.0f s" % (len(rows), len(rows) * len(shifts),
                                " ".join("%+g" % s for s in shifts), out,
                                len(excluded), time.time() - started))


if __name__ == "__main__":
    main(sys.argv[1:])
