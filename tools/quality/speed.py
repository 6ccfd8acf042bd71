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


def bench_command(tts, voice_dir):
    return [tts, "bench", "pipeline", "--voice", voice_dir, "--threads", "1"]


def measure(ctx):
    """Stops at the first run that fails (a failure in ctx.failures)."""
    runs = []
    t0 = time.monotonic()
    # One thread for the vocoder's maths too, so the figure is that of one core.
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    cmd = bench_command(ctx.tts, ctx.voice_dir)
    for _ in range(max(0, ctx.bench_runs)):
        load = loadavg()
        rc, out, err = run(cmd, env=env)
        if rc != 0:
            ctx.failures.append(("speed", describe_failure("tts bench pipeline", cmd, rc, err)))
            break
        try:
            result = json.loads([l for l in out.splitlines() if l.strip().startswith("{")][-1])
        except (IndexError, json.JSONDecodeError):
            ctx.failures.append(("speed", f"tts bench pipeline printed no JSON: {tail(out + err)}"))
            break
        result["load_before"] = load
        runs.append(result)
    seconds = time.monotonic() - t0
    log(f"speed: {len(runs)} run(s) of tts bench pipeline ({seconds:.0f} s)")
    return Speed(runs, seconds)
