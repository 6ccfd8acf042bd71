"""Scoring one utterance: its audio → 16 kHz mono → the recogniser → word errors.

Every system's output (our voice, flite, espeak-ng, the human recordings, copy-synthesis) goes
through the same conversion and the same recogniser, so that their word error rates compare.
"""

import concurrent.futures
import os
import threading
import time
import wave

import speech_level
import wer
from commands import describe_failure, log, run

PS_MODEL = "/usr/share/pocketsphinx/model/en-us"
PS_ARGS = ["-hmm", f"{PS_MODEL}/en-us", "-lm", f"{PS_MODEL}/en-us.lm.bin",
           "-dict", f"{PS_MODEL}/cmudict-en-us.dict", "-logfn", "/dev/null"]


# Every file the judges hear has this active speech level (ITU-T P.56): the recogniser's WER
# moves with the level, so each system speaking at its own would compare loudness as much as
# speech (speech_level.py says by how much).
SPEECH_LEVEL_DBOV = -26.0


def to_16k(src, dst, native=None):
    """16 kHz mono signed 16-bit wav with sox, then brought to SPEECH_LEVEL_DBOV; the file before
    that gain is kept at `native` when given. Returns (error string or None, the file's own
    active level in dBov or None). No dither (-D): sox's default dither is random, and the
    recogniser's output changed with it between runs."""
    unlevelled = native or dst + ".unlevelled.wav"
    cmd = ["sox", "-V1", "-D", src, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer",
           unlevelled]
    rc, _, err = run(cmd)
    if rc != 0:
        return describe_failure("conversion to 16 kHz mono (sox)", cmd, rc, err), None
    try:
        level, clipped = speech_level.bring_to_level(unlevelled, dst, SPEECH_LEVEL_DBOV)
        if clipped:
            log(f"{dst}: {clipped} sample(s) clipped at {SPEECH_LEVEL_DBOV:g} dBov")
    except (OSError, ValueError, EOFError) as e:
        return f"bringing {unlevelled} to {SPEECH_LEVEL_DBOV:g} dBov: {e}", None
    finally:
        if native is None and os.path.exists(unlevelled):
            os.remove(unlevelled)
    return None, level


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
        self.level_dbov = None    # the system's own active speech level, before levelling
        self.native_hypothesis = None   # what the recogniser heard at that level, if asked
        self.native_counts = None

    def finish(self):
        self.counts = wer.score(self.reference, "" if self.error else self.hypothesis)
        if self.native_hypothesis is not None:
            self.native_counts = wer.score(self.reference,
                                           "" if self.error else self.native_hypothesis)
        return self


def score_item(item, make, workdir, native_too=False, recognise_speech=True):
    """make(raw_path) -> error or None writes the system's audio; then 16 kHz at the common level,
    then recognise. native_too: the recogniser also hears the file at the system's own level.
    recognise_speech=False: no recogniser (a language it does not know); Praat alone judges."""
    stem = os.path.join(workdir, f"{item.system}-{item.key}")
    raw, wav16, native = stem + ".raw.wav", stem + ".wav", stem + ".own-level.wav"
    item.error = make(raw)
    if item.error is None and not os.path.exists(raw):
        item.error = f"synthesis wrote no file {raw}"
    if item.error is None:
        item.error, item.level_dbov = to_16k(raw, wav16, native)
    if item.error is None:
        item.wav = wav16
        item.seconds = seconds_of(wav16)
        if not recognise_speech:
            return item.finish()
        item.hypothesis, item.error = recognise(wav16)
        if item.error is None and native_too:
            item.native_hypothesis, item.error = recognise(native)
    return item.finish()


def progress_line(label, done, count, elapsed):
    """"LABEL: 40/120 (95 s, about 3.2 minutes left)": the minutes left assume the utterances still
    to do take as long, on average, as those done so far."""
    line = f"{label}: {done}/{count} ({elapsed:.0f} s"
    if 0 < done < count:
        line += f", about {elapsed / done * (count - done) / 60:.1f} minutes left"
    return line + ")"


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
                log(progress_line(label, done[0], len(tasks), time.monotonic() - started))

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, range(len(tasks))))
    return results


def total(items):
    """The word-error counts of several utterances, summed."""
    c = wer.Counts()
    for item in items:
        c += item.counts
    return c
