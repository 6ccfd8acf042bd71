"""Scoring one utterance: its audio → 16 kHz mono → the recogniser → word errors.

Every system's output (our voice, flite, espeak-ng, the human recordings, copy-synthesis) goes
through the same conversion and the same recogniser, so that their word error rates compare.
"""

import concurrent.futures
import os
import threading
import time
import wave

import wer
from commands import describe_failure, log, run

PS_MODEL = "/usr/share/pocketsphinx/model/en-us"
PS_ARGS = ["-hmm", f"{PS_MODEL}/en-us", "-lm", f"{PS_MODEL}/en-us.lm.bin",
           "-dict", f"{PS_MODEL}/cmudict-en-us.dict", "-logfn", "/dev/null"]


def to_16k(src, dst):
    """16 kHz mono signed 16-bit wav with sox; returns an error string or None. No dither (-D):
    sox's default dither is random, and the recogniser's output changed with it between runs."""
    cmd = ["sox", "-V1", "-D", src, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", dst]
    rc, _, err = run(cmd)
    if rc != 0:
        return describe_failure("conversion to 16 kHz mono (sox)", cmd, rc, err)
    return None


def seconds_of(path):
    try:
        with wave.open(path, "rb") as w:
            return w.getnframes() / float(w.getframerate())
    except (OSError, wave.Error, EOFError):
        return None


def recognise(path):
    """(hypothesis text, error or None)."""
    cmd = ["pocketsphinx_continuous", "-infile", path] + PS_ARGS
    rc, out, err = run(cmd)
    if rc != 0:
        return "", describe_failure("recognition (pocketsphinx_continuous)", cmd, rc, err)
    # one line per stretch of speech that its voice-activity detector found
    return " ".join(line.strip() for line in out.splitlines() if line.strip()), None


class Item:
    """One utterance of one system: how it was made, what the recogniser heard, the errors."""

    def __init__(self, system, key, text, reference):
        self.system, self.key, self.text, self.reference = system, key, text, reference
        self.hypothesis = ""
        self.error = None
        self.seconds = None
        self.wav = None           # the 16 kHz file, kept in the work folder
        self.extra = {}           # e.g. vocode --report fields
        self.counts = None

    def finish(self):
        self.counts = wer.score(self.reference, "" if self.error else self.hypothesis)
        return self


def score_item(item, make, workdir):
    """make(raw_path) -> error or None writes the system's audio; then 16 kHz, then recognise."""
    stem = os.path.join(workdir, f"{item.system}-{item.key}")
    raw, wav16 = stem + ".raw.wav", stem + ".wav"
    item.error = make(raw)
    if item.error is None and not os.path.exists(raw):
        item.error = f"synthesis wrote no file {raw}"
    if item.error is None:
        item.error = to_16k(raw, wav16)
    if item.error is None:
        item.wav = wav16
        item.seconds = seconds_of(wav16)
        item.hypothesis, item.error = recognise(wav16)
    return item.finish()


def run_parallel(jobs, tasks, label):
    """tasks: list of zero-argument callables returning an Item. Keeps the order."""
    results = [None] * len(tasks)
    done = [0]
    lock = threading.Lock()
    started = time.monotonic()

    def one(i):
        results[i] = tasks[i]()
        with lock:
            done[0] += 1
            item = results[i]
            if item.error:
                log(f"{label}: FAILED {item.system} {item.key}: {item.error}")
            if done[0] == len(tasks) or done[0] % 20 == 0:
                log(f"{label}: {done[0]}/{len(tasks)} ({time.monotonic() - started:.0f} s)")

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, range(len(tasks))))
    return results


def total(items):
    """The word-error counts of several utterances, summed."""
    c = wer.Counts()
    for item in items:
        c += item.counts
    return c
