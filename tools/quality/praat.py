"""Praat as a phonetics judge: harmonicity (HNR) and pitch (F0) of wav files, and how the figures
of many utterances pool into one system's.

praat_voice.praat does the measuring, one Praat process per batch of files (Praat starts in about
0.2 s and measures a second of speech in about 0.05 s, so one process per file would spend most of
its time starting). This module runs it, parses its lines and does the arithmetic:

- HNR: Praat's To Harmonicity (cc): 0.01, 75, 0.1, 1.0; an utterance's HNR is the mean dB over its
  frames above -200 dB (Praat's value for a frame without periodicity); a system's is the mean over
  all its utterances' such frames (each utterance weighted by its voiced frames).
- F0: To Pitch: 0.01, 75, 500; the voiced frames' F0, in Hz and in semitones re 100 Hz
  (12·log2(F0/100)). A system's F0 standard deviation pools all its voiced frames (so it counts
  the differences between utterances as well as the melody within each); its median F0 is the
  median of all those frames.
"""

import concurrent.futures
import math
import os
import shutil
import statistics
from dataclasses import dataclass, field

from commands import describe_failure, run

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "praat_voice.praat")
HNR_ARGS = "To Harmonicity (cc): 0.01, 75, 0.1, 1.0"
PITCH_ARGS = "To Pitch: 0.01, 75, 500"
UNVOICED_HNR = -200.0   # Praat's harmonicity value for a frame without periodicity


def semitones(hz):
    """Semitones re 100 Hz."""
    return 12.0 * math.log2(hz / 100.0)


def sample_sd(n, total, total_sq):
    """The standard deviation (n - 1 in the denominator) from a count, sum and sum of squares; None
    below two values."""
    if n < 2:
        return None
    var = (total_sq - total * total / n) / (n - 1)
    return math.sqrt(max(0.0, var))


@dataclass
class Measure:
    """One utterance as Praat measured it."""
    hnr_voiced: int           # harmonicity frames above -200 dB
    hnr_sum: float            # the sum of their dB values
    hnr_frames: int           # all harmonicity frames
    pitch_frames: int         # all pitch frames
    f0: list = field(default_factory=list)   # Hz of each voiced pitch frame, in time order

    @property
    def hnr(self):
        return self.hnr_sum / self.hnr_voiced if self.hnr_voiced else None

    @property
    def f0_frames(self):
        return len(self.f0)

    def semitone_sums(self):
        """(count, sum of semitones re 100 Hz, sum of their squares): what pools."""
        st = [semitones(f) for f in self.f0]
        return len(st), sum(st), sum(s * s for s in st)

    @property
    def f0_mean(self):
        return statistics.fmean(self.f0) if self.f0 else None

    @property
    def f0_median(self):
        return statistics.median(self.f0) if self.f0 else None

    @property
    def f0_sd_semitones(self):
        return sample_sd(*self.semitone_sums())

    def summary(self):
        """The utterance's figures, for the JSON."""
        return {"hnr_db": rounded(self.hnr, 3), "hnr_voiced_frames": self.hnr_voiced,
                "hnr_frames": self.hnr_frames, "f0_voiced_frames": self.f0_frames,
                "pitch_frames": self.pitch_frames, "f0_mean_hz": rounded(self.f0_mean, 2),
                "f0_median_hz": rounded(self.f0_median, 2),
                "f0_sd_semitones": rounded(self.f0_sd_semitones, 3)}


def rounded(x, digits):
    return None if x is None else round(x, digits)


def parse_line(line):
    """(path, Measure) from a `file` line, (path, error) from a `short` line, None otherwise."""
    fields = line.rstrip("\r\n").split("\t")
    if fields[0] == "short" and len(fields) >= 3:
        return fields[1], f"too short for Praat's pitch analysis ({fields[2]} s)"
    if fields[0] != "file" or len(fields) < 6:
        return None
    try:
        f0 = [float(x) for x in (fields[6].split() if len(fields) > 6 else [])]
        return fields[1], Measure(int(fields[2]), float(fields[3]), int(fields[4]),
                                  int(fields[5]), f0)
    except ValueError:
        return None


def parse_output(text):
    """{path: Measure or error string} from praat_voice.praat's stdout."""
    out = {}
    for line in text.splitlines():
        parsed = parse_line(line)
        if parsed:
            out[parsed[0]] = parsed[1]
    return out


def available():
    return shutil.which("praat") is not None


def version():
    rc, out, err = run(["praat", "--version"], timeout=60)
    return (out or err).strip().splitlines()[0] if rc == 0 and (out or err).strip() else None


def measure_batch(paths, list_file):
    """Runs Praat once on `paths`: ({path: Measure or error}, error of the run or None)."""
    with open(list_file, "w", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in paths))
    cmd = ["praat", "--run", SCRIPT, list_file]
    rc, out, err = run(cmd, timeout=120 + 10 * len(paths))
    results = parse_output(out)
    return results, (None if rc == 0 else describe_failure("Praat", cmd, rc, err))


def measure_files(paths, work, jobs):
    """{path: Measure or error string} for every path. The files go to min(jobs, files) Praat
    processes at once; when one stops early (a file it cannot read), the files of its batch that
    it did not reach are measured one by one, so that one bad file costs only itself."""
    paths = list(dict.fromkeys(paths))
    if not paths:
        return {}
    os.makedirs(work, exist_ok=True)
    n_batches = max(1, min(jobs, len(paths)))
    batches = [paths[i::n_batches] for i in range(n_batches)]
    results = {}

    def one(index, batch):
        got, error = measure_batch(batch, os.path.join(work, f"praat-list-{index}.txt"))
        missing = [p for p in batch if p not in got]
        if error is not None:
            for j, p in enumerate(missing):
                single, single_error = measure_batch([p], os.path.join(
                    work, f"praat-list-{index}-{j}.txt"))
                got[p] = single.get(p, single_error or "Praat printed no line for it")
        else:
            for p in missing:
                got[p] = "Praat printed no line for it"
        return got

    with concurrent.futures.ThreadPoolExecutor(max_workers=n_batches) as pool:
        for got in pool.map(lambda ib: one(*ib), enumerate(batches)):
            results.update(got)
    return results


@dataclass
class Pool:
    """A system's figures over its utterances (Measures)."""
    measures: list

    @property
    def utterances(self):
        return len(self.measures)

    @property
    def hnr_voiced(self):
        return sum(m.hnr_voiced for m in self.measures)

    @property
    def hnr(self):
        """Mean dB over all voiced harmonicity frames (utterances weighted by their frames)."""
        n = self.hnr_voiced
        return sum(m.hnr_sum for m in self.measures) / n if n else None

    @property
    def f0_frames(self):
        return sum(m.f0_frames for m in self.measures)

    def all_f0(self):
        return [f for m in self.measures for f in m.f0]

    @property
    def f0_mean(self):
        f0 = self.all_f0()
        return statistics.fmean(f0) if f0 else None

    @property
    def f0_median(self):
        f0 = self.all_f0()
        return statistics.median(f0) if f0 else None

    @property
    def f0_sd_semitones(self):
        """Over all voiced frames of all utterances, from the pooled count, sum and squares."""
        n = s = ss = 0
        for m in self.measures:
            mn, ms, mss = m.semitone_sums()
            n, s, ss = n + mn, s + ms, ss + mss
        return sample_sd(n, s, ss)

    @property
    def f0_sd_semitones_median_per_utterance(self):
        sds = [m.f0_sd_semitones for m in self.measures]
        sds = [x for x in sds if x is not None]
        return statistics.median(sds) if sds else None

    def summary(self):
        return {"utterances": self.utterances, "hnr_voiced_frames": self.hnr_voiced,
                "hnr_db": rounded(self.hnr, 3), "f0_voiced_frames": self.f0_frames,
                "f0_mean_hz": rounded(self.f0_mean, 2), "f0_median_hz": rounded(self.f0_median, 2),
                "f0_sd_semitones_pooled": rounded(self.f0_sd_semitones, 3),
                "f0_sd_semitones_median_per_utterance":
                    rounded(self.f0_sd_semitones_median_per_utterance, 3)}


def pitch_shift(pairs):
    """pairs: [(Measure at --pitch 0, Measure at --pitch +k)] of the same sentences. (the median
    over sentences of 12·log2(median F0 shifted / median F0 plain), [each sentence's shift or None
    where either rendering had no voiced frame])."""
    shifts = []
    for plain, shifted in pairs:
        a = plain.f0_median if plain is not None else None
        b = shifted.f0_median if shifted is not None else None
        shifts.append(12.0 * math.log2(b / a) if a and b else None)
    measured = [s for s in shifts if s is not None]
    return (statistics.median(measured) if measured else None), shifts
