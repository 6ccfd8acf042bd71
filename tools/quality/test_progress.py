"""Tests of the quality report's progress lines."""

import unittest

from scoring import progress_line


class ProgressLineTest(unittest.TestCase):
    def test_minutes_left_from_the_mean_time_so_far(self):
        # 40 utterances in 120 s: 3 s each, so the 80 left take 240 s.
        self.assertEqual(progress_line("held-out", 40, 120, 120.0),
                         "held-out: 40/120 (120 s, about 4.0 minutes left)")

    def test_no_estimate_when_done_or_before_the_first(self):
        self.assertEqual(progress_line("dev", 120, 120, 361.0), "dev: 120/120 (361 s)")
        self.assertEqual(progress_line("dev", 0, 120, 0.0), "dev: 0/120 (0 s)")


if __name__ == "__main__":
    unittest.main()
