"""The speed of every voice beside `default`'s, in one run: `tts bench pipeline` on one thread,
the voices taking turns round by round so that a change in the machine's load falls on all of
them. Each voice speaks what tools/quality-report times it on (its language's first five held-out
prompts, as one paragraph); `default` its default paragraph. Prints each voice's median real-time
factor and its ratio to `default`'s (the target for a new voice: at most 1.10).

    /usr/bin/python3 tools/quality/language_speed.py [--tts build/tools/tts] [--runs 5] \
        [VOICE:XX ...]

VOICE:XX names a voice folder under voices/ (or a path) and the Asterisk corpus whose held-out
prompts it reads (data/asterisk-XX, scripts/corpus/held-out/asterisk-XX.txt); the default is the
bundled voices in other languages. Run it on a quiet machine: the report's own figure is taken
while its synthesis has just ended, and one run of it moves by 10% or more.
"""

import argparse
import os
import statistics
import sys
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import held_out as held_out_prompts  # noqa: E402
from language_report import bench_text  # noqa: E402
from speed import bench_command, bench_once  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOICES = ["allison-bilingual:es", "es-mx-allison:es", "fr-ca-june:fr", "it-it-carlo:it",
          "ru-ru-ivr:ru"]


def held_out_paragraph(language, prompts=5):
    """The first `prompts` held-out prompts of data/asterisk-XX as one paragraph, read as
    tools/quality-report reads them (the corpus is built when it is missing)."""
    ctx = SimpleNamespace(root=ROOT, corpus=os.path.join(ROOT, "data", f"asterisk-{language}"),
                          failures=[])
    held_out_file = os.path.join(ROOT, "scripts", "corpus", "held-out", f"asterisk-{language}.txt")
    ids, _ = held_out_prompts.read_prompt_ids(held_out_file, 0)
    metadata = held_out_prompts.read_metadata(ctx, language)
    known = held_out_prompts.prompts_in_corpus(ctx, ids, metadata, held_out_file)
    if ctx.failures or not known:
        sys.exit(f"language_speed: {ctx.failures[0][1] if ctx.failures else held_out_file}: "
                 "no held-out prompt to speak")
    return bench_text([metadata[p][0] for p in known[:prompts]])


def real_time_factor(cmd):
    result, failure = bench_once(cmd)
    if failure:
        sys.exit(f"language_speed: {failure}")
    return result["real_time_factor"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("voices", nargs="*", default=VOICES, metavar="VOICE:XX")
    p.add_argument("--tts", default=os.path.join(ROOT, "build", "tools", "tts"))
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    commands = {"default": bench_command(a.tts, os.path.join(ROOT, "voices", "default"))}
    for spec in a.voices:
        name, _, language = spec.partition(":")
        if not language:
            p.error(f"{spec}: give the corpus language as VOICE:XX")
        folder = name if os.sep in name else os.path.join(ROOT, "voices", name)
        commands[name] = bench_command(a.tts, folder, held_out_paragraph(language))
    factors = {name: [] for name in commands}
    for round_number in range(1, a.runs + 1):
        for name, cmd in commands.items():
            factors[name].append(real_time_factor(cmd))
        print(f"round {round_number}/{a.runs}: load average {os.getloadavg()[0]:.2f}", flush=True)
    reference = statistics.median(factors["default"])
    for name, runs in factors.items():
        median = statistics.median(runs)
        print(f"{name:20s} real-time factor {median:.3f}  ratio to default {median / reference:.3f}"
              f"  (runs {' '.join(f'{x:.3f}' for x in runs)})")


if __name__ == "__main__":
    main()
