"""Unit tests of the Praat judge: parsing praat_voice.praat's lines, pooling utterances into a
system's figures, the pitch-shift arithmetic, and real Praat on synthetic sounds (skipped when
praat is not installed). /usr/bin/python3 -m unittest discover -s tools/quality"""

import math
import os
import random
import statistics
import struct
import sys
import tempfile
import unittest
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harmonicity_pitch  # noqa: E402
import praat  # noqa: E402
from praat import Measure, Pool  # noqa: E402


def measure(f0, hnr_values=()):
    hnr_values = list(hnr_values)
    return Measure(len(hnr_values), sum(hnr_values), len(hnr_values) + 3, len(f0) + 5, list(f0))


def write_wav(path, samples, rate=16000):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", max(-32767, min(32767, int(round(s)))))
                               for s in samples))


def harmonic_tone(f0, seconds, rate=16000):
    """Five harmonics of f0, falling in amplitude (a buzz rather than a sine)."""
    n = int(seconds * rate)
    return [6000 * sum(math.sin(2 * math.pi * f0 * k * t / rate) / k for k in range(1, 6))
            for t in range(n)]


class ParseTest(unittest.TestCase):
    def test_file_line(self):
        path, m = praat.parse_line("file\t/w/a b.wav\t3\t45.5000\t10\t9\t200.000 201.500 \n")
        self.assertEqual(path, "/w/a b.wav")
        self.assertEqual((m.hnr_voiced, m.hnr_frames, m.pitch_frames), (3, 10, 9))
        self.assertAlmostEqual(m.hnr, 45.5 / 3)
        self.assertEqual(m.f0, [200.0, 201.5])

    def test_unvoiced_file_line(self):
        path, m = praat.parse_line("file\t/w/n.wav\t0\t0.0000\t98\t97\t")
        self.assertIsNone(m.hnr)
        self.assertEqual(m.f0, [])
        self.assertIsNone(m.f0_median)
        self.assertIsNone(m.f0_sd_semitones)
        path, m = praat.parse_line("file\t/w/n.wav\t0\t0.0000\t98\t97")   # no trailing tab
        self.assertEqual(m.f0, [])

    def test_short_and_other_lines(self):
        self.assertEqual(praat.parse_line("short\t/w/s.wav\t0.0100"),
                         ("/w/s.wav", "too short for Praat's pitch analysis (0.0100 s)"))
        self.assertIsNone(praat.parse_line("Warning: something"))
        self.assertIsNone(praat.parse_line("file\t/w/x.wav\tnot-a-number\t1\t1\t1\t"))
        out = praat.parse_output("noise\nfile\t/a.wav\t1\t10\t2\t2\t100 \nshort\t/b.wav\t0.05\n")
        self.assertEqual(set(out), {"/a.wav", "/b.wav"})
        self.assertIsInstance(out["/a.wav"], Measure)
        self.assertIsInstance(out["/b.wav"], str)


class PoolTest(unittest.TestCase):
    def test_semitones(self):
        self.assertAlmostEqual(praat.semitones(100), 0.0)
        self.assertAlmostEqual(praat.semitones(200), 12.0)
        self.assertAlmostEqual(praat.semitones(50), -12.0)

    def test_hnr_is_weighted_by_voiced_frames(self):
        a = measure([100], [10.0] * 3)     # 3 frames at 10 dB
        b = measure([100], [20.0] * 1)     # 1 frame at 20 dB
        pool = Pool([a, b])
        self.assertEqual(pool.hnr_voiced, 4)
        self.assertAlmostEqual(pool.hnr, 12.5)            # not the mean of means, 15
        self.assertIsNone(Pool([measure([])]).hnr)

    def test_pooled_sd_counts_every_voiced_frame(self):
        a = measure([100, 200, 100])
        b = measure([400, 400])
        st = [praat.semitones(f) for f in [100, 200, 100, 400, 400]]
        pool = Pool([a, b])
        self.assertEqual(pool.f0_frames, 5)
        self.assertAlmostEqual(pool.f0_sd_semitones, statistics.stdev(st))
        self.assertAlmostEqual(pool.f0_median, 200)
        self.assertAlmostEqual(pool.f0_mean, 240)
        # per utterance: a's SD, and b's 0 (one pitch): the median of two is their mean
        self.assertAlmostEqual(a.f0_sd_semitones, statistics.stdev(st[:3]))
        self.assertAlmostEqual(b.f0_sd_semitones, 0.0)
        self.assertAlmostEqual(pool.f0_sd_semitones_median_per_utterance,
                               statistics.stdev(st[:3]) / 2)

    def test_sums_match_the_direct_sd_over_many_frames(self):
        rng = random.Random(1)
        utts = [measure([180 * 2 ** (rng.gauss(0, 4) / 12) for _ in range(rng.randint(0, 300))])
                for _ in range(50)]
        direct = statistics.stdev([praat.semitones(f) for m in utts for f in m.f0])
        self.assertAlmostEqual(Pool(utts).f0_sd_semitones, direct, places=9)

    def test_too_few_frames(self):
        self.assertIsNone(praat.sample_sd(1, 5.0, 25.0))
        self.assertIsNone(Pool([measure([150])]).f0_sd_semitones)
        self.assertIsNone(Pool([]).f0_median)
        self.assertEqual(Pool([]).utterances, 0)

    def test_summary_rounds_and_keeps_none(self):
        s = Pool([measure([100, 200], [10.0, 11.0])]).summary()
        self.assertEqual(s["utterances"], 1)
        self.assertEqual(s["hnr_db"], 10.5)
        self.assertEqual(s["f0_median_hz"], 150.0)
        self.assertIsNone(Pool([]).summary()["hnr_db"])


class PitchShiftTest(unittest.TestCase):
    def test_median_of_log_ratios(self):
        up4 = 2 ** (4 / 12)
        pairs = [(measure([200, 200]), measure([200 * up4] * 2)),       # +4
                 (measure([100]), measure([100 * 2 ** (3 / 12)])),      # +3
                 (measure([150]), measure([150 * 2 ** (5 / 12)])),      # +5
                 (measure([]), measure([300])),                         # plain unvoiced
                 (None, measure([300]))]                                # plain failed
        shift, shifts = praat.pitch_shift(pairs)
        self.assertAlmostEqual(shift, 4.0)
        self.assertAlmostEqual(shifts[1], 3.0)
        self.assertEqual(shifts[3:], [None, None])
        self.assertEqual(praat.pitch_shift([(None, None)]), (None, [None]))

    def test_verdict(self):
        check = harmonicity_pitch.PitchCheck(["1"], 0, [], [], shift=3.6)
        self.assertTrue(check.passed)
        check.shift = 0.02
        self.assertFalse(check.passed)
        self.assertIn("FAIL", harmonicity_pitch.pitch_line(
            harmonicity_pitch.PitchCheck(["1"], 0, [measure([200])], [measure([200])],
                                         shifts=[0.0], shift=0.0)))
        self.assertEqual(harmonicity_pitch.verdict(None), "not measured")
        failed = harmonicity_pitch.PitchCheck(["1", "2"], 0, [measure([200]), measure([])],
                                              [None, measure([210])], shifts=[None, None])
        self.assertFalse(failed.passed)   # it ran, and no sentence came out shifted
        line = harmonicity_pitch.pitch_line(failed)
        self.assertIn("FAIL", line)
        self.assertIn("1 rendering(s) with --pitch +4 failed", line)
        self.assertIn("1 sentence(s) had no voiced frame", line)
        self.assertIn("not run", harmonicity_pitch.pitch_line(None))


class SectionTest(unittest.TestCase):
    def test_section_and_json_without_held_out_prompts_or_pitch_check(self):
        from context import Context
        import sections
        ctx = Context(root="/", out_dir="/tmp", tts="tts", corpus="/c", limit=2, jobs=1,
                      bench_runs=0, seeds=[0, 1], command="test", voice_dir="/v/default")
        pool = Pool([measure([200, 210], [9.0, 10.0]), measure([190], [8.0])])
        dev_row = harmonicity_pitch.Row("tts", "tts, seeds 0–1 pooled", ["tts", "tts-seed1"],
                                        pool, {"tts": pool, "tts-seed1": Pool([])},
                                        {"tts": {"1": pool.measures[0], "2": pool.measures[1]},
                                         "tts-seed1": {}}, 2)
        targets = [harmonicity_pitch.Target("a target", "not measured in this run", None),
                   harmonicity_pitch.Target("another", "9 dB", True)]
        vm = harmonicity_pitch.VoiceMeasures([], [dev_row], None, targets, 1.5, 3, "Praat 6")
        md = "\n".join(sections.harmonicity_pitch_section(ctx, vm))
        self.assertIn("## Harmonicity and pitch (Praat)", md)
        self.assertIn("Held-out prompts: not scored", md)
        self.assertIn("| tts, seeds 0–1 pooled | 2 (2 not measured) | 3 | **9.00** | 3 |", md)
        self.assertIn("not run (`--pitch-sentences 0`)", md)
        self.assertIn("| a target | not measured in this run | **not measured** |", md)
        self.assertIn("| another | 9 dB | **PASS** |", md)
        doc = harmonicity_pitch.to_json(ctx, {"date": "d", "commit": "c"}, vm)
        self.assertIsNone(doc["pitch_shift"])
        self.assertEqual(doc["dev"]["tts"]["pooled"]["hnr_db"], 9.0)
        self.assertEqual(doc["dev"]["tts"]["utterances"]["tts"]["2"]["f0_median_hz"], 190.0)
        self.assertEqual([t["verdict"] for t in doc["targets"]], ["not measured", "PASS"])


@unittest.skipUnless(praat.available(), "praat is not installed")
class RealPraatTest(unittest.TestCase):
    def test_tone_noise_short_and_missing_files(self):
        with tempfile.TemporaryDirectory() as work:
            tone, noise, short = (os.path.join(work, n) for n in ["tone.wav", "noise.wav",
                                                                  "short.wav"])
            write_wav(tone, harmonic_tone(200.0, 1.0))
            rng = random.Random(0)
            write_wav(noise, [rng.gauss(0, 4000) for _ in range(16000)])
            write_wav(short, harmonic_tone(200.0, 0.02))
            missing = os.path.join(work, "missing.wav")
            got = praat.measure_files([tone, noise, short, missing], work, jobs=2)
        self.assertEqual(set(got), {tone, noise, short, missing})
        t, n = got[tone], got[noise]
        self.assertIsInstance(t, Measure)
        self.assertAlmostEqual(t.f0_median, 200.0, delta=2.0)
        self.assertGreater(t.f0_frames, 80)            # ~97 frames in 1 s, nearly all voiced
        self.assertGreater(t.hnr, 30.0)
        self.assertLess(t.f0_sd_semitones, 0.1)
        self.assertIsInstance(n, Measure)
        self.assertLess(n.f0_frames, 10)               # white noise: (almost) no pitch
        self.assertLess(n.hnr if n.hnr is not None else -200, 0.0)
        self.assertIn("too short", got[short])
        self.assertIn("Praat failed", got[missing])   # the batch with it was redone one by one


if __name__ == "__main__":
    unittest.main()
