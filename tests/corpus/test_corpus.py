#!/usr/bin/python3
"""Tests of the corpus builders (scripts/build-asterisk-corpus, scripts/corpus/*.py).

Pure-Python parts (normaliser, transcript cleaning, ids, audio checks) always run. The end-to-end
build on a small fake prompt package needs ffmpeg (to encode G.722) and is skipped without it.
Run: /usr/bin/python3 tests/corpus/test_corpus.py
"""

import gzip
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import wave

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "corpus"))

import asterisk_corpus  # noqa: E402
import flite_corpus  # noqa: E402
import fortune_sentences  # noqa: E402
import ljspeech  # noqa: E402
import sentences  # noqa: E402
from normalise import cardinal, normalise, ordinal  # noqa: E402


class NormaliseTest(unittest.TestCase):
    def test_numbers(self):
        self.assertEqual(cardinal(0), "zero")
        self.assertEqual(cardinal(40), "forty")
        self.assertEqual(cardinal(115), "one hundred fifteen")
        self.assertEqual(cardinal(2000000), "two million")
        self.assertEqual(ordinal(12), "twelfth")
        self.assertEqual(ordinal(21), "twenty first")
        self.assertEqual(ordinal(40), "fortieth")
        self.assertEqual(normalise("Press 1 for"), "Press one for")
        self.assertEqual(normalise("dial 500 now."), "dial five hundred now.")
        self.assertEqual(normalise("extension 1234."), "extension one two three four.")
        self.assertEqual(normalise("12,000 callers"), "twelve thousand callers")
        self.assertEqual(normalise("a 28.8 kilobit modem"), "a twenty eight point eight kilobit modem")
        self.assertEqual(normalise("the 3rd of May"), "the third of May")
        self.assertEqual(normalise("$5 or 50%"), "five dollars or fifty percent")

    def test_symbols_and_abbreviations(self):
        self.assertEqual(normalise("press * to pause, # to exit"), "press star to pause, pound to exit")
        self.assertEqual(normalise("A.M."), "A M")
        self.assertEqual(normalise("H.323"), "H three twenty three")
        self.assertEqual(normalise("3D audio enabled"), "three D audio enabled")
        self.assertEqual(normalise("visit www.asterisk.org."), "visit w w w dot asterisk dot org.")
        self.assertEqual(normalise("PBX and IVR"), "P B X and I V R")
        self.assertEqual(normalise("IAX"), "eeks")
        self.assertEqual(normalise("DAHDI"), "Dahdi")

    def test_spelling_fixes(self):
        self.assertEqual(normalise("exclaimation-point"), "exclamation point")
        self.assertEqual(normalise("or umute all"), "or unmute all")
        self.assertEqual(normalise("Un-indentified or witheld"), "Unidentified or withheld")
        self.assertEqual(normalise("Call-Forward on Busy."), "Call-Forward on Busy.")


class TranscriptTest(unittest.TestCase):
    def clean(self, key, raw):
        return asterisk_corpus.clean_transcript(key, raw)

    def test_descriptions_are_dropped(self):
        for raw in ["[ascending tones]", "<beep ascending>", "(10 seconds of silence)"]:
            spoken, problem = self.clean("x", raw)
            self.assertIsNone(spoken)
            self.assertIn("non-speech", problem[0])
        spoken, problem = self.clean("vm-intro", "Leave a message. (simple tone sound plays)")
        self.assertIsNone(spoken)
        self.assertIn("non-speech sound", problem[0])

    def test_notes_are_removed(self):
        self.assertEqual(self.clean("letters/at", "at [@]"), ("at", None))
        self.assertEqual(self.clean("spy-iax2", 'IAX (note: does not say "2")'), ("eeks", None))
        self.assertEqual(self.clean("letters/a", "a"), ("A", None))
        self.assertEqual(self.clean("dir-multi2", "... for ..."), ("for...", None))

    def test_empty_after_cleaning(self):
        spoken, problem = self.clean("x", "[@] ...")
        self.assertIsNone(spoken)
        self.assertEqual(problem[0], "empty transcript after cleaning")

    def test_other_languages_keep_their_words_and_digits(self):
        # Digits stay for the engine's normaliser of that language; keypad symbols get its words.
        self.assertEqual(asterisk_corpus.clean_transcript("x", "Marque 1 o # ahora.", "es"),
                         ("Marque 1 o numeral ahora.", None))
        self.assertEqual(asterisk_corpus.clean_transcript("x", "Appuyez sur * puis 2.", "fr"),
                         ("Appuyez sur étoile puis 2.", None))
        self.assertEqual(asterisk_corpus.clean_transcript("x", "Нажмите решётку.", "ru"),
                         ("Нажмите решётку.", None))
        spoken, problem = asterisk_corpus.clean_transcript("beep", "[tono simple]", "es")
        self.assertIsNone(spoken)
        self.assertIn("non-speech", problem[0])
        spoken, problem = asterisk_corpus.clean_transcript("x", "[@] 5", "it")
        self.assertEqual(problem[0], "empty transcript after cleaning")

    def test_read_transcripts_with_a_byte_order_mark(self):
        # The Italian transcripts start with one: the first comment line must stay a comment.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.txt.gz")
            with gzip.open(path, "wb") as f:
                f.write("\ufeff; Core Asterisk Sounds in Italian\nadded: Aggiunto.\n"
                        "activated: Активировано\n".encode("utf-8"))
            texts, problems = asterisk_corpus.read_transcripts(path)
        self.assertEqual(texts, {"added": "Aggiunto.", "activated": "Активировано"})
        self.assertEqual(problems, [])

    def test_read_transcripts(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.txt.gz")
            with gzip.open(path, "wt") as f:
                f.write("; comment\n\nhello: Hello  there.\ndigits/1: one\nhello: again\nbad line\n")
            texts, problems = asterisk_corpus.read_transcripts(path)
        self.assertEqual(texts, {"hello": "Hello there.", "digits/1": "one"})
        self.assertEqual(len(problems), 2)


class AudioCheckTest(unittest.TestCase):
    def test_ids(self):
        self.assertEqual(ljspeech.id_from_path("digits/1.g722"), "digits_1")
        self.assertEqual(ljspeech.id_from_path("conf-adminmenu-162.g722"), "conf-adminmenu-162")
        self.assertEqual(ljspeech.id_from_path("a b/c.d.g722"), "a_b_c_d")

    def test_check_audio(self):
        self.assertIsNone(ljspeech.check_audio(1.0, 0.5))
        self.assertEqual(ljspeech.check_audio(0.0, 0.0), "audio empty")
        self.assertIn("too short", ljspeech.check_audio(0.1, 0.5))
        self.assertIn("too long", ljspeech.check_audio(25.0, 0.5))
        self.assertIn("silent", ljspeech.check_audio(1.0, 0.001))

    def test_inspect_wav(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "a.wav")
            write_wav(path, [0, 16384, -32768, 0])
            seconds, peak, rms = ljspeech.inspect_wav(path)
            self.assertAlmostEqual(seconds, 4 / 16000.0)
            self.assertEqual(peak, 1.0)
            self.assertAlmostEqual(rms, math.sqrt((0.25 + 1.0) / 4), places=3)
            with open(path, "wb") as f:
                f.write(b"RIFF\x00\x00")
            with self.assertRaises(ValueError):
                ljspeech.inspect_wav(path)


def write_wav(path, samples, rate=16000):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(struct.pack("<%dh" % len(samples), *samples))


def speechlike(seconds, seed):
    """Amplitude-modulated noise plus a harmonic tone: loud enough, not silent."""
    rng = random.Random(seed)
    n = int(seconds * 16000)
    out = []
    for i in range(n):
        t = i / 16000.0
        envelope = 0.5 + 0.5 * math.sin(2 * math.pi * 4 * t)
        v = envelope * (0.3 * math.sin(2 * math.pi * 180 * t) + 0.1 * rng.uniform(-1, 1))
        out.append(int(max(-1.0, min(1.0, v)) * 32767))
    return out


@unittest.skipUnless(shutil.which("ffmpeg"), "ffmpeg is not installed (needed to encode G.722)")
class EndToEndTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="corpus_test_")
        self.sounds = os.path.join(self.tmp, "sounds")
        os.makedirs(os.path.join(self.sounds, "digits"))
        prompts = {
            "hello": speechlike(1.0, 1),
            "digits/1": speechlike(0.6, 2),
            "long": speechlike(21.0, 3),
            "short": speechlike(0.1, 4),
            "quiet": [0] * 16000,
            "beep": speechlike(0.5, 5),
            "orphan": speechlike(0.8, 6),
        }
        for key, samples in prompts.items():
            wav = os.path.join(self.tmp, "in.wav")
            write_wav(wav, samples)
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "g722",
                            "-f", "g722", os.path.join(self.sounds, key + ".g722")], check=True)
        open(os.path.join(self.sounds, "empty.g722"), "wb").close()
        self.transcripts = os.path.join(self.tmp, "core-sounds-en.txt.gz")
        with gzip.open(self.transcripts, "wt") as f:
            f.write("; test prompts\n\nhello: Press 1 or # now.\ndigits/1: one\nlong: Long one.\n"
                    "short: Short.\nquiet: Quiet.\nbeep: [a beep]\nempty: Empty.\n"
                    "missing-audio: No audio for this.\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def build(self, out):
        env = dict(os.environ, TTS_NO_INSTALL="1")
        result = subprocess.run(
            [os.path.join(ROOT, "scripts", "build-asterisk-corpus"), out, "--sounds-dir", self.sounds,
             "--transcripts", self.transcripts, "--jobs", "2"],
            env=env, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def read(self, out, name):
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return f.read()

    def test_build(self):
        out = os.path.join(self.tmp, "out", "corpus")
        stdout = self.build(out)
        self.assertIn("kept 2 prompts", stdout)
        self.assertEqual(self.read(out, "metadata.csv"),
                         "digits_1|one|one\nhello|Press 1 or # now.|Press one or pound now.\n")
        dropped = dict(line.split("\t")[:2] for line in self.read(out, "dropped.tsv").splitlines()[1:])
        self.assertEqual(dropped, {
            "beep": "non-speech (transcript is a description)",
            "empty": "audio empty",
            "long": "too long (> 20 s)",
            "orphan": "no transcript for the audio",
            "quiet": "silent (peak < -40 dBFS)",
            "short": "too short (< 0.2 s)",
        })
        self.assertEqual(sorted(os.listdir(os.path.join(out, "wavs"))), ["digits_1.wav", "hello.wav"])
        seconds, peak, _ = ljspeech.inspect_wav(os.path.join(out, "wavs", "hello.wav"))
        self.assertAlmostEqual(seconds, 1.0, places=2)
        self.assertGreater(peak, 0.1)

        # A second run rebuilds the same bytes, replaces stale files and leaves no temporaries.
        before = {n: self.read(out, n) for n in ("metadata.csv", "dropped.tsv", "summary.json")}
        with open(os.path.join(out, "wavs", "stale.wav"), "w") as f:
            f.write("x")
        self.build(out)
        after = {n: self.read(out, n) for n in before}
        self.assertEqual(before, after)
        self.assertFalse(os.path.exists(os.path.join(out, "wavs", "stale.wav")))
        self.assertEqual(os.listdir(os.path.dirname(out)), ["corpus"])


class SentencesTest(unittest.TestCase):
    def test_deterministic_and_distinct(self):
        a = sentences.generate(300, seed=7)
        self.assertEqual(a, sentences.generate(300, seed=7))
        self.assertEqual(len(set(a)), 300)
        for s in a:
            spoken = normalise(s)
            self.assertNotRegex(spoken, r"[0-9|]", s)


FORTUNES = """Clear are thy eyes and bright thy breath!
%
The light at the end of the tunnel is the
headlight of an approaching train.  Do unto others before they undo you.
\t\t-- Anonymous
%
Call 555-1234 before midnight, and ask for Bob.
%
It is ONLY a flesh wound, said the knight.
%
Too short.  The birch canoe slid on the smooth planks.
%
Q: Why did the chicken cross the road?  A: To get to the other side.
"""


class FortuneSentencesTest(unittest.TestCase):
    def folder(self, tmp):
        with open(os.path.join(tmp, "wisdom"), "w", encoding="latin-1") as f:
            f.write(FORTUNES)
        with open(os.path.join(tmp, "wisdom.dat"), "wb") as f:  # strfile's index: not text
            f.write(b"\x00\x01binary")
        return tmp

    def test_plain_sentences_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            got = fortune_sentences.load(self.folder(tmp),
                                         exclude=["the birch canoe slid on the smooth planks."])
        # Lines of a cookie are joined, the attribution is dropped; digits, words in capitals,
        # sentences under 5 words, evaluation sentences and "Q: ... A: ..." jokes are left out.
        self.assertEqual(got, ["Clear are thy eyes and bright thy breath!",
                               "The light at the end of the tunnel is the headlight of an "
                               "approaching train.",
                               "Do unto others before they undo you."])

    def test_sample_is_seeded_and_refuses_too_many(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = self.folder(tmp)
            a = fortune_sentences.sample(3, seed=4, directory=folder)
            self.assertEqual(a, fortune_sentences.sample(3, seed=4, directory=folder))
            self.assertEqual(len(set(a)), 3)
            with self.assertRaisesRegex(ValueError, "only 4 plain sentences"):
                fortune_sentences.sample(5, directory=folder)
        with self.assertRaisesRegex(FileNotFoundError, "install Debian's fortunes"):
            fortune_sentences.load("/nonexistent/fortunes")

    def test_mixed_text_alternates_sources(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = self.folder(tmp)
            original = fortune_sentences.DEFAULT_DIR
            fortune_sentences.DEFAULT_DIR = folder
            try:
                mixed = flite_corpus.choose_texts("mixed", 5, seed=2)
            finally:
                fortune_sentences.DEFAULT_DIR = original
            plain = set(fortune_sentences.load(folder))
        made = sentences.generate(3, seed=2)
        self.assertEqual(mixed[0::2], made)
        self.assertEqual(len(mixed), 5)
        self.assertTrue(all(s in plain for s in mixed[1::2]), mixed)


@unittest.skipUnless(shutil.which("flite"), "flite is not installed")
class FliteTest(unittest.TestCase):
    def test_build(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "flite")
            result = subprocess.run(
                [os.path.join(ROOT, "scripts", "build-flite-corpus"), out, "4", "--jobs", "2"],
                env=dict(os.environ, TTS_NO_INSTALL="1"), capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "metadata.csv"), encoding="utf-8") as f:
                rows = [line.rstrip("\n").split("|") for line in f]
            self.assertEqual([r[0] for r in rows], ["flite00001", "flite00002", "flite00003",
                                                    "flite00004"])
            with open(os.path.join(out, "phones.tsv"), encoding="utf-8") as f:
                phones = dict(line.rstrip("\n").split("\t") for line in f.readlines()[1:])
            for ident, _, _ in rows:
                seconds, _, _ = ljspeech.inspect_wav(os.path.join(out, "wavs", ident + ".wav"))
                ends = [float(p.split(":")[1]) for p in phones[ident].split()]
                self.assertEqual(ends, sorted(ends))
                # flite's wav stops about 0.11 s into the final pause: every spoken phone is
                # inside the audio, the final "pau" is cut short.
                self.assertTrue(phones[ident].split()[-1].startswith("pau:"))
                self.assertLess(ends[-2], seconds)
                self.assertLessEqual(seconds, ends[-1] + 0.01)

    def test_parts_split_one_draw_between_voices(self):
        with tempfile.TemporaryDirectory() as tmp:
            rows = {}
            for k, voice in ((1, "kal16"), (2, "slt")):
                out = os.path.join(tmp, voice)
                result = subprocess.run(
                    [os.path.join(ROOT, "scripts", "build-flite-corpus"), out, "5", "--jobs", "2",
                     "--voice", voice, "--part", "%d/2" % k],
                    env=dict(os.environ, TTS_NO_INSTALL="1"), capture_output=True, text=True)
                self.assertEqual(result.returncode, 0, result.stderr)
                with open(os.path.join(out, "metadata.csv"), encoding="utf-8") as f:
                    rows[voice] = [line.split("|")[0] for line in f]
                with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
                    source = json.load(f)["source"]
                self.assertEqual(source["synthesiser"], "flite %s voice" % voice)
                self.assertEqual(source["part"], "%d/2" % k)
            self.assertEqual(rows["kal16"], ["flite00001", "flite00003", "flite00005"])
            self.assertEqual(rows["slt"], ["flite00002", "flite00004"])
            result = subprocess.run(
                [os.path.join(ROOT, "scripts", "build-flite-corpus"), os.path.join(tmp, "bad"),
                 "5", "--part", "3/2"],
                env=dict(os.environ, TTS_NO_INSTALL="1"), capture_output=True, text=True)
            self.assertEqual(result.returncode, 2)
            self.assertIn("--part", result.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "bad")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
