"""unseen_text.unseen_fortunes: sentences outside the bundled voice's pre-training text and the dev
sentences, the same ones for the same seed."""

import os
import unittest

import unseen_text
from unseen_text import fortune_sentences


@unittest.skipUnless(os.path.isdir(fortune_sentences.DEFAULT_DIR),
                     "Debian's fortunes package is not installed")
class UnseenFortunesTest(unittest.TestCase):
    def test_none_was_pre_trained_on_and_a_seed_repeats(self):
        trained = unseen_text.pretraining_sentences()
        self.assertEqual(len(trained), 8000)
        trained = {s.lower() for s in trained}
        unseen = unseen_text.unseen_fortunes(60, 7)
        self.assertEqual(len(set(unseen)), 60)
        self.assertFalse(trained & {s.lower() for s in unseen})
        self.assertEqual(unseen, unseen_text.unseen_fortunes(60, 7))
        self.assertNotEqual(unseen, unseen_text.unseen_fortunes(60, 8))

    def test_the_dev_sentences_are_left_out(self):
        first = unseen_text.unseen_fortunes(5, 1)[0]
        self.assertNotIn(first, unseen_text.unseen_fortunes(5, 1, dev_sentences=[first.upper()]))


if __name__ == "__main__":
    unittest.main()
