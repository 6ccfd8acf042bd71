#!/usr/bin/python3
"""Regenerates the golden log-mel fixtures in tests/data/mel_fixture_* (used by tests/mel_test.cpp).

The maths is written here again, independently of kernels/dsp, in numpy and float64, following
librosa.filters.mel(htk=False, norm="slaney") and torch.stft(center=True, pad_mode="reflect"):

  - periodic Hann window of win_length, zero-padded centred in n_fft ((n_fft - win)//2 on the left);
  - the signal reflect-padded by n_fft//2 on both sides with numpy.pad(mode="reflect"), which
    reflects repeatedly when the signal is shorter than the pad (and repeats a single sample);
  - frame f = padded[f*hop : f*hop + n_fft] * window, |rfft|;
  - Slaney mel filterbank with area normalisation; natural log of max(mel, floor).

Run with Debian's python3-numpy:  /usr/bin/python3 scripts/make-mel-fixture.py
The .npy fixtures match .gitignore's *.npy, so add them with `git add -f`.
The configuration is deliberately small and awkward (odd win_length, fmin > 0, fmax < Nyquist) so
that the fixtures pin the conventions, not just the common case.
"""
import json
import os

import numpy as np

CONFIG = dict(sample_rate=16000, n_fft=64, win_length=45, hop_length=16, n_mels=10,
              fmin=55.0, fmax=7600.0, log_floor=1e-5, center=True)


def hz_to_mel(f):
    f = np.asarray(f, dtype=np.float64)
    lin = f / (200.0 / 3.0)
    log = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(f >= 1000.0, log, lin)


def mel_to_hz(m):
    m = np.asarray(m, dtype=np.float64)
    lin = m * (200.0 / 3.0)
    log = 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0))
    return np.where(m >= 15.0, log, lin)


def filterbank(c):
    freqs = np.arange(c["n_fft"] // 2 + 1) * c["sample_rate"] / c["n_fft"]
    edges = mel_to_hz(np.linspace(hz_to_mel(c["fmin"]), hz_to_mel(c["fmax"]), c["n_mels"] + 2))
    fb = np.zeros((c["n_mels"], freqs.size))
    for m in range(c["n_mels"]):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        tri = np.maximum(0.0, np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)))
        fb[m] = tri * 2.0 / (hi - lo)
        assert fb[m].any(), "empty mel channel"
    return fb


def log_mel(x, c):
    n_fft, win, hop = c["n_fft"], c["win_length"], c["hop_length"]
    k = np.arange(win)
    window = np.zeros(n_fft)
    left = (n_fft - win) // 2
    window[left:left + win] = 0.5 - 0.5 * np.cos(2.0 * np.pi * k / win)
    padded = np.pad(x.astype(np.float64), n_fft // 2, mode="reflect")
    frames = 1 + (padded.size - n_fft) // hop
    assert frames == 1 + x.size // hop
    spec = np.stack([np.abs(np.fft.rfft(padded[f * hop:f * hop + n_fft] * window))
                     for f in range(frames)])  # frames x bins
    mel = spec @ filterbank(c).T  # frames x n_mels
    return np.log(np.maximum(mel, c["log_floor"]))


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
    sr = CONFIG["sample_rate"]
    t = np.arange(203) / sr
    rng = np.random.RandomState(1234)
    x = 0.6 * np.sin(2 * np.pi * 440 * t + 0.3) + 0.25 * np.sin(2 * np.pi * 3150 * t)
    x += 0.05 * rng.standard_normal(t.size)
    x[100] += 0.8  # a click
    x = x.astype(np.float32)  # the C++ side reads exactly these float32 samples
    np.save(os.path.join(out, "mel_fixture_input.npy"), x)
    np.save(os.path.join(out, "mel_fixture_expected.npy"), log_mel(x, CONFIG).astype(np.float32))
    # Shorter than the n_fft/2 = 32 pad: repeated reflection; and a single sample.
    np.save(os.path.join(out, "mel_fixture_short_expected.npy"),
            log_mel(x[:21], CONFIG).astype(np.float32))
    np.save(os.path.join(out, "mel_fixture_one_expected.npy"),
            log_mel(x[:1], CONFIG).astype(np.float32))
    np.save(os.path.join(out, "mel_fixture_filterbank.npy"), filterbank(CONFIG).astype(np.float32))
    with open(os.path.join(out, "mel_fixture_config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
