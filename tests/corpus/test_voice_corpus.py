#!/usr/bin/python3
"""Tests of scripts/build-voice-corpus: one of our own voices reading fortunes sentences.

Needs the tts binary (TTS_BINARY, set by CTest; default build/tools/tts) and the bundled voice;
skipped without them. Run: TTS_BINARY=build/tools/tts /usr/bin/python3 tests/corpus/test_voice_corpus.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "corpus"))

import fortune_sentences  # noqa: E402
import ljspeech  # noqa: E402
from normalise import normalise  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "corpus", "voice_corpus.py")
TTS = os.environ.get("TTS_BINARY", os.path.join(ROOT, "build", "tools", "tts"))
VOICE = os.path.join(ROOT, "voices", "default")
DEV_SENTENCES = os.path.join(ROOT, "..", "shared", "eval", "dev-sentences.txt")


def build(out, *args):
    return subprocess.run(["/usr/bin/python3", SCRIPT, "--tts", TTS, out, *args],
                          capture_output=True, text=True)


def read_rows(folder):
    with open(os.path.join(folder, "metadata.csv"), encoding="utf-8") as f:
        return [line.rstrip("\n").split("|") for line in f]


@unittest.skipUnless(os.access(TTS, os.X_OK) and os.path.isfile(os.path.join(VOICE, "voice.json")),
                     "no tts binary or no bundled voice")
@unittest.skipUnless(os.path.isdir("/usr/share/games/fortunes"), "fortunes is not installed")
class VoiceCorpusTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="voice-corpus-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_each_row_is_what_tts_say_speaks_with_its_number_as_seed(self):
        out = os.path.join(self.dir, "prose")
        r = build(out, "3", "--voice", VOICE, "--seed", "5", "--jobs", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = read_rows(out)
        self.assertEqual([row[0] for row in rows], ["voice00001", "voice00002", "voice00003"])
        dev = set()
        if os.path.exists(DEV_SENTENCES):
            with open(DEV_SENTENCES, encoding="utf-8") as f:
                dev = set(f.read().splitlines())
        for k, (ident, raw, normalised) in enumerate(rows, 1):
            self.assertNotIn(raw, dev)
            self.assertEqual(normalised, normalise(raw))
            # The corpus repeats exactly: the row is `tts say` of its sentence with seed = number,
            # run as the build runs it (one OpenBLAS thread: on some CPUs OpenBLAS's threaded GEMM
            # rounds differently from its one-thread GEMM, which changes the sampled audio).
            again = os.path.join(self.dir, "again.wav")
            said = subprocess.run([TTS, "say", "--voice", VOICE, "--seed", str(k), "--threads", "1",
                                   "-o", again, raw], capture_output=True, text=True,
                                  env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
            self.assertEqual(said.returncode, 0, said.stderr)
            with open(again, "rb") as a, open(os.path.join(out, "wavs", ident + ".wav"), "rb") as b:
                self.assertEqual(a.read(), b.read(), ident)
            seconds, peak, _ = ljspeech.inspect_wav(again)
            self.assertGreater(seconds, 0.5, raw)
            self.assertGreater(peak, 0.05, raw)
        # The sentences are the seeded sample of fortunes, with the dev sentences left out.
        expected = fortune_sentences.sample(3, 5, exclude=sorted(dev))
        self.assertEqual([row[1] for row in rows], expected)

    def test_a_voice_that_cannot_speak_leaves_no_folder(self):
        out = os.path.join(self.dir, "prose")
        r = build(out, "2", "--voice", os.path.join(self.dir, "no-such-voice"))
        # Every sentence fails: nothing is kept, so the build reports it and commits nothing.
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no-such-voice", r.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertEqual(os.listdir(self.dir), [])

    def test_bad_count_is_a_usage_error(self):
        r = build(os.path.join(self.dir, "prose"), "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("N must be at least 1", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
