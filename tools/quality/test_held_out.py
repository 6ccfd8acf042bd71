"""Unit tests of the held-out section's acoustic-model score: how a failure is reported and how a
score reads. /usr/bin/python3 -m unittest discover -s tools/quality"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import held_out  # noqa: E402
import sections  # noqa: E402
from context import Context  # noqa: E402


def context(tts):
    return Context(root="/", out_dir="/tmp", tts=tts, corpus="/nowhere/asterisk", limit=None,
                   jobs=1, bench_runs=0, seeds=[0], command="test", voice_dir="/nowhere/voice")


class AcousticScoreTest(unittest.TestCase):
    def test_a_command_that_cannot_run_is_a_failure_naming_it(self):
        ctx = context("/nonexistent/tts")
        with tempfile.TemporaryDirectory() as work:
            self.assertIsNone(held_out.score_acoustic_model(ctx, ["a", "b"], work))
            with open(os.path.join(work, "scored-ids.txt"), encoding="utf-8") as f:
                self.assertEqual(f.read(), "a\nb\n")
        self.assertEqual(len(ctx.failures), 1)
        section, message = ctx.failures[0]
        self.assertEqual(section, held_out.SECTION)
        self.assertIn("scoring the acoustic model failed (could not run)", message)
        self.assertIn("/nowhere/voice/acoustic", message)

    def test_output_that_is_not_json_is_a_failure(self):
        ctx = context("/bin/echo")  # prints its arguments: a line, but not JSON
        with tempfile.TemporaryDirectory() as work:
            self.assertIsNone(held_out.score_acoustic_model(ctx, ["a"], work))
        self.assertIn("unreadable output", ctx.failures[0][1])

    def test_the_paragraph_gives_the_three_figures(self):
        text = sections.acoustic_likeness_paragraph(
            {"utterances": 27, "frames": 4930, "aligned_mel_l1": 0.76321, "log_duration_l1": 0.2557,
             "length_ratio": 0.89675})
        self.assertIn("27 prompts, 4930 frames", text)
        self.assertIn("**0.763**", text)
        self.assertIn("0.256 in log(1 + frames)", text)
        self.assertIn("0.897× her frames", text)
        self.assertIn("failures", sections.acoustic_likeness_paragraph(None))


if __name__ == "__main__":
    unittest.main()
