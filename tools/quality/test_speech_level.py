"""Tests of the active speech level (P.56) and the levelling of the judges' files."""

import math
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import speech_level
from scoring import SPEECH_LEVEL_DBOV, to_16k

FS = 16000


def tone(seconds, amplitude, hz=200.0):
    t = np.arange(int(seconds * FS)) / FS
    return amplitude * np.sin(2 * np.pi * hz * t)


def speechlike(seconds, seed=1):
    """Noise at a syllable rate: bursts of 150 ms under a raised-cosine envelope, and gaps."""
    rng = np.random.default_rng(seed)
    n = int(seconds * FS)
    env = np.maximum(0.0, np.sin(2 * np.pi * 3.0 * np.arange(n) / FS)) ** 2
    return 0.2 * env * rng.standard_normal(n)


class ActiveLevel(unittest.TestCase):
    def test_a_steady_tone_is_its_power(self):
        for amplitude in (0.5, 0.1, 0.01):
            expected = 20 * math.log10(amplitude / math.sqrt(2))
            level = speech_level.active_level(tone(2.0, amplitude), FS)
            self.assertAlmostEqual(level.level_dbov, expected, delta=0.1)
            self.assertGreater(level.activity, 0.95)

    def test_pauses_do_not_lower_the_level(self):
        burst = tone(2.0, 0.1)
        short = np.concatenate([np.zeros(FS // 2), burst, np.zeros(FS // 2)])
        long = np.concatenate([np.zeros(3 * FS), burst, np.zeros(5 * FS)])
        a, b = speech_level.active_level(short, FS), speech_level.active_level(long, FS)
        # the hangover and the envelope's tail count a little after the burst: within 1 dB
        self.assertAlmostEqual(a.level_dbov, 20 * math.log10(0.1 / math.sqrt(2)), delta=0.75)
        self.assertAlmostEqual(a.level_dbov, b.level_dbov, delta=0.01)
        self.assertAlmostEqual(b.activity, a.activity * len(short) / len(long), delta=0.005)
        # a plain RMS over the whole file would have dropped by 10*log10(10/2) = 7 dB
        self.assertGreater(b.level_dbov, 10 * math.log10(np.mean(long ** 2)) + 6)

    def test_a_gain_moves_the_level_by_as_much(self):
        x = speechlike(3.0)
        base = speech_level.active_level(x, FS).level_dbov
        for db in (-20.0, -6.0, 6.0):
            moved = speech_level.active_level(x * 10 ** (db / 20), FS).level_dbov
            self.assertAlmostEqual(moved - base, db, delta=0.05)

    def test_silence_has_no_level(self):
        self.assertIsNone(speech_level.active_level(np.zeros(FS), FS).level_dbov)
        self.assertIsNone(speech_level.active_level(np.zeros(0), FS).level_dbov)


class Levelling(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_bring_to_level_hits_the_target_and_reports_the_old_level(self):
        src, dst = os.path.join(self.dir, "a.wav"), os.path.join(self.dir, "b.wav")
        speech_level.write_wav(src, speechlike(2.0), FS)
        before = speech_level.active_level(*speech_level.read_wav(src)).level_dbov
        level, clipped = speech_level.bring_to_level(src, dst, -26.0)
        self.assertAlmostEqual(level, before, delta=1e-9)
        self.assertEqual(clipped, 0)
        after = speech_level.active_level(*speech_level.read_wav(dst)).level_dbov
        self.assertAlmostEqual(after, -26.0, delta=0.1)

    def test_a_file_that_is_not_16_bit_mono_is_named(self):
        path = os.path.join(self.dir, "stereo.wav")
        import wave
        with wave.open(path, "wb") as w:
            w.setnchannels(2)
            w.setsampwidth(2)
            w.setframerate(FS)
            w.writeframes(b"\0" * 400)
        with self.assertRaisesRegex(ValueError, "stereo.wav.*2 channel"):
            speech_level.read_wav(path)

    @unittest.skipIf(shutil.which("sox") is None, "sox is not installed")
    def test_to_16k_resamples_and_levels_and_keeps_the_own_level_file(self):
        src = os.path.join(self.dir, "in.wav")
        subprocess.run(["sox", "-n", "-r", "22050", "-b", "16", src, "synth", "1.5", "sine", "220",
                        "gain", "-12"], check=True)
        dst, native = os.path.join(self.dir, "out.wav"), os.path.join(self.dir, "own.wav")
        error, level = to_16k(src, dst, native)
        self.assertIsNone(error)
        self.assertAlmostEqual(level, -15.0, delta=0.2)
        x, fs = speech_level.read_wav(dst)
        self.assertEqual(fs, 16000)
        self.assertAlmostEqual(speech_level.active_level(x, fs).level_dbov, SPEECH_LEVEL_DBOV,
                               delta=0.1)
        own, _ = speech_level.read_wav(native)
        self.assertAlmostEqual(speech_level.active_level(own, fs).level_dbov, -15.0, delta=0.2)
        self.assertEqual(sorted(os.listdir(self.dir)), ["in.wav", "out.wav", "own.wav"])
        # without `native`, nothing but the output is left behind
        os.remove(dst)
        self.assertIsNone(to_16k(src, dst)[0])
        self.assertEqual(sorted(os.listdir(self.dir)), ["in.wav", "out.wav", "own.wav"])


if __name__ == "__main__":
    unittest.main()
