"""The held-out Asterisk prompts (listed in the voice's held-out.txt, not trained on): each as
recorded, copy-synthesised through the voice's vocoder, spoken by the voice from its text and by
flite's voices kal16, rms and slt (to calibrate the recogniser and Praat on the same texts)."""

import json
import os
import subprocess
import time
from dataclasses import dataclass

from commands import describe_failure, log, run
from inputs import read_lines
from scoring import Item, run_parallel, score_item
from systems import FLITE_VOICES, copy_file, flite_say, tts_say, vocode

SECTION = "held-out prompts"   # how failures here are labelled


@dataclass
class HeldOut:
    ids: list        # the prompts scored: those of held-out.txt in the corpus, up to --limit
    n_all: int       # prompts listed in held-out.txt
    metadata: dict   # prompt id -> (raw transcript, normalised transcript)
    items: dict      # system id (held_out_system_ids) -> {prompt id: Item}
    seconds: float
    acoustic: dict | None = None  # `tts train score-acoustic`'s JSON for the prompts, if it ran


def held_out_system_ids(ctx):
    return ["recording"] + ctx.copy_ids + ctx.tts_ids + [sys_id for sys_id, _ in FLITE_VOICES]


def read_prompt_ids(held_out_file, limit):
    """(the ids to score, how many the file lists)."""
    ids = [line.strip() for line in read_lines(held_out_file)
           if line.strip() and not line.strip().startswith("#")]
    return (ids[:limit] if limit else ids), len(ids)


def read_metadata(ctx, language="en"):
    """prompt id -> (raw transcript, normalised transcript); builds the corpus when it is missing
    (language: build-asterisk-corpus's --language)."""
    metadata_path = os.path.join(ctx.corpus, "metadata.csv")
    if not os.path.isfile(metadata_path):
        log(f"{metadata_path} is missing: building the corpus with scripts/build-asterisk-corpus")
        cmd = [os.path.join(ctx.root, "scripts", "build-asterisk-corpus"), ctx.corpus]
        if language != "en":
            cmd += ["--language", language]
        rc = subprocess.run(cmd).returncode
        if rc != 0 or not os.path.isfile(metadata_path):
            ctx.failures.append((SECTION, describe_failure(
                "building the corpus", cmd, rc, "see the messages above")))
    metadata = {}
    if os.path.isfile(metadata_path):
        for line in read_lines(metadata_path):
            parts = line.split("|")
            if len(parts) >= 3:
                metadata[parts[0]] = (parts[1], parts[2])
    return metadata


def prompts_in_corpus(ctx, ids, metadata, held_out_file):
    """The ids that the corpus has; each other one is a failure (unless there is no corpus at all,
    which is a failure already)."""
    known = []
    for pid in ids:
        if pid in metadata:
            known.append(pid)
        elif metadata:
            ctx.failures.append((SECTION, f"prompt id '{pid}' from {held_out_file} "
                                 f"is not in {os.path.join(ctx.corpus, 'metadata.csv')}; "
                                 f"not scored"))
    return known


def scoring_tasks(ctx, known, metadata, hdir):
    tasks = []
    for pid in known:
        raw_text, ref = metadata[pid]
        src = os.path.join(ctx.corpus, "wavs", pid + ".wav")
        rec = Item("recording", pid, raw_text, ref)
        tasks.append(lambda it=rec, m=copy_file(src): score_item(it, m, hdir))
        # Copy-synthesis and TTS sample: one item per seed, as for the dev sentences.
        for seed, copy_id, tts_id in zip(ctx.seeds, ctx.copy_ids, ctx.tts_ids):
            cop = Item(copy_id, pid, raw_text, ref)
            syn = Item(tts_id, pid, raw_text, ref)
            tasks.append(lambda it=cop, m=vocode(ctx.tts, ctx.vocoder_dir, src, cop, seed):
                         score_item(it, m, hdir))
            tasks.append(lambda it=syn, m=tts_say(ctx.tts, ctx.voice_dir, raw_text, seed):
                         score_item(it, m, hdir))
        for sys_id, voice in FLITE_VOICES:
            fl = Item(sys_id, pid, raw_text, ref)
            tasks.append(lambda it=fl, m=flite_say(raw_text, voice): score_item(it, m, hdir))
    return tasks


def score_acoustic_model(ctx, known, hdir, espeak_voice=None):
    """The voice's acoustic model against the held-out recordings (`tts train score-acoustic`,
    transcripts phonemised with espeak_voice, by default its English): its JSON, or None with a
    failure recorded."""
    ids_file = os.path.join(hdir, "scored-ids.txt")
    with open(ids_file, "w", encoding="utf-8") as f:
        f.write("".join(pid + "\n" for pid in known))
    acoustic_dir = os.path.join(ctx.voice_dir, ctx.voice_json.get("acoustic", "acoustic"))
    cmd = [ctx.tts, "train", "score-acoustic", "--model", acoustic_dir, "--data", ctx.corpus,
           "--ids", ids_file]
    if espeak_voice:
        cmd += ["--lang", espeak_voice]
    rc, out, err = run(cmd)
    try:
        if rc == 0:
            return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError) as e:
        err = f"unreadable output ({e}): {out[-300:]}"
    ctx.failures.append((SECTION, describe_failure("scoring the acoustic model", cmd, rc, err)))
    return None


def score(ctx):
    """(HeldOut, None) when prompts were scored; (None, note) when the voice has no held-out.txt;
    (None, None) when none of its prompts could be scored (the failures say why)."""
    held_out_file = os.path.join(ctx.voice_dir, "held-out.txt")
    if not os.path.isfile(held_out_file):
        note = ("The voice has no `held-out.txt`, so the human recordings, copy-synthesis "
                "and TTS of held-out prompts were not scored.")
        ctx.notes.append(note)
        log(f"{held_out_file} is missing: skipping the held-out prompts")
        return None, note
    ids, n_all = read_prompt_ids(held_out_file, ctx.limit)
    metadata = read_metadata(ctx)
    known = prompts_in_corpus(ctx, ids, metadata, held_out_file)
    if not known:
        return None, None
    hdir = os.path.join(ctx.work, "held-out")
    os.makedirs(hdir)
    tasks = scoring_tasks(ctx, known, metadata, hdir)
    t0 = time.monotonic()
    items = run_parallel(ctx.jobs, tasks, SECTION)
    seconds = time.monotonic() - t0
    by_system = {sys_id: {i.key: i for i in items if i.system == sys_id}
                 for sys_id in held_out_system_ids(ctx)}
    for i in items:
        if i.error:
            ctx.failures.append((SECTION, f"{i.system} of '{i.key}': {i.error}"))
    acoustic = score_acoustic_model(ctx, known, hdir)
    return HeldOut(known, n_all, metadata, by_system, seconds, acoustic), None
