"""scripts/prompt-coverage on the shipped recording prompts (voice_creation/prompts), and on copies
of them broken in the ways it must catch: truncated, a sound missing, bad lines."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "prompt-coverage")
PROMPTS = os.path.join(ROOT, "voice_creation", "prompts")
LANGUAGES = ["en", "es", "fr", "it", "ru"]


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class ShippedPrompts(unittest.TestCase):
    def test_every_language_covers_its_sounds(self):
        result = run("--min-sentences", "200", "--min-count", "3")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for language in LANGUAGES:
            self.assertRegex(result.stdout, rf"(?m)^{language}: \d+ sentences")
        for voice in ["en-us", "es-419", "es", "fr-fr", "it", "ru"]:
            self.assertRegex(result.stdout, rf"(?m)^  {voice}: (\d+)/\1 reference phonemes")


class BrokenPrompts(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        for name in os.listdir(PROMPTS):
            shutil.copy(os.path.join(PROMPTS, name), self.folder)

    def tearDown(self):
        shutil.rmtree(self.folder)

    def lines(self, language):
        with open(os.path.join(self.folder, f"{language}.txt"), encoding="utf-8") as f:
            return f.read().splitlines()

    def write(self, language, lines, raw=None):
        with open(os.path.join(self.folder, f"{language}.txt"), "wb") as f:
            f.write(raw if raw is not None else ("\n".join(lines) + "\n").encode("utf-8"))

    def check(self, language):
        return run("--prompts", self.folder, "--lang", language)

    def test_the_copy_passes(self):
        self.assertEqual(self.check("es").returncode, 0)

    def test_a_truncated_file_fails(self):
        self.write("fr", self.lines("fr")[:150])
        result = self.check("fr")
        self.assertEqual(result.returncode, 1)
        self.assertIn("150 sentences (at least 200)", result.stderr)

    def test_a_missing_sound_fails(self):
        # Without "ñ" Spanish has no palatal nasal ɲ.
        self.write("es", [line for line in self.lines("es") if "ñ" not in line.lower()])
        result = self.check("es")
        self.assertEqual(result.returncode, 1)
        self.assertIn("es-419 phoneme ɲ occurs 0 times (at least 3)", result.stderr)

    def test_a_rare_sound_below_the_minimum_fails(self):
        lines = self.lines("ru")
        with_yo = [line for line in lines if "ё" in line]
        kept = [line for line in lines if "ё" not in line] + with_yo[:1]
        self.write("ru", kept)
        result = self.check("ru")
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"ru phoneme ɵ occurs [0-2] times")

    def test_bad_lines_are_named(self):
        lines = self.lines("it")
        lines[4] = ""
        lines[9] = lines[8]
        lines[14] = "Una frase " + "molto " * 40 + "lunga."
        lines[19] = "Ho 3 gatti."
        lines[24] = " Uno spazio all'inizio."
        self.write("it", lines)
        result = self.check("it")
        self.assertEqual(result.returncode, 1)
        for expected in ["it.txt:5: empty line", "it.txt:10: the same as line 9",
                         "it.txt:15: 256 characters (at most 200)", "it.txt:20: digits",
                         "it.txt:25: space at the start or end"]:
            self.assertIn(expected, result.stderr)

    def test_invalid_utf8_fails(self):
        self.write("en", None, raw="\n".join(self.lines("en")).encode("utf-8") + b"\nCaf\xe9.\n")
        result = self.check("en")
        self.assertEqual(result.returncode, 1)
        self.assertIn("not valid UTF-8", result.stderr)

    def test_a_word_read_as_english_fails(self):
        # espeak-ng's French reads "week-end" with its English voice, "rythme" with English sounds.
        self.write("fr", self.lines("fr") + ["Bon week-end à tous !", "Quel rythme rapide !"])
        result = self.check("fr")
        self.assertEqual(result.returncode, 1)
        self.assertIn("reads a word in another language", result.stderr)
        self.assertRegex(result.stderr, r"fr-fr phoneme θ, another language's, occurs 1 times: \d+")


if __name__ == "__main__":
    unittest.main()
