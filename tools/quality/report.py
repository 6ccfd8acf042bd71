"""The quality report (tools/quality-report runs this with Debian's /usr/bin/python3).

Scores a voice with an independent recogniser (pocketsphinx, US-English model) and with Praat's
harmonicity and pitch, beside flite (kal16, rms, slt), espeak-ng and the human recordings, in one
run, and writes OUT/quality.md plus OUT/quality/*.png and OUT/quality/praat.json.
A voice that speaks another language (voice.json "languages", or --language) gets, for each such
language, the per-language report of language_report.py: OUT/quality-TAG.md and OUT/quality-TAG/.
See docs/quality.md (generated) and tools/quality-report --help.
"""

# The run, stage by stage (each stage in its own module):
#   prepare         inputs.py, environment.py: tools, voice, evaluation texts, work folder
#   measure         dev_sentences.py, unseen_text.py, held_out.py (through systems.py and
#                   scoring.py),
#                   harmonicity_pitch.py (praat.py, praat_voice.praat), pictures.py (plots.py),
#                   speed.py
#   write           header.py, sections.py, appendix.py (markdown_tables.py)
# Failures and notes from every stage collect in the Context (context.py) for the last section.

import argparse
import atexit
import os
import shlex
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import appendix  # noqa: E402
import dev_sentences  # noqa: E402
import environment  # noqa: E402
import harmonicity_pitch  # noqa: E402
import header  # noqa: E402
import held_out as held_out_prompts  # noqa: E402
import language_report  # noqa: E402
import languages  # noqa: E402
import pictures  # noqa: E402
import sections  # noqa: E402
import speed as speed_figure  # noqa: E402
import unseen_text  # noqa: E402
from commands import Fatal, log  # noqa: E402
from context import Context  # noqa: E402
from inputs import check_voice_speaks, read_voice_json, resolve_voice  # noqa: E402
from markdown_tables import atomic_write, pct  # noqa: E402
from scoring import total  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", required=True)
    ap.add_argument("--tts", required=True)
    ap.add_argument("--voice", default="default")
    ap.add_argument("--out", default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--bench-runs", type=int, default=3)
    ap.add_argument("--say-seeds", type=int, default=3)
    ap.add_argument("--pitch-sentences", type=int, default=10)
    ap.add_argument("--unseen-sentences", type=int, default=80)
    ap.add_argument("--eval-dir", default=None)
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--corpus-for", action="append", default=[], metavar="LANG=DIR",
                    help="the corpus of one language (primary subtag), e.g. es=data/asterisk-es")
    ap.add_argument("--language", default=None,
                    help="report only this language (BCP 47 tag; default: each the voice speaks)")
    ap.add_argument("--held-out", default=None,
                    help="held-out prompt ids for --language (default: the voice's list)")
    ap.add_argument("--reference-mel-distance", type=float, default=None,
                    help="the English voice's aligned log-mel distance, instead of scoring it")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--command", default=None, help="the command line, as shown in the report")
    a = ap.parse_args()
    a.corpora = {}
    for entry in a.corpus_for:
        lang, sep, folder = entry.partition("=")
        if not sep or not lang or not folder:
            ap.error(f"--corpus-for takes LANG=DIR, not '{entry}'")
        a.corpora[languages.primary(lang)] = os.path.abspath(folder)
    if a.held_out and not a.language:
        ap.error("--held-out needs --language (it names one language's prompts)")
    return a


def prepare(a):
    """(Context, DevSentences not yet scored). Checks everything the long part needs first, so
    that a missing tool or voice stops the run at once (Fatal)."""
    root = os.path.abspath(a.root)
    ctx = Context(root=root,
                  out_dir=os.path.abspath(a.out or os.path.join(root, "docs")),
                  tts=os.path.abspath(a.tts),
                  corpus=os.path.abspath(a.corpus or os.path.join(root, "data", "asterisk")),
                  limit=a.limit if a.limit and a.limit > 0 else None,
                  jobs=a.jobs,
                  bench_runs=a.bench_runs,
                  seeds=list(range(max(1, a.say_seeds))),
                  pitch_sentences=max(0, a.pitch_sentences),
                  command=a.command or shlex.join(sys.argv))
    environment.check_tools(ctx.tts)
    ctx.voice_dir = resolve_voice(ctx.tts, a.voice)
    ctx.voice_json = read_voice_json(ctx.voice_dir)
    dev = dev_sentences.load(root, a.eval_dir, ctx.limit)
    count = min(a.unseen_sentences, ctx.limit or a.unseen_sentences)
    unseen = (unseen_text.load(count, unseen_text.UNSEEN_SENTENCE_SEED, dev.sentences)
              if count > 0 else None)
    os.makedirs(os.path.join(ctx.out_dir, "quality"), exist_ok=True)
    ctx.work = tempfile.mkdtemp(prefix="tts-quality.")
    if not a.keep_work:
        atexit.register(shutil.rmtree, ctx.work, True)
    log(f"voice {ctx.voice_dir}; work folder {ctx.work}")
    check_voice_speaks(ctx.tts, ctx.voice_dir, ctx.work)
    return ctx, dev, unseen


def render(ctx, facts, dev, unseen, held_out, held_out_note, voice, pngs, logs_info, speed,
           elapsed):
    md = (header.header(ctx, facts, dev, unseen, held_out, voice, speed, elapsed)
          + sections.dev_sentences_section(ctx, dev)
          + sections.unseen_prose_section(ctx, unseen)
          + sections.held_out_section(ctx, held_out, held_out_note)
          + sections.harmonicity_pitch_section(ctx, voice)
          + sections.spectrograms_section(ctx, pngs, held_out)
          + sections.training_section(pngs, logs_info)
          + sections.speed_section(ctx, speed)
          + sections.other_languages_section(ctx)
          + sections.failures_section(ctx)
          + appendix.appendix(dev, held_out, unseen))
    return "\n".join(md)


def print_summary(ctx, dev, unseen, held_out, voice, speed):
    """The headline figures on the terminal (the report has them all)."""
    seeds = ctx.seeds
    for name, sentences in [("dev", dev), ("unseen prose", unseen)]:
        if sentences is None:
            continue
        for s, label, _ in sentences.systems:
            log(f"WER {name}, {label}: {pct(total(sentences.items[s].values()))}")
        if len(seeds) > 1:
            log(f"WER {name}, {ctx.voice_label}, seeds 0-{seeds[-1]} pooled: "
                f"{pct(total(sentences.pooled(ctx.tts_ids)))}")
    if held_out:
        for ids, label in [(["recording"], "recordings"), (ctx.copy_ids, "copy-synthesis"),
                           (ctx.tts_ids, "TTS of held-out prompts")]:
            pooled_items = [i for s in ids for i in held_out.items[s].values()]
            log(f"WER {label}" + (f", seeds 0-{seeds[-1]} pooled" if len(ids) > 1 else "")
                + f": {pct(total(pooled_items))}")
        if held_out.acoustic:
            log(f"acoustic model vs held-out recordings: aligned log-mel error "
                f"{held_out.acoustic['aligned_mel_l1']:.3f}, pace "
                f"{held_out.acoustic['length_ratio']:.3f}x hers")
    for set_name, rows in [("held-out", voice.held_out), ("dev", voice.dev)]:
        for r in rows:
            p = r.pool
            log(f"Praat {set_name} {r.label}: HNR "
                + ("n/a" if p.hnr is None else f"{p.hnr:.2f} dB")
                + ", F0 median " + ("n/a" if p.f0_median is None else f"{p.f0_median:.1f} Hz")
                + ", F0 SD " + ("n/a" if p.f0_sd_semitones is None
                                else f"{p.f0_sd_semitones:.2f} semitones"))
    log(harmonicity_pitch.pitch_line(voice.pitch).replace("**", "").replace("`", ""))
    for t in voice.targets:
        log(f"target {harmonicity_pitch.verdict(t.passed)}: {t.name.replace('`', '')}: "
            f"{t.figures}")
    if speed.runs:
        log(f"real-time factor (1 thread): {speed.median_real_time_factor:.3f}")


def english_report(a):
    """The English report; its exit status."""
    started = time.monotonic()
    ctx, dev, unseen = prepare(a)
    facts = environment.describe(ctx.root, ctx.tts)
    dev_sentences.score(ctx, dev)
    if unseen:
        dev_sentences.score(ctx, unseen, unseen_text.speaking_systems(ctx), "unseen prose",
                            native_too=False)
    held_out, held_out_note = held_out_prompts.score(ctx)
    voice = harmonicity_pitch.measure(ctx, dev, held_out)
    pngs, logs_info = pictures.make_pictures(ctx, held_out)
    speed = speed_figure.measure(ctx)
    elapsed = time.monotonic() - started

    report_path = os.path.join(ctx.out_dir, "quality.md")
    json_path = harmonicity_pitch.write_json(ctx, facts, voice)
    atomic_write(report_path, render(ctx, facts, dev, unseen, held_out, held_out_note, voice,
                                     pngs, logs_info, speed, elapsed))
    if a.keep_work:
        log(f"work folder kept: {ctx.work}")
    print_summary(ctx, dev, unseen, held_out, voice, speed)
    log(f"wrote {ctx.rel(report_path)}, {ctx.rel(json_path)} and {len(pngs)} picture(s) in "
        f"{elapsed / 60:.1f} minutes")
    if ctx.failures:
        log(f"{len(ctx.failures)} failure(s), listed in the report:")
        for section, message in ctx.failures:
            log(f"  {section}: {message}")
        return 1
    return 0


def main():
    """The English report for an English voice, as it always was; a voice's other languages (or
    --language) each get their own report in the same run. The worst exit status counts."""
    a = parse_args()
    a.command = a.command or shlex.join(sys.argv)
    environment.check_tts(os.path.abspath(a.tts))
    voice_dir = resolve_voice(os.path.abspath(a.tts), a.voice)
    voice_json = read_voice_json(voice_dir)
    tags = [a.language] if a.language else languages.voice_languages(voice_json)
    log(f"languages reported: {', '.join(tags)}")
    status = 0
    for tag in tags:
        # --corpus is the first language's; --corpus-for names any language's
        corpus = languages.corpus_for(a.root, tag, a.corpora, a.corpus, tags[0])
        if languages.is_english(tag):
            status = max(status, english_report(argparse.Namespace(**dict(vars(a),
                                                                          corpus=corpus))))
        else:
            english_corpus = languages.corpus_for(a.root, "en", a.corpora, a.corpus, tags[0])
            status = max(status, language_report.main(a, os.path.abspath(a.root), tag, voice_dir,
                                                      voice_json, corpus,
                                                      os.path.abspath(english_corpus)))
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fatal as e:
        log(f"error: {e}")
        sys.exit(e.code)
    except KeyboardInterrupt:
        sys.exit(130)
