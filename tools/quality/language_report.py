"""The quality report of one language other than English: the voice on the held-out prompts of that
language's Asterisk corpus, beside the speaker's recordings, their copy-synthesis through the
voice's vocoder and espeak-ng in the same language; judged by Praat (harmonicity, pitch spread) and
by the aligned log-mel distance of the acoustic model to the recordings (`tts train
score-acoustic`), against the English voice's own figures. No word error rate: the recogniser here
(pocketsphinx, US-English model) knows no other language.

Writes OUT/quality-TAG.md and OUT/quality-TAG/ (spectrograms.png, losses.png, praat.json, wavs/).
report.py runs it for each non-English language of the voice (or --language).
"""

import atexit
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass

import environment
import harmonicity_pitch
import held_out as held_out_prompts
import language_sections
import language_targets
import languages
import pictures
import praat
from commands import Fatal, describe_failure, log, run
from context import Context
from scoring import Item, run_parallel, score_item
from speed import Speed, bench_command, bench_once
from systems import copy_file, espeak_say, tts_say, vocode

SECTION = "held-out prompts"
REFERENCE_VOICE = os.path.join("voices", "default")   # the English voice the targets compare with
SPECTROGRAM_SYSTEMS = pictures.SPECTROGRAM_SYSTEMS + [("espeak-ng", "espeak-ng")]
KEPT_SYSTEMS = [("tts", "tts"), ("espeak-ng", "espeak-ng")]   # wavs kept for listening (seed 0)


@dataclass
class Language:
    tag: str               # BCP 47, as the voice lists it ("es-MX")
    espeak: str            # espeak-ng voice that phonemises it ("es-419")
    held_out_file: str
    held_out_why: str      # how held_out_file was chosen, in words
    speaking: str          # how the voice was made to speak the language, in words
    say_extra: list        # arguments added to `tts say` for it
    voice_given: str       # the voice's own folder (ctx.voice_dir may be a copy of it)


@dataclass
class Reference:
    """The English voice's figures the targets compare with."""
    mel_distance: float | None
    mel_source: str        # where mel_distance came from, in words
    speed: Speed | None


def check_tools():
    for program in ["espeak-ng", "sox", "praat"]:
        if shutil.which(program) is None:
            raise Fatal(f"{program} is not installed (scripts/install-deps quality)")


def say_takes_lang(tts):
    rc, out, err = run([tts, "say", "--help"], timeout=60)
    return rc == 0 and "--lang" in out + err


def voice_for_language(ctx, voice_json, tag, espeak):
    """(voice folder, extra `tts say` arguments, in words) for the voice speaking `tag`: itself
    when `tag` is its own language; `tts say --lang TAG` where tts has it; else a copy of the
    voice in the work folder whose voice.json names `tag`'s espeak-ng voice as its language."""
    if languages.speaks_natively(voice_json, tag):
        return ctx.voice_dir, [], f"the voice's own language (`{voice_json['language']}`)"
    if say_takes_lang(ctx.tts):
        return ctx.voice_dir, ["--lang", tag], f"`tts say --lang {tag}`"
    copy = os.path.join(ctx.work, f"voice-{tag}", os.path.basename(ctx.voice_dir))
    shutil.copytree(ctx.voice_dir, copy)
    manifest = dict(voice_json, language=espeak, languages=[tag])
    with open(os.path.join(copy, "voice.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
    return copy, [], (f"a copy of the voice whose voice.json says `\"language\": \"{espeak}\"` "
                      f"(this `tts say` has no `--lang`)")


def prepare(a, root, tag, voice_dir, voice_json, corpus):
    """(Context, Language). Stops (Fatal) when a tool, the held-out list or the corpus is missing
    or the voice cannot speak the language's first prompt."""
    check_tools()
    stem = languages.report_stem(tag)
    ctx = Context(root=root, out_dir=os.path.abspath(a.out or os.path.join(root, "docs")),
                  tts=os.path.abspath(a.tts),
                  corpus=os.path.abspath(corpus),
                  limit=a.limit if a.limit and a.limit > 0 else None, jobs=a.jobs,
                  bench_runs=a.bench_runs, seeds=list(range(max(1, a.say_seeds))),
                  command=a.command, voice_dir=voice_dir, voice_json=voice_json,
                  pictures_folder=stem)
    espeak = languages.espeak_voice(voice_json, tag)
    held_file, why = languages.held_out_file(root, voice_dir, voice_json, tag, a.held_out)
    if not os.path.isfile(held_file):
        raise Fatal(f"no held-out list {held_file} for {tag} ({why}; pass --held-out FILE)")
    os.makedirs(os.path.join(ctx.out_dir, stem), exist_ok=True)
    ctx.work = tempfile.mkdtemp(prefix=f"tts-quality-{tag}.")
    if not a.keep_work:
        atexit.register(shutil.rmtree, ctx.work, True)
    ctx.voice_dir, extra, speaking = voice_for_language(ctx, voice_json, tag, espeak)
    log(f"{tag}: voice {voice_dir} ({speaking}), espeak-ng {espeak}, corpus {ctx.corpus}, "
        f"held-out {held_file}; work folder {ctx.work}")
    return ctx, Language(tag, espeak, held_file, why, speaking, extra, voice_dir)


def scoring_tasks(ctx, lang, known, metadata, hdir):
    """Recording, copy-synthesis and TTS per seed, espeak-ng: 16 kHz files at the common speech
    level, as the English report makes them, without the recogniser."""
    def task(item, make):
        return lambda: score_item(item, make, hdir, recognise_speech=False)
    tasks = []
    for pid in known:
        raw_text, ref = metadata[pid]
        src = os.path.join(ctx.corpus, "wavs", pid + ".wav")
        tasks.append(task(Item("recording", pid, raw_text, ref), copy_file(src)))
        for seed, copy_id, tts_id in zip(ctx.seeds, ctx.copy_ids, ctx.tts_ids):
            cop = Item(copy_id, pid, raw_text, ref)
            tasks.append(task(cop, vocode(ctx.tts, ctx.vocoder_dir, src, cop, seed)))
            tasks.append(task(Item(tts_id, pid, raw_text, ref),
                              tts_say(ctx.tts, ctx.voice_dir, raw_text, seed, lang.say_extra)))
        tasks.append(task(Item("espeak-ng", pid, raw_text, ref), espeak_say(raw_text, lang.espeak)))
    return tasks


def system_ids(ctx):
    return ["recording"] + ctx.copy_ids + ctx.tts_ids + ["espeak-ng"]


def score_prompts(ctx, lang):
    """held_out.HeldOut of the language's prompts (acoustic: score-acoustic's JSON or None)."""
    ids, n_all = held_out_prompts.read_prompt_ids(lang.held_out_file, ctx.limit)
    metadata = held_out_prompts.read_metadata(ctx, languages.primary(lang.tag))
    if not metadata:
        raise Fatal(f"no prompts in {os.path.join(ctx.corpus, 'metadata.csv')} (is --corpus "
                    f"right? {ctx.failures[-1][1] if ctx.failures else ''})")
    known = held_out_prompts.prompts_in_corpus(ctx, ids, metadata, lang.held_out_file)
    if not known:
        raise Fatal(f"none of the prompts of {lang.held_out_file} is in {ctx.corpus}")
    hdir = os.path.join(ctx.work, "held-out")
    os.makedirs(hdir)
    check = tts_say(ctx.tts, ctx.voice_dir, metadata[known[0]][0], 0, lang.say_extra)(
        os.path.join(hdir, "probe.wav"))
    if check:
        raise Fatal(f"the voice cannot speak {lang.tag}: {check}")
    t0 = time.monotonic()
    items = run_parallel(ctx.jobs, scoring_tasks(ctx, lang, known, metadata, hdir),
                         f"{lang.tag} {SECTION}")
    seconds = time.monotonic() - t0
    by_system = {s: {i.key: i for i in items if i.system == s} for s in system_ids(ctx)}
    for i in items:
        if i.error:
            ctx.failures.append((SECTION, f"{i.system} of '{i.key}': {i.error}"))
    acoustic = held_out_prompts.score_acoustic_model(ctx, known, hdir, lang.espeak)
    return held_out_prompts.HeldOut(known, n_all, metadata, by_system, seconds, acoustic)


def english_mel_distance(ctx, a, english_corpus):
    """(figure or None, where it came from): --reference-mel-distance, else voices/default scored
    on the English corpus's held-out prompts (all of them, whatever --limit) in this run."""
    if a.reference_mel_distance is not None:
        return a.reference_mel_distance, "given with `--reference-mel-distance`"
    voice = os.path.join(ctx.root, REFERENCE_VOICE)
    corpus = english_corpus
    ids = os.path.join(voice, "held-out.txt")
    cmd = [ctx.tts, "train", "score-acoustic", "--model", os.path.join(voice, "acoustic"),
           "--data", corpus, "--ids", ids]
    rc, out, err = run(cmd)
    try:
        if rc == 0:
            j = json.loads(out.strip().splitlines()[-1])
            return j["aligned_mel_l1"], (f"`{REFERENCE_VOICE}` scored on its {j['utterances']} "
                                         f"held-out prompts of `{ctx.rel(corpus)}` in this run")
    except (ValueError, IndexError, KeyError) as e:
        err = f"unreadable output ({e}): {out[-300:]}"
    ctx.failures.append(("targets", describe_failure("scoring the English voice", cmd, rc, err)))
    return None, "scoring the English voice failed: see the failures"


def bench_text(prompts):
    """The prompts as one paragraph, each ending a sentence."""
    return " ".join(p.strip() + ("" if p.strip()[-1:] in ".?!…" else ".")
                    for p in prompts if p.strip())


def measure_speed(ctx, text):
    """(this voice's Speed, the English voice's Speed): `tts bench pipeline` on one thread, the
    two voices taking turns so that a change in the machine's load falls on both. The voice
    speaks `text` (its language's prompts), the English voice its default paragraph."""
    mine, english, failed = [], [], set()
    t0 = time.monotonic()
    commands = [(mine, "this voice", bench_command(ctx.tts, ctx.voice_dir, text)),
                (english, "English voice", bench_command(
                    ctx.tts, os.path.join(ctx.root, REFERENCE_VOICE)))]
    for _ in range(max(0, ctx.bench_runs)):
        for runs, who, cmd in commands:
            if who in failed:
                continue
            result, failure = bench_once(cmd)
            if failure:
                ctx.failures.append(("speed", f"{who}: {failure}"))
                failed.add(who)
            else:
                runs.append(result)
    seconds = time.monotonic() - t0
    log(f"speed: {len(mine)} + {len(english)} run(s) of tts bench pipeline ({seconds:.0f} s)")
    return Speed(mine, seconds), Speed(english, seconds)


def measure_praat(ctx, held):
    """[harmonicity_pitch.Row] of recording, copy-synthesis, TTS (seeds pooled) and espeak-ng."""
    seeds = ctx.seeds
    pooled = f", seeds 0–{seeds[-1]} pooled" if len(seeds) > 1 else f", seed {seeds[0]}"
    specs = [("recording", "recordings (human)", ["recording"]),
             ("copy", "copy-synthesis" + pooled, ctx.copy_ids),
             ("tts", ctx.voice_label + " from the text" + pooled, ctx.tts_ids),
             ("espeak-ng", "espeak-ng from the text", ["espeak-ng"])]
    wavs = [w for _, _, members in specs for m in members for k in held.ids
            for w in [harmonicity_pitch.wav_of(held.items[m].get(k))] if w]
    t0 = time.monotonic()
    measured = praat.measure_files(wavs, os.path.join(ctx.work, "praat"), ctx.jobs)
    seconds = time.monotonic() - t0
    log(f"Praat measured {len(wavs)} files in {seconds:.0f} s")
    rows = harmonicity_pitch.build_rows(ctx, specs, held.items, held.ids, measured, SECTION)
    return rows, seconds, len(wavs)


def keep_wavs(ctx, held):
    """Copies the 16 kHz files of TTS (seed 0) and espeak-ng to OUT/quality-TAG/wavs/ for
    listening (the recordings are the corpus's); removes what an earlier run left there."""
    folder = os.path.join(ctx.out_dir, ctx.pictures_folder, "wavs")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    kept = 0
    for sys_id, name in KEPT_SYSTEMS:
        for pid in held.ids:
            wav = harmonicity_pitch.wav_of(held.items[sys_id].get(pid))
            if wav:
                shutil.copyfile(wav, os.path.join(folder, f"{pid}.{name}.wav"))
                kept += 1
    return kept


def main(a, root, tag, voice_dir, voice_json, corpus, english_corpus):
    """Writes the language's report on `corpus` (the English voice's figure on english_corpus).
    Returns the exit status (0, or 1 when something failed)."""
    started = time.monotonic()
    ctx, lang = prepare(a, root, tag, voice_dir, voice_json, corpus)
    facts = environment.describe(ctx.root, ctx.tts)
    held = score_prompts(ctx, lang)
    reference_mel, reference_source = english_mel_distance(ctx, a, english_corpus)
    rows, praat_seconds, praat_files = measure_praat(ctx, held)
    pngs, logs_info = pictures.make_pictures(ctx, held, SPECTROGRAM_SYSTEMS)
    kept = keep_wavs(ctx, held)
    text = bench_text([held.metadata[p][0] for p in held.ids[:5]])
    speed, english_speed = measure_speed(ctx, text)
    by_key = {r.key: r.pool for r in rows}
    targets = language_targets.judge(
        by_key.get("recording"), by_key.get("copy"), by_key.get("tts"), held.acoustic,
        reference_mel, reference_source,
        speed.median_real_time_factor if speed.runs else None,
        english_speed.median_real_time_factor if english_speed.runs else None)
    reference = Reference(reference_mel, reference_source, english_speed)
    elapsed = time.monotonic() - started
    run_facts = language_sections.RunFacts(facts, elapsed, praat_seconds, praat_files, kept, text,
                                           speed.seconds)
    report = os.path.join(ctx.out_dir, languages.report_stem(tag) + ".md")
    language_sections.write(ctx, lang, held, rows, targets, reference, speed, pngs, logs_info,
                            run_facts, report)
    for t in targets:
        log(f"{tag} target {harmonicity_pitch.verdict(t.passed)}: {t.name}: {t.figures}")
    log(f"wrote {ctx.rel(report)} and {ctx.rel(os.path.join(ctx.out_dir, ctx.pictures_folder))}/ "
        f"in {elapsed / 60:.1f} minutes")
    if a.keep_work:
        log(f"work folder kept: {ctx.work}")
    if ctx.failures:
        log(f"{len(ctx.failures)} failure(s), listed in the report:")
        for section, message in ctx.failures:
            log(f"  {section}: {message}")
        return 1
    return 0
