"""The report's pictures: which held-out prompt the spectrograms show and its log-mel frames (from
`tts mel`, the voice's own features), and the training logs behind the loss curves. plots.py draws
them; matplotlib is imported only here, after the long part of the run has been checked."""

import os

import training_logs
from commands import describe_failure, run

PNG_NAMES = ["spectrograms.png", "losses.png"]
SPECTROGRAM_SYSTEMS = [("recording", "recording"), ("copy", "copy-synthesis"),
                       ("tts", "TTS from the text")]   # seed 0 of each


def make_pictures(ctx, held_out, systems=None):
    """({png name: what the report says about it}, [(log name, training_logs.Log or None)]).
    systems: the spectrogram's panels, [(held-out system id, label)] (default
    SPECTROGRAM_SYSTEMS)."""
    import plots  # matplotlib only now, after the long part has been checked
    pngs = {}
    spectrograms = spectrogram_picture(ctx, held_out, plots, systems or SPECTROGRAM_SYSTEMS)
    if spectrograms:
        pngs["spectrograms.png"] = spectrograms
    logs_info, drawn = loss_curves(ctx, plots)
    if drawn:
        pngs["losses.png"] = {}
    remove_stale_pictures(os.path.join(ctx.out_dir, ctx.pictures_folder), pngs)
    return pngs, logs_info


def spectrogram_prompt(held_out, systems=SPECTROGRAM_SYSTEMS):
    """A prompt that all renderings made it through, preferably 1.5 to 6 s long; or None."""
    def usable(pid):
        return all(held_out.items[s][pid].wav and not held_out.items[s][pid].error
                   for s, _ in systems)
    good = [p for p in held_out.ids if usable(p)]
    preferred = [p for p in good if 1.5 <= (held_out.items["recording"][p].seconds or 0) <= 6.0]
    return (preferred or good or [None])[0]


def mel_command(ctx, wav, npy):
    """`tts mel` with the voice's feature settings, so that the picture shows what the models see."""
    features = ctx.voice_json.get("features", {})
    cmd = [ctx.tts, "mel", wav, "-o", npy,
           "--sample-rate", str(features.get("sample_rate", 16000)),
           "--n-fft", str(features.get("n_fft", 1024)),
           "--hop", str(features.get("hop_length", 200)),
           "--win", str(features.get("win_length", 800)),
           "--n-mels", str(features.get("n_mels", 80)),
           "--fmin", str(features.get("fmin", 0.0)),
           "--fmax", str(features.get("fmax", 8000.0)),
           "--log-floor", str(features.get("log_floor", 1e-5))]
    if not features.get("center", True):
        cmd.append("--no-center")
    return cmd


def spectrogram_picture(ctx, held_out, plots, systems=SPECTROGRAM_SYSTEMS):
    """Draws quality/spectrograms.png; {prompt, vmin, vmax}, or None with a note or a failure."""
    if not held_out:
        ctx.notes.append("No spectrogram picture: it shows a held-out prompt, and none was scored.")
        return None
    chosen = spectrogram_prompt(held_out, systems)
    if chosen is None:
        ctx.notes.append(f"No held-out prompt had all {len(systems)} renderings, so there is no "
                         f"spectrogram picture.")
        return None
    import numpy as np
    arrays = []
    for sys_id, label in systems:
        npy = os.path.join(ctx.work, f"mel-{sys_id}.npy")
        cmd = mel_command(ctx, held_out.items[sys_id][chosen].wav, npy)
        rc, _, err = run(cmd)
        if rc != 0:
            ctx.failures.append(("pictures", describe_failure("tts mel", cmd, rc, err)))
            return None
        arrays.append((label, np.load(npy)))
    features = ctx.voice_json.get("features", {})
    hop_seconds = features.get("hop_length", 200) / float(features.get("sample_rate", 16000))
    vmin, vmax = plots.spectrograms(
        arrays, hop_seconds, os.path.join(ctx.out_dir, ctx.pictures_folder, "spectrograms.png"),
        f"held-out prompt '{chosen}': {held_out.metadata[chosen][0]}")
    return {"prompt": chosen, "vmin": vmin, "vmax": vmax}


def loss_curves(ctx, plots):
    """Reads VOICE/training/{vocoder,acoustic}.log and draws quality/losses.png when either has
    step lines. ([(log name, training_logs.Log or None)], whether it drew)."""
    logs_info = []
    panels = []
    for name, title in [("vocoder", "vocoder (WaveNet), cross-entropy in nats"),
                        ("acoustic", "acoustic model")]:
        path = os.path.join(ctx.voice_dir, "training", f"{name}.log")
        if not os.path.isfile(path):
            note = f"{ctx.rel(path)} is missing"
            ctx.notes.append(f"No {name} training log: `{ctx.rel(path)}` is missing.")
            panels.append((title, None, note))
            logs_info.append((name, None))
            continue
        parsed = training_logs.read(path)
        if parsed.empty:
            ctx.notes.append(f"`{ctx.rel(path)}` has no step lines.")
        panels.append((title, parsed, "no step lines"))
        logs_info.append((name, parsed))
    drawn = any(p[1] is not None and not p[1].empty for p in panels)
    if drawn:
        plots.losses(panels, os.path.join(ctx.out_dir, ctx.pictures_folder, "losses.png"))
    return logs_info, drawn


def remove_stale_pictures(folder, pngs):
    """A picture this run did not make must not stay behind from an earlier run."""
    for name in PNG_NAMES:
        stale = os.path.join(folder, name)
        if name not in pngs and os.path.exists(stale):
            os.remove(stale)
