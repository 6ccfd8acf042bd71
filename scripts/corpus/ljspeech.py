"""Shared pieces of the corpus builders: checking wav files, writing an LJSpeech-style folder
(wavs/ + metadata.csv + dropped.tsv + summary.json) through a temporary folder renamed into place,
and the printed summary."""

import array
import json
import os
import re
import shutil
import sys
import warnings
import wave

with warnings.catch_warnings():  # audioop is fast and in Debian 12's Python 3.11; optional
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import audioop as _audioop
    except ImportError:
        _audioop = None

SAMPLE_RATE = 16000
MIN_SECONDS = 0.2
MAX_SECONDS = 20.0
# A prompt whose loudest sample is under -40 dBFS is treated as silent.
MIN_PEAK = 0.01

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


def id_from_path(relative):
    """'digits/1.g722' -> 'digits_1'. Characters outside [A-Za-z0-9_-] become '_'."""
    stem = os.path.splitext(relative)[0]
    return re.sub(r"[^A-Za-z0-9_-]", "_", stem.replace(os.sep, "_").replace("/", "_"))


def inspect_wav(path):
    """Return (seconds, peak 0..1, rms 0..1) of a 16-bit mono wav at SAMPLE_RATE, or raise
    ValueError naming what is wrong."""
    try:
        with wave.open(path, "rb") as w:
            if w.getnchannels() != 1 or w.getsampwidth() != 2 or w.getframerate() != SAMPLE_RATE:
                raise ValueError("format %d ch, %d bytes, %d Hz (want mono 16-bit %d Hz)" % (
                    w.getnchannels(), w.getsampwidth(), w.getframerate(), SAMPLE_RATE))
            frames = w.getnframes()
            data = w.readframes(frames)
    except (wave.Error, EOFError) as e:
        raise ValueError("unreadable wav: %s" % e)
    data = data[: len(data) // 2 * 2]
    n = len(data) // 2
    if n == 0:
        return 0.0, 0.0, 0.0
    if _audioop is not None and sys.byteorder == "little":
        peak = _audioop.max(data, 2) / 32768.0
        rms = _audioop.rms(data, 2) / 32768.0
    else:
        samples = array.array("h")
        samples.frombytes(data)
        if sys.byteorder != "little":
            samples.byteswap()
        peak = max(max(samples), -min(samples)) / 32768.0
        rms = (sum(s * s for s in samples) / n) ** 0.5 / 32768.0
    return n / float(SAMPLE_RATE), peak, rms


def check_audio(seconds, peak):
    """Return a drop reason, or None when the audio is usable."""
    if seconds <= 0:
        return "audio empty"
    if seconds < MIN_SECONDS:
        return "too short (< %.1f s)" % MIN_SECONDS
    if seconds > MAX_SECONDS:
        return "too long (> %.0f s)" % MAX_SECONDS
    if peak < MIN_PEAK:
        return "silent (peak < -40 dBFS)"
    return None


def histogram(durations):
    edges = [0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0]
    rows = []
    for lo, hi in zip(edges, edges[1:]):
        rows.append(("%g-%g s" % (lo, hi), sum(1 for d in durations if lo <= d < hi)))
    return rows


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def keep_synthesised(kept, dropped, wav, row, error, failure):
    """Files one synthesised row: into `kept` (row: a dict with id, raw, normalised, seconds, peak,
    rms) when the synthesiser made it (`error` None) and check_audio passes it, else into `dropped`
    with the reason (`failure` when it was not made), its wav removed. Returns whether it was kept."""
    reason = (failure, error) if error else None
    if not reason:
        why = check_audio(row["seconds"], row["peak"])
        if why:
            reason = (why, "%.2f s" % row["seconds"])
    if reason:
        dropped.append((row["id"], reason[0], reason[1]))
        if os.path.exists(wav):
            os.remove(wav)
        return False
    kept.append(row)
    return True


class StagedFolder:
    """A sibling temporary folder that replaces OUT_DIR only when everything is written."""

    def __init__(self, out_dir):
        self.out_dir = os.path.abspath(out_dir.rstrip("/") or "/")
        parent = os.path.dirname(self.out_dir)
        os.makedirs(parent, exist_ok=True)
        base = os.path.basename(self.out_dir)
        self.tmp = os.path.join(parent, ".%s.tmp.%d" % (base, os.getpid()))
        self.old = os.path.join(parent, ".%s.old.%d" % (base, os.getpid()))
        # Leftovers of an interrupted earlier run (any pid) are removed first.
        for name in os.listdir(parent):
            if name.startswith(".%s.tmp." % base) or name.startswith(".%s.old." % base):
                shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
        os.makedirs(os.path.join(self.tmp, "wavs"))

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def commit(self):
        if os.path.lexists(self.out_dir):
            os.rename(self.out_dir, self.old)
        os.rename(self.tmp, self.out_dir)
        shutil.rmtree(self.old, ignore_errors=True)

    def abandon(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def write_outputs(stage, kept, dropped, extra_summary):
    """kept: list of dicts with id, raw, normalised, seconds, peak, rms (wav already in place).
    dropped: list of (id, reason, detail). Writes metadata.csv, dropped.tsv, durations.tsv, summary.json
    and returns the summary dict."""
    kept = sorted(kept, key=lambda r: r["id"])
    dropped = sorted(dropped)
    for row in kept:
        for field in ("raw", "normalised"):
            if "|" in row[field] or "\n" in row[field]:
                raise ValueError("%s: %s text contains '|' or a newline" % (row["id"], field))
    with open(stage.path("metadata.csv"), "w", encoding="utf-8", newline="\n") as f:
        for row in kept:
            f.write("%s|%s|%s\n" % (row["id"], row["raw"], row["normalised"]))
    with open(stage.path("dropped.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("id\treason\tdetail\n")
        for ident, reason, detail in dropped:
            f.write("%s\t%s\t%s\n" % (ident, reason, detail.replace("\t", " ").replace("\n", " ")))
    with open(stage.path("durations.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("id\tseconds\tpeak_dbfs\trms_dbfs\n")
        for row in kept:
            f.write("%s\t%.3f\t%.1f\t%.1f\n" % (row["id"], row["seconds"], db(row["peak"]),
                                                db(row["rms"])))
    durations = sorted(r["seconds"] for r in kept)
    reasons = {}
    for _, reason, _ in dropped:
        reasons[reason] = reasons.get(reason, 0) + 1
    summary = {
        "kept": len(kept),
        "kept_minutes": round(sum(durations) / 60.0, 2),
        "dropped": len(dropped),
        "dropped_by_reason": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        "seconds": {
            "min": round(durations[0], 3) if durations else 0,
            "p10": round(percentile(durations, 0.1), 3),
            "median": round(percentile(durations, 0.5), 3),
            "p90": round(percentile(durations, 0.9), 3),
            "max": round(durations[-1], 3) if durations else 0,
        },
        "histogram": [[label, count] for label, count in histogram(durations)],
        "words": sum(len(r["normalised"].split()) for r in kept),
        "sample_rate": SAMPLE_RATE,
        "format": "wavs/<id>.wav mono 16-bit PCM; metadata.csv id|raw text|normalised text",
    }
    summary.update(extra_summary)
    with open(stage.path("summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    return summary


def db(x):
    import math
    return 20.0 * math.log10(x) if x > 0 else -120.0


def print_summary(name, out_dir, summary):
    s = summary
    print("%s: kept %d prompts, %.1f minutes (%d words) in %s" % (
        name, s["kept"], s["kept_minutes"], s["words"], out_dir))
    d = s["seconds"]
    print("  durations: min %.2f s, p10 %.2f s, median %.2f s, p90 %.2f s, max %.2f s" % (
        d["min"], d["p10"], d["median"], d["p90"], d["max"]))
    print("  histogram: " + ", ".join("%s: %d" % (label, n) for label, n in s["histogram"]))
    if s["dropped"]:
        print("  dropped %d: %s" % (s["dropped"], "; ".join(
            "%s: %d" % (reason, n) for reason, n in s["dropped_by_reason"].items())))
    else:
        print("  dropped 0")
