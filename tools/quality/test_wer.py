"""Unit tests of the WER code: /usr/bin/python3 -m unittest discover -s tools/quality"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wer  # noqa: E402
import training_logs  # noqa: E402


class NormaliseTest(unittest.TestCase):
    def test_punctuation_case_and_markup(self):
        self.assertEqual(wer.normalise("It's easy, Dr. Smith!"), ["its", "easy", "dr", "smith"])
        self.assertEqual(wer.normalise("<s> the(2) [NOISE] dog <sil> </s>"), ["the", "dog"])
        self.assertEqual(wer.normalise("twenty-five o'clock"), ["twenty", "five", "oclock"])
        self.assertEqual(wer.normalise("   "), [])


class AlignTest(unittest.TestCase):
    def check(self, ref, hyp, s, d, i):
        c = wer.align(ref.split(), hyp.split())
        self.assertEqual((c.substitutions, c.deletions, c.insertions), (s, d, i), (ref, hyp))
        self.assertEqual(c.words, len(ref.split()))
        # the alignment reproduces both strings
        self.assertEqual([r for op, r, h in c.ops if r is not None], ref.split())
        self.assertEqual([h for op, r, h in c.ops if h is not None], hyp.split())

    def test_cases(self):
        self.check("a b c", "a b c", 0, 0, 0)
        self.check("a b c", "", 0, 3, 0)
        self.check("", "x y", 0, 0, 2)
        self.check("a b c", "a x c", 1, 0, 0)
        self.check("a b c d", "a c d", 0, 1, 0)
        self.check("a b", "a b c", 0, 0, 1)
        self.check("the bird canoe slid", "the bird can use slid", 1, 0, 1)

    def test_wer_and_sum(self):
        total = wer.Counts()
        total += wer.score("The cat sat.", "the cat")
        total += wer.score("A dog.", "a big dog")
        self.assertEqual((total.words, total.deletions, total.insertions), (5, 1, 1))
        self.assertAlmostEqual(total.wer, 0.4)
        self.assertIsNone(wer.Counts().wer)


class LogTest(unittest.TestCase):
    def test_vocoder_log(self):
        text = "\n".join([
            "corpus: 516 training and 27 validation files from data/asterisk",
            "step 950/200000  loss 2.9  12000 samples/s  ETA 76h",
            "step 1000/200000  loss 2.6603  val 4.1899  11578 samples/s  ETA 76h23m",
            "step 1050/200000  loss 2.8071  val 4.1899  11626 samples/s  ETA 76h03m",
            "step 2000/200000  loss 3.07  val 2.83  11626 samples/s  ETA 76h03m",
            "resumed from runs/x/checkpoint.json at step 1000",
            "step 1050/200000  loss 2.5  val 4.1899  11626 samples/s  ETA 76h03m",
        ])
        log = training_logs.parse(text)
        self.assertEqual(log.train_steps, [950, 1000, 1050, 2000])
        self.assertEqual(log.train_loss[2], 2.5)  # the resumed run replaces the earlier line
        self.assertEqual(log.val_steps, [1000, 2000])
        self.assertEqual(log.val_loss, [4.1899, 2.83])

    def test_acoustic_log(self):
        text = "\n".join([
            "step 450/30000  loss 1.2 (mel 0.4 prior 0.2 dur 0.6)  27000 frames/s  ETA 1600 s",
            "step 500/30000  loss 1.3594 (mel 0.3789 prior 0.1548 dur 0.8257)  val mel 0.8589"
            "  27248 frames/s  ETA 1568 s",
        ])
        log = training_logs.parse(text)
        self.assertEqual(log.train_steps, [450, 500])
        self.assertEqual(log.train_mel, [0.4, 0.3789])
        self.assertEqual(log.val_steps, [500])
        self.assertEqual(log.val_loss, [0.8589])
        self.assertEqual(log.total_steps, 30000)


if __name__ == "__main__":
    unittest.main()
