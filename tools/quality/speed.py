"""The speed figure: `tts bench pipeline` on one thread, a few runs one after another, each with
the load average before it (another process on the machine slows it, and the report says so)."""

import json
import os
import statistics
import time
from dataclasses import dataclass

from commands import describe_failure, log, run, tail
from environment import loadavg


@dataclass
class Speed:
    runs: list       # tts bench pipeline's JSON, one per run, with "load_before" added
    seconds: float   # how long the measuring took

    @property
    def median_real_time_factor(self):
        return statistics.median(b["real_time_factor"] for b in self.runs)

    @property
    def median_time_to_first_audio(self):
        return statistics.median(b["time_to_first_audio_seconds"] for b in self.runs)


def bench_command(tts, voice_dir, text=None):
    return ([tts, "bench", "pipeline", "--voice", voice_dir, "--threads", "1"]
            + (["--text", text] if text else []))


# One thread for the vocoder's maths too, so the figure is that of one core.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def bench_once(cmd):
    """(tts bench pipeline's JSON with "load_before" added, None) or (None, the failure)."""
    load = loadavg()
    rc, out, err = run(cmd, env=dict(os.environ, **ONE_THREAD))
    if rc != 0:
        return None, describe_failure("tts bench pipeline", cmd, rc, err)
    try:
        result = json.loads([l for l in out.splitlines() if l.strip().startswith("{")][-1])
    except (IndexError, json.JSONDecodeError):
        return None, f"tts bench pipeline printed no JSON: {tail(out + err)}"
    result["load_before"] = load
    return result, None


def measure(ctx):
    """Stops at the first run that fails (a failure in ctx.failures)."""
    runs = []
    t0 = time.monotonic()
    cmd = bench_command(ctx.tts, ctx.voice_dir)
    for _ in range(max(0, ctx.bench_runs)):
        result, failure = bench_once(cmd)
        if failure:
            ctx.failures.append(("speed", failure))
            break
        runs.append(result)
    seconds = time.monotonic() - t0
    log(f"speed: {len(runs)} run(s) of tts bench pipeline ({seconds:.0f} s)")
    return Speed(runs, seconds)
