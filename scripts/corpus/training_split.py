#!/usr/bin/python3
"""Make the training copy of an LJSpeech-style corpus: every row of SOURCE_DIR/metadata.csv except
the held-out ids, with their wavs hard-linked (copied where links cannot be made), so that the
prompts that judge a voice reach neither its acoustic model nor the shared vocoder.

Usage: training_split.py SOURCE_DIR OUT_DIR --exclude FILE [--exclude FILE ...]

FILE lists ids one a line ('#' comments and blank lines skipped), as scripts/corpus/held-out/*.txt
and voices/default/held-out.txt do. An id listed but absent from the corpus is an error: a typo
there would leave a prompt in training unnoticed. OUT_DIR is written through a temporary folder
and renamed into place; an existing OUT_DIR is replaced.
"""

import argparse
import os
import shutil
import sys
import tempfile


def read_ids(path):
    ids = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                ids.append(line)
    return ids


def link_or_copy(source, target):
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--exclude", action="append", required=True,
                        help="file of held-out ids (repeatable)")
    args = parser.parse_args()

    metadata = os.path.join(args.source, "metadata.csv")
    if not os.path.isfile(metadata):
        sys.exit("training_split: %s: no metadata.csv (an LJSpeech-style corpus is needed)" %
                 args.source)
    with open(metadata, encoding="utf-8") as f:
        rows = [line.rstrip("\n") for line in f if line.strip()]
    ids = [row.split("|", 1)[0] for row in rows]

    excluded = set()
    for path in args.exclude:
        for held in read_ids(path):
            if held not in ids:
                sys.exit("training_split: %s: id %r is not in %s" % (path, held, metadata))
            excluded.add(held)

    parent = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".training-split-", dir=parent)
    try:
        kept = []
        for row, utterance_id in zip(rows, ids):
            if utterance_id in excluded:
                continue
            source_wav = os.path.join(args.source, "wavs", utterance_id + ".wav")
            if not os.path.isfile(source_wav):
                sys.exit("training_split: %s: row %r has no %s" % (metadata, utterance_id,
                                                                    source_wav))
            target_wav = os.path.join(staging, "wavs", utterance_id + ".wav")
            os.makedirs(os.path.dirname(target_wav), exist_ok=True)
            link_or_copy(source_wav, target_wav)
            kept.append(row)
        with open(os.path.join(staging, "metadata.csv"), "w", encoding="utf-8") as f:
            f.write("".join(row + "\n" for row in kept))
        if os.path.isdir(args.out):
            shutil.rmtree(args.out)
        os.rename(staging, args.out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print("training_split: %s: %d of %d rows (%d held out) in %s" %
          (args.source, len(kept), len(rows), len(excluded), args.out))


if __name__ == "__main__":
    main()
