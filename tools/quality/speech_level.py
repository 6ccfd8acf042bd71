"""Active speech level (ITU-T P.56, method B) and bringing a wav to a given level.

Why the report levels its audio: pocketsphinx's word error rate moves with the level of what it
hears, by more than the differences between systems. The same audio of the 40 development
sentences, brought to one active level by a plain gain (docs/acoustic-model.md): flite
kal16 scored 27.6% at -32 dBov, 28.5% at -26 and 37.9% at -20; our voice (three seeds pooled)
31.9%, 31.0% and 33.9%; flite rms 25.8%, 27.6% and 26.1%. At their own levels (kal16 -28 dBov,
rms -21, ours -19, slt -15) the systems were compared partly on loudness. Listening tests level
their stimuli to -26 dBov (ITU-T P.800), measured as P.56 does; the report does the same.

P.56's active level is the speech's energy per active sample, where a sample is active when the
signal's envelope (|x| smoothed twice with a 30 ms time constant, plus 200 ms of hangover) is
above a threshold that lies 15.9 dB below the level so measured: pauses do not count, so a
sentence with long silences gets the level of its speech. 0 dBov is the power of a full-scale
square wave (a float signal of RMS 1); a full-scale sine is -3.01 dBov.
"""

import math
import wave

import numpy as np

TIME_CONSTANT_S = 0.03
HANGOVER_S = 0.2
MARGIN_DB = 15.9
# Thresholds: full scale down to 2^-15 (one 16-bit step) in 6 dB steps, as P.56's reference
# implementation (ITU-T G.191, sv-p56) for 16-bit audio.
THRESHOLDS = [2.0 ** -k for k in range(15, -1, -1)]


class Level:
    """level_dbov: the active speech level (None for silence); activity: the active fraction."""

    def __init__(self, level_dbov, activity):
        self.level_dbov, self.activity = level_dbov, activity


def _envelope(x, fs):
    """|x| through two one-pole low-passes (P.56's p and q)."""
    g = math.exp(-1.0 / (fs * TIME_CONSTANT_S))
    p = q = 0.0
    out = np.empty(len(x))
    for i, v in enumerate(np.abs(x).tolist()):
        p = g * p + (1.0 - g) * v
        q = g * q + (1.0 - g) * p
        out[i] = q
    return out


def _active_counts(q, hangover):
    """Samples counted active for each threshold: above it, or within `hangover` samples after
    the last sample that was."""
    idx = np.arange(len(q))
    counts = []
    for c in THRESHOLDS:
        last_above = np.maximum.accumulate(np.where(q >= c, idx, -hangover - 1))
        counts.append(int(np.count_nonzero(idx - last_above <= hangover)))
    return counts


def active_level(x, fs):
    """P.56 method B on float samples (full scale 1.0) at fs Hz: a Level."""
    x = np.asarray(x, dtype=np.float64)
    energy = float(np.dot(x, x))
    if len(x) == 0 or energy == 0.0:
        return Level(None, 0.0)
    counts = _active_counts(_envelope(x, fs), int(math.ceil(HANGOVER_S * fs)))
    # A_j: the level over the samples active at threshold c_j; the answer is where A_j lies
    # MARGIN_DB above c_j, interpolated between the thresholds around it.
    previous = None
    for c, a in zip(THRESHOLDS, counts):
        if a == 0:
            break
        level = 10.0 * math.log10(energy / a)
        excess = level - 20.0 * math.log10(c)
        if excess <= MARGIN_DB:
            if previous is None:
                return Level(level, a / len(x))
            p_level, p_excess, p_count = previous
            t = (p_excess - MARGIN_DB) / (p_excess - excess)
            return Level(p_level + t * (level - p_level),
                         (p_count + t * (a - p_count)) / len(x))
        previous = (level, excess, a)
    # Nothing quiet enough to stop on: every threshold leaves the margin (a pure tone near full
    # scale); the last level measured is the best estimate.
    return Level(previous[0], previous[2] / len(x)) if previous else Level(None, 0.0)


def read_wav(path):
    """(float samples of a 16-bit mono wav, sample rate)."""
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise ValueError(f"{path}: expected 16-bit mono, got {8 * w.getsampwidth()}-bit "
                             f"{w.getnchannels()} channel(s)")
        data = w.readframes(w.getnframes())
        return np.frombuffer(data, dtype="<i2").astype(np.float64) / 32768.0, w.getframerate()


def write_wav(path, x, fs):
    y = np.clip(np.round(np.asarray(x) * 32768.0), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(fs)
        w.writeframes(y.tobytes())


def bring_to_level(src, dst, target_dbov):
    """Writes src (16-bit mono wav) to dst scaled so that its active level is target_dbov.
    Returns (the level it had in dBov or None for silence, samples clipped). Silence is copied
    unchanged."""
    x, fs = read_wav(src)
    level = active_level(x, fs).level_dbov
    gain = 1.0 if level is None else 10.0 ** ((target_dbov - level) / 20.0)
    y = x * gain
    clipped = int(np.count_nonzero(np.abs(y) > 32767.0 / 32768.0))
    write_wav(dst, y, fs)
    return level, clipped
