"""Development-sentence WER of one voice: each sentence of ../shared/eval/dev-sentences.txt through
`tts say --voice VOICE`, then what pocketsphinx hears (at -26 dBov, as in the report:
scoring.SPEECH_LEVEL_DBOV) against dev-references.txt. A quick way to
compare acoustic models or vocoders before packing the bundled voice (the full report, with flite,
espeak-ng and the recordings in the same run, is tools/quality-report).

    /usr/bin/python3 tools/quality/dev_wer.py --voice VOICE_DIR [--tts build/tools/tts] \
        [--eval-dir ../shared/eval] [--jobs 2] [--seed N] [--say-arg=--rate=1.1 ...]

Prints one line per sentence (number | reference | hypothesis) and a last line with the WER.
"""

import argparse
import os
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from inputs import find_eval_dir, read_lines  # noqa: E402
from scoring import Item, run_parallel, score_item, total  # noqa: E402
from systems import tts_say  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--voice", required=True, help="voice folder (or name on the voice path)")
    p.add_argument("--tts", default=os.path.join(ROOT, "build", "tools", "tts"))
    p.add_argument("--eval-dir", default=None)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0, help="sampling seed of tts say")
    p.add_argument("--say-arg", action="append", default=[],
                   help="an extra argument for tts say (repeatable)")
    a = p.parse_args()
    eval_dir = find_eval_dir(ROOT, a.eval_dir)
    sentences = [s for s in read_lines(os.path.join(eval_dir, "dev-sentences.txt")) if s.strip()]
    references = [s for s in read_lines(os.path.join(eval_dir, "dev-references.txt")) if s.strip()]
    if len(sentences) != len(references):
        sys.exit(f"dev_wer: {eval_dir}: {len(sentences)} sentences but {len(references)} references")
    work = tempfile.mkdtemp(prefix="tts-dev-wer.")
    try:
        tasks = []
        for i, (text, ref) in enumerate(zip(sentences, references), 1):
            item = Item("tts", f"{i:02d}", text, ref)
            tasks.append(lambda item=item, text=text:
                         score_item(item, tts_say(a.tts, a.voice, text, a.seed, a.say_arg),
                                    work))
        items = run_parallel(a.jobs, tasks, "dev sentences")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = [item for item in items if item.error]
    for item in items:
        print(f"{item.key} | {item.reference} | {item.error or item.hypothesis}", flush=True)
    counts = total(items)
    print(f"dev WER {100.0 * counts.errors / max(1, counts.words):.1f}% over {counts.words} words "
          f"of {len(items)} sentences" + (f"; {len(failed)} failed" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
