"""Development-sentence WER of one voice: each sentence of ../shared/eval/dev-sentences.txt through
`tts say --voice VOICE`, then what pocketsphinx hears (at -26 dBov, as in the report:
scoring.SPEECH_LEVEL_DBOV) against dev-references.txt. A quick way to
compare acoustic models or vocoders before packing the bundled voice (the full report, with flite,
espeak-ng and the recordings in the same run, is tools/quality-report).

    /usr/bin/python3 tools/quality/dev_wer.py --voice VOICE_DIR [--tts build/tools/tts] \
        [--eval-dir ../shared/eval] [--jobs 2] [--seed N] [--say-arg=--rate=1.1 ...]

Prints one line per sentence (number | reference | hypothesis) and a last line with the WER.

`--unseen-fortunes N` scores N plain fortunes sentences that the bundled voice was never trained on
(unseen_text.py) instead, the text as its own reference: a second set of sentences, so that a
setting chosen on the 40 dev sentences can be checked on text it was not chosen on. `--system`
speaks them with a flite voice instead of ours, for the same comparison as the report's.
"""

import argparse
import os
import sys
import tempfile
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from inputs import find_eval_dir, read_lines  # noqa: E402
from scoring import Item, run_parallel, score_item, total  # noqa: E402
from systems import FLITE_VOICES, flite_say, tts_say  # noqa: E402
from unseen_text import unseen_fortunes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--voice", help="voice folder (or name on the voice path); needed for tts")
    p.add_argument("--system", default="tts", choices=["tts"] + [s for s, _ in FLITE_VOICES],
                   help="who speaks: our voice (tts say) or one of flite's")
    p.add_argument("--unseen-fortunes", type=int, default=0, metavar="N",
                   help="score N fortunes sentences never trained on instead of the dev sentences")
    p.add_argument("--sentence-seed", type=int, default=1,
                   help="which N sentences --unseen-fortunes draws")
    p.add_argument("--tts", default=os.path.join(ROOT, "build", "tools", "tts"))
    p.add_argument("--eval-dir", default=None)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0, help="sampling seed of tts say")
    p.add_argument("--say-arg", action="append", default=[],
                   help="an extra argument for tts say (repeatable)")
    a = p.parse_args()
    if a.system == "tts" and not a.voice:
        p.error("--voice is needed when tts speaks")
    eval_dir = find_eval_dir(ROOT, a.eval_dir)
    sentences = [s for s in read_lines(os.path.join(eval_dir, "dev-sentences.txt")) if s.strip()]
    references = [s for s in read_lines(os.path.join(eval_dir, "dev-references.txt")) if s.strip()]
    if len(sentences) != len(references):
        sys.exit(f"dev_wer: {eval_dir}: {len(sentences)} sentences but {len(references)} references")
    if a.unseen_fortunes > 0:
        sentences = unseen_fortunes(a.unseen_fortunes, a.sentence_seed, dev_sentences=sentences)
        references = sentences
    flite_voice = dict(FLITE_VOICES).get(a.system)

    def speaker(text):
        if flite_voice:
            return flite_say(text, flite_voice)
        return tts_say(a.tts, a.voice, text, a.seed, a.say_arg)
    work = tempfile.mkdtemp(prefix="tts-dev-wer.")
    try:
        tasks = []
        for i, (text, ref) in enumerate(zip(sentences, references), 1):
            item = Item(a.system, f"{i:02d}", text, ref)
            tasks.append(lambda item=item, text=text: score_item(item, speaker(text), work))
        items = run_parallel(a.jobs, tasks, "dev sentences")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = [item for item in items if item.error]
    for item in items:
        print(f"{item.key} | {item.reference} | {item.error or item.hypothesis}", flush=True)
    counts = total(items)
    label = "dev WER"
    if a.unseen_fortunes:
        label = f"unseen-fortunes WER (sentence seed {a.sentence_seed})"
    print(f"{label} {100.0 * counts.errors / max(1, counts.words):.1f}% over {counts.words} words "
          f"of {len(items)} sentences" + (f"; {len(failed)} failed" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
