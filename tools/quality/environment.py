"""What the report says about where it ran: the tools it needs (checked before the long part), their
package versions, the machine, its load and the git commit. A figure means little without these."""

import datetime
import os
import platform
import shutil

from commands import Fatal, run, tail
from scoring import PS_ARGS
from systems import FLITE_VOICES

PACKAGES = ["pocketsphinx", "pocketsphinx-en-us", "flite", "espeak-ng", "sox", "praat"]


def check_tts(tts):
    if not (os.path.isfile(tts) and os.access(tts, os.X_OK)):
        raise Fatal(f"tts command {tts} not found or not executable (build it, or pass --tts PATH)")


def check_tools(tts):
    """Stops the run (Fatal) when a program or model file it needs is missing."""
    check_tts(tts)
    for program in ["pocketsphinx_continuous", "flite", "espeak-ng", "sox", "praat"]:
        if shutil.which(program) is None:
            raise Fatal(f"{program} is not installed (scripts/install-deps quality)")
    for path in PS_ARGS[1:6:2]:   # the values of -hmm, -lm and -dict
        if not os.path.exists(path):
            raise Fatal(f"pocketsphinx model file {path} is missing (package pocketsphinx-en-us)")
    rc, out, err = run(["flite", "-lv"])
    listed = (out + err).split()
    for _, voice in FLITE_VOICES:
        if voice not in listed:
            raise Fatal(f"flite has no {voice} voice (flite -lv: {tail(out + err, 1)})")


def package_versions():
    versions = {}
    for p in PACKAGES:
        rc, out, _ = run(["dpkg-query", "-W", "-f=${Version}", p])
        versions[p] = out.strip() if rc == 0 and out.strip() else "not installed"
    return versions


def machine():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": model}


def loadavg():
    try:
        return os.getloadavg()
    except OSError:
        return None


def git_commit(root):
    rc, out, _ = run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"])
    if rc != 0:
        return "unknown (not a git checkout)"
    commit = out.strip()
    rc, out, _ = run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"])
    if rc == 0 and out.strip():
        commit += " with uncommitted changes to tracked files"
    return commit


def describe(root, tts):
    """The facts of the report's header, taken when the run starts."""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_commit(root),
        "machine": machine(),
        "load_start": loadavg(),
        "packages": package_versions(),
        "tts_version": " ; ".join(run([tts, "--version"])[1].strip().splitlines()),
    }
