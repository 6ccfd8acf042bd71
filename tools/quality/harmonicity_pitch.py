"""The report's second judge: Praat's harmonicity (HNR) and pitch (F0) of every system's audio (the
same 16 kHz mono files the recogniser heard), a pitch-shift check of `tts say --pitch`, and the
targets the project set, evaluated against this run's figures. praat.py measures and pools.

Runs after the development sentences and held-out prompts were spoken: it only reads their wavs,
plus the few sentences it has the voice speak for the pitch-shift check.
"""

import json
import os
import statistics
import time
from dataclasses import dataclass, field

import praat
from commands import log
from dev_sentences import is_harvard
from scoring import run_parallel, to_16k, total
from systems import FLITE_VOICES, tts_say

SECTION = "harmonicity and pitch"   # how failures here are labelled
PITCH_SHIFT = 4.0                   # semitones asked of `tts say --pitch`
PITCH_TOLERANCE = 0.5               # semitones either side that pass
HNR_MARGIN = 1.0                    # dB below copy-synthesis that TTS may lie
F0_SD_TOLERANCE = 0.5               # semitones between TTS's and the recordings' F0 SD


@dataclass
class Row:
    """One system of a table: the item systems it pools (the seeds), and their figures."""
    key: str              # "tts", "copy", "recording", "flite-rms", ...
    label: str
    members: list         # item system ids pooled (one per seed)
    pool: praat.Pool
    per_member: dict      # member id -> praat.Pool
    per_utterance: dict   # member id -> {utterance key: praat.Measure}
    unmeasured: int       # utterances without audio or that Praat could not measure


@dataclass
class PitchCheck:
    sentences: list               # dev sentence keys
    seed: int                     # tts say --seed, the same for both renderings
    plain: list                   # Measure or None, per sentence (tts say --pitch 0)
    shifted: list                 # Measure or None, per sentence (tts say --pitch +4)
    shifts: list = field(default_factory=list)   # semitones per sentence, or None
    shift: float | None = None    # the median of shifts
    seconds: float = 0.0          # synthesis time

    @property
    def passed(self):
        """False also when no sentence could be measured: the check ran, and the voice did not
        speak at a shifted pitch."""
        return self.shift is not None and abs(self.shift - PITCH_SHIFT) <= PITCH_TOLERANCE

    def why_unmeasured(self):
        """Why no sentence has a shift, in words."""
        plain_failed = sum(m is None for m in self.plain)
        shifted_failed = sum(m is None for m in self.shifted)
        unvoiced = sum(1 for a, b in zip(self.plain, self.shifted)
                       if a is not None and b is not None and not (a.f0 and b.f0))
        parts = []
        if shifted_failed:
            parts.append(f"{shifted_failed} rendering(s) with --pitch +{PITCH_SHIFT:g} failed")
        if plain_failed:
            parts.append(f"{plain_failed} with --pitch 0 failed")
        if unvoiced:
            parts.append(f"{unvoiced} sentence(s) had no voiced frame in one of the two")
        return (f"of {len(self.sentences)} sentence(s), " + ", ".join(parts or ["none measured"])
                + " (see the failures below)")


@dataclass
class Target:
    name: str
    figures: str                  # what was measured, in words
    passed: bool | None           # None: not measured in this run


@dataclass
class VoiceMeasures:
    held_out: list                # [Row], empty without held-out prompts
    dev: list                     # [Row]
    pitch: PitchCheck | None
    targets: list                 # [Target]
    praat_seconds: float          # Praat's share of the run (wall)
    files: int                    # files Praat measured
    version: str | None


def held_out_rows(ctx):
    """(key, label, member ids) of the held-out table."""
    seeds = ctx.seeds
    pooled = f", seeds 0–{seeds[-1]} pooled" if len(seeds) > 1 else f", seed {seeds[0]}"
    return ([("recording", "recordings (human)", ["recording"]),
             ("copy", "copy-synthesis" + pooled, ctx.copy_ids),
             ("tts", ctx.voice_label + " from the text" + pooled, ctx.tts_ids)]
            + [(sys_id, f"flite {voice}", [sys_id]) for sys_id, voice in FLITE_VOICES])


def dev_rows(ctx):
    seeds = ctx.seeds
    pooled = f", seeds 0–{seeds[-1]} pooled" if len(seeds) > 1 else f", seed {seeds[0]}"
    return ([("tts", ctx.voice_label + pooled, ctx.tts_ids)]
            + [(sys_id, f"flite {voice}", [sys_id]) for sys_id, voice in FLITE_VOICES])


def pitch_shift_sentences(ctx, dev):
    """The first N development sentences (N = ctx.pitch_sentences)."""
    n = max(0, ctx.pitch_sentences)
    return list(zip(dev.keys, dev.sentences))[:n]


def synthesise_pitch_pair(ctx, key, text, pdir):
    """[(wav or None, error or None)] for --pitch 0 and --pitch +4 of one sentence, seed 0."""
    out = []
    for name, pitch in [("plain", "0"), ("shifted", f"+{PITCH_SHIFT:g}")]:
        raw = os.path.join(pdir, f"{name}-{key}.raw.wav")
        wav = os.path.join(pdir, f"{name}-{key}.wav")
        error = tts_say(ctx.tts, ctx.voice_dir, text, ctx.seeds[0], ["--pitch", pitch])(raw)
        if error is None:
            error, _ = to_16k(raw, wav)
        out.append((None, error) if error else (wav, None))
    return out


class _Done:
    """What run_parallel expects back from a task (it logs .error, .system and .key)."""
    def __init__(self, key, result):
        self.system, self.key, self.result = "sentence", key, result
        errors = [e for _, e in result if e]
        self.error = errors[0] if errors else None


def speak_pitch_pairs(ctx, sentences):
    pdir = os.path.join(ctx.work, "pitch-shift")
    os.makedirs(pdir, exist_ok=True)
    tasks = [lambda k=k, t=t: _Done(k, synthesise_pitch_pair(ctx, k, t, pdir))
             for k, t in sentences]
    return [d.result for d in run_parallel(ctx.jobs, tasks, "pitch-shift check")]


def wav_of(item):
    return item.wav if item is not None and item.wav and os.path.isfile(item.wav) else None


def build_rows(ctx, specs, items, keys, measured, set_name):
    rows = []
    for key, label, members in specs:
        per_member, per_utt, unmeasured = {}, {}, 0
        for member in members:
            got = {}
            for k in keys:
                item = items.get(member, {}).get(k)
                wav = wav_of(item)
                m = measured.get(wav) if wav else None
                if isinstance(m, praat.Measure):
                    got[k] = m
                else:
                    unmeasured += 1
                    if isinstance(m, str):
                        ctx.failures.append((SECTION, f"{set_name}, {member} '{k}': {m}"))
            per_utt[member] = got
            per_member[member] = praat.Pool(list(got.values()))
        rows.append(Row(key, label, members,
                        praat.Pool([m for member in members for m in per_utt[member].values()]),
                        per_member, per_utt, unmeasured))
    return rows


def row(rows, key):
    return next((r for r in rows if r.key == key), None)


def evaluate_targets(ctx, dev, held_out_table, pitch):
    """The project's targets against this run's figures."""
    targets = []
    tts, copy = row(held_out_table, "tts"), row(held_out_table, "copy")
    rec = row(held_out_table, "recording")
    if tts and copy and tts.pool.hnr is not None and copy.pool.hnr is not None:
        targets.append(Target(
            f"TTS HNR on the held-out prompts ≥ copy-synthesis HNR − {HNR_MARGIN:g} dB",
            f"TTS {tts.pool.hnr:.2f} dB, copy-synthesis {copy.pool.hnr:.2f} dB (needs ≥ "
            f"{copy.pool.hnr - HNR_MARGIN:.2f})", tts.pool.hnr >= copy.pool.hnr - HNR_MARGIN))
    else:
        targets.append(Target(f"TTS HNR on the held-out prompts ≥ copy-synthesis HNR − "
                              f"{HNR_MARGIN:g} dB", "not measured in this run", None))
    name = (f"TTS F0 SD on the held-out prompts within {F0_SD_TOLERANCE:g} semitones of the "
            f"recordings'")
    if (tts and rec and tts.pool.f0_sd_semitones is not None
            and rec.pool.f0_sd_semitones is not None):
        diff = tts.pool.f0_sd_semitones - rec.pool.f0_sd_semitones
        targets.append(Target(name, f"TTS {tts.pool.f0_sd_semitones:.2f}, recordings "
                                    f"{rec.pool.f0_sd_semitones:.2f} semitones "
                                    f"(difference {diff:+.2f})", abs(diff) <= F0_SD_TOLERANCE))
    else:
        targets.append(Target(name, "not measured in this run", None))
    name = "dev WER of TTS (seeds pooled) ≤ flite rms's dev WER"
    tts_wer = total(dev.pooled(ctx.tts_ids)).wer if dev.items else None
    rms_items = dev.items.get("flite-rms")
    rms_wer = total(rms_items.values()).wer if rms_items else None
    if tts_wer is not None and rms_wer is not None:
        targets.append(Target(name, f"TTS {100 * tts_wer:.1f}%, flite rms {100 * rms_wer:.1f}%",
                              tts_wer <= rms_wer))
    else:
        targets.append(Target(name, "not measured in this run", None))
    name = "Harvard sentences (dev 1–30) WER of TTS (seeds pooled) ≤ flite kal16's"
    harvard = [i for i in dev.pooled(ctx.tts_ids) if is_harvard(i.key)] if dev.items else []
    kal16_items = dev.items.get("flite-kal16") if dev.items else None
    kal16 = [i for i in kal16_items.values() if is_harvard(i.key)] if kal16_items else []
    if harvard and kal16 and len(dev.keys) >= 30:
        tts_h, kal16_h = total(harvard).wer, total(kal16).wer
        targets.append(Target(name, f"TTS {100 * tts_h:.1f}%, flite kal16 {100 * kal16_h:.1f}%",
                              tts_h <= kal16_h))
    else:
        targets.append(Target(name, "not measured in this run", None))
    name = (f"`tts say --pitch +{PITCH_SHIFT:g}` shifts F0 by {PITCH_SHIFT:g} ± "
            f"{PITCH_TOLERANCE:g} semitones")
    if pitch is not None and pitch.shift is not None:
        targets.append(Target(name, f"{pitch.shift:+.2f} semitones (median over "
                                    f"{sum(s is not None for s in pitch.shifts)} sentences)",
                              pitch.passed))
    elif pitch is not None:
        targets.append(Target(name, "no shift measured: " + pitch.why_unmeasured(), False))
    else:
        targets.append(Target(name, "not measured in this run (`--pitch-sentences 0`)", None))
    return targets


def measure(ctx, dev, held_out):
    """Speaks the pitch-shift sentences, has Praat measure every wav, pools; VoiceMeasures."""
    sentences = pitch_shift_sentences(ctx, dev)
    pitch = None
    pairs = []
    if sentences:
        t0 = time.monotonic()
        pairs = speak_pitch_pairs(ctx, sentences)
        pitch = PitchCheck([k for k, _ in sentences], ctx.seeds[0], [], [],
                           seconds=time.monotonic() - t0)
        for (key, _), pair in zip(sentences, pairs):
            for which, (_, error) in zip(["--pitch 0", f"--pitch +{PITCH_SHIFT:g}"], pair):
                if error:
                    ctx.failures.append((SECTION, f"pitch-shift check, sentence {key} with "
                                         f"{which}: {error}"))

    held_keys = held_out.ids if held_out else []
    held_items = held_out.items if held_out else {}
    held_specs = held_out_rows(ctx) if held_out else []
    dev_specs = dev_rows(ctx)
    wavs = []   # the systems of the tables only (not espeak-ng)
    for specs, items, keys in [(dev_specs, dev.items, dev.keys),
                               (held_specs, held_items, held_keys)]:
        for _, _, members in specs:
            for member in members:
                per_key = items.get(member, {})
                wavs += [w for w in (wav_of(per_key.get(k)) for k in keys) if w]
    wavs += [w for pair in pairs for w, _ in pair if w]
    t0 = time.monotonic()
    log(f"{SECTION}: Praat measures {len(wavs)} files, "
        f"{max(1, min(ctx.jobs, len(wavs)))} at a time")
    measured = praat.measure_files(wavs, os.path.join(ctx.work, "praat"), ctx.jobs)
    praat_seconds = time.monotonic() - t0
    log(f"{SECTION}: done in {praat_seconds:.0f} s")

    held_table = build_rows(ctx, held_specs, held_items, held_keys, measured, "held-out prompts")
    dev_table = build_rows(ctx, dev_specs, dev.items, dev.keys, measured, "development sentences")
    if pitch is not None:
        for (key, _), ((plain_wav, _), (shifted_wav, _)) in zip(sentences, pairs):
            for wav, dest, which in [(plain_wav, pitch.plain, "--pitch 0"),
                                     (shifted_wav, pitch.shifted, f"--pitch +{PITCH_SHIFT:g}")]:
                m = measured.get(wav) if wav else None
                if isinstance(m, str):
                    ctx.failures.append((SECTION, f"pitch-shift check, sentence {key} with "
                                         f"{which}: {m}"))
                dest.append(m if isinstance(m, praat.Measure) else None)
        pitch.shift, pitch.shifts = praat.pitch_shift(list(zip(pitch.plain, pitch.shifted)))
    targets = evaluate_targets(ctx, dev, held_table, pitch)
    return VoiceMeasures(held_table, dev_table, pitch, targets, praat_seconds, len(wavs),
                         praat.version())


def verdict(passed):
    return "not measured" if passed is None else ("PASS" if passed else "FAIL")


def pitch_line(pitch):
    """The pitch-shift check in one sentence."""
    if pitch is None:
        return "Pitch-shift check: not run (`--pitch-sentences 0`)."
    n = len(pitch.sentences)
    if pitch.shift is None:
        return (f"Pitch-shift check (`tts say --seed {pitch.seed} --pitch 0` and `--pitch "
                f"+{PITCH_SHIFT:g}`, the first {n} development sentence(s)): no shift measured, "
                f"{pitch.why_unmeasured()}: **FAIL** against the target {PITCH_SHIFT:g} ± "
                f"{PITCH_TOLERANCE:g} semitones.")
    medians = [(p.f0_median if p else None, s.f0_median if s else None)
               for p, s in zip(pitch.plain, pitch.shifted)]
    plain = [a for a, _ in medians if a]
    shifted = [b for _, b in medians if b]
    return (f"Pitch-shift check: the voice spoke the first {n} development sentence(s) with "
            f"`tts say --seed {pitch.seed} --pitch 0` and `--pitch +{PITCH_SHIFT:g}`; median F0 "
            f"{statistics.median(plain):.1f} Hz → {statistics.median(shifted):.1f} Hz "
            f"(medians of the sentences' medians); shift **{pitch.shift:+.2f} semitones** (median "
            f"over {sum(s is not None for s in pitch.shifts)} sentences of "
            f"12·log2(shifted median / plain median)) against the target {PITCH_SHIFT:g} ± "
            f"{PITCH_TOLERANCE:g}: **{verdict(pitch.passed)}**.")


def median_hz(m):
    return praat.rounded(m.f0_median if m is not None else None, 2)


def to_json(ctx, facts, vm):
    """The figures, machine-readable (OUT/quality/praat.json), so that later runs can compare."""
    def table(rows):
        return {r.key: {"label": r.label, "members": r.members, "unmeasured": r.unmeasured,
                        "pooled": r.pool.summary(),
                        "per_member": {m: p.summary() for m, p in r.per_member.items()},
                        "utterances": {m: {k: x.summary() for k, x in u.items()}
                                       for m, u in r.per_utterance.items()}}
                for r in rows}
    pitch = None
    if vm.pitch is not None:
        p = vm.pitch
        pitch = {"target_semitones": PITCH_SHIFT, "tolerance_semitones": PITCH_TOLERANCE,
                 "seed": p.seed, "shift_semitones": praat.rounded(p.shift, 3),
                 "verdict": verdict(p.passed),
                 "why_unmeasured": p.why_unmeasured() if p.shift is None else None,
                 "sentences": {k: {"plain_f0_median_hz": median_hz(a),
                                   "shifted_f0_median_hz": median_hz(b),
                                   "shift_semitones": praat.rounded(s, 3)}
                               for k, a, b, s in zip(p.sentences, p.plain, p.shifted, p.shifts)}}
    return {
        "date": facts.get("date"), "commit": facts.get("commit"), "command": ctx.command,
        "voice": ctx.voice_dir, "limit": ctx.limit, "seeds": ctx.seeds,
        "praat": vm.version, "hnr": praat.HNR_ARGS, "pitch": praat.PITCH_ARGS,
        "audio": "16 kHz mono 16-bit (sox), the files the recogniser heard",
        "held_out": table(vm.held_out), "dev": table(vm.dev), "pitch_shift": pitch,
        "targets": [{"target": t.name, "figures": t.figures, "verdict": verdict(t.passed)}
                    for t in vm.targets],
        "praat_seconds": round(vm.praat_seconds, 1), "files_measured": vm.files,
    }


def write_json(ctx, facts, vm):
    path = os.path.join(ctx.out_dir, "quality", "praat.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(to_json(ctx, facts, vm), f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)
    return path

