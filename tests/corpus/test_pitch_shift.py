"""scripts/build-pitch-shifted-corpus on real recorded speech (pocketsphinx-testdata's LibriVox
sentences, a man reading, 4-7 s each):
every copy's F0, as Praat measures it, moves by the semitones asked; ids and transcripts follow;
excluded ids leave with every copy; a corpus that cannot be built leaves nothing behind."""

import math
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "build-pitch-shifted-corpus")

# Praat's median F0 of each file, with a floor low enough for a man's voice shifted down (the
# quality report's judge uses 75 Hz, made for her voice).
MEDIAN_F0 = """form Median F0
  sentence list_file
endform
names = Read Strings from raw text file: list_file$
n = Get number of strings
for i to n
  selectObject: names
  path$ = Get string: i
  sound = Read from file: path$
  pitch = To Pitch: 0.01, 40, 400
  median = Get quantile: 0, 0, 0.5, "Hertz"
  voiced = Count voiced frames
  appendInfoLine: path$, tab$, median, tab$, voiced
  removeObject: sound, pitch
endfor
"""


def median_f0(paths, work):
    """{path: (median F0 in Hz, voiced frames)} as Praat measures them."""
    script = os.path.join(work, "median_f0.praat")
    listing = os.path.join(work, "files.txt")
    with open(script, "w") as f:
        f.write(MEDIAN_F0)
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in paths))
    r = subprocess.run(["praat", "--run", script, listing], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = {}
    for line in r.stdout.splitlines():
        path, median, voiced = line.split("\t")
        out[path] = (float(median), int(voiced))
    return out

SOUNDS = "/usr/share/pocketsphinx/test/data/librivox"
RECORDINGS = {"Sense_0870": "sense_and_sensibility_01_austen_64kb-0870",
              "Sense_0890": "sense_and_sensibility_01_austen_64kb-0890",
              "Sense_0920": "sense_and_sensibility_01_austen_64kb-0920"}
NAMES = sorted(RECORDINGS)


@unittest.skipUnless(shutil.which("praat") and os.path.isdir(SOUNDS),
                     "praat or pocketsphinx-testdata is not installed (scripts/install-deps)")
class PitchShiftedCorpusTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tts-pitch-shift-")
        self.source = os.path.join(self.dir, "source")
        os.makedirs(os.path.join(self.source, "wavs"))
        with open(os.path.join(self.source, "metadata.csv"), "w", encoding="utf-8") as f:
            for name in NAMES:
                shutil.copyfile(os.path.join(SOUNDS, RECORDINGS[name] + ".wav"),
                                os.path.join(self.source, "wavs", name + ".wav"))
                f.write("%s|%s|%s\n" % (name, name.replace("_", " "), name.replace("_", " ").lower()))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def build(self, out, *args, sources=None):
        env = dict(os.environ, TTS_NO_INSTALL="1")
        return subprocess.run([SCRIPT, *(sources or [self.source]), out, *args],
                              capture_output=True, text=True, env=env)

    def split_source(self, moved):
        """Moves the recording `moved` into a second source folder; returns that folder."""
        second = os.path.join(self.dir, "second")
        os.makedirs(os.path.join(second, "wavs"))
        os.rename(os.path.join(self.source, "wavs", moved + ".wav"),
                  os.path.join(second, "wavs", moved + ".wav"))
        metadata = os.path.join(self.source, "metadata.csv")
        with open(metadata, encoding="utf-8") as f:
            rows = f.read().splitlines(True)
        with open(metadata, "w", encoding="utf-8") as f:
            f.writelines(r for r in rows if not r.startswith(moved + "|"))
        with open(os.path.join(second, "metadata.csv"), "w", encoding="utf-8") as f:
            f.writelines(r for r in rows if r.startswith(moved + "|"))
        return second

    def test_copies_move_by_the_semitones_asked(self):
        excluded = os.path.join(self.dir, "held-out.txt")
        with open(excluded, "w") as f:
            f.write("# held out\nSense_0920\n")
        out = os.path.join(self.dir, "shifted")
        r = self.build(out, "--shifts", "-3 5", "--exclude", excluded, "--jobs", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(out + ".partial"))
        with open(os.path.join(out, "metadata.csv"), encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("|") for line in f]
        ids = [row[0] for row in rows]
        self.assertEqual(sorted(ids), sorted(
            ["Sense_0870", "Sense_0890", "Sense_0870-down3", "Sense_0890-down3",
             "Sense_0870-up5", "Sense_0890-up5"]))
        for row in rows:  # each copy keeps its original's transcripts
            self.assertEqual(row[1:], [row[0].split("-")[0].replace("_", " "),
                                       row[0].split("-")[0].replace("_", " ").lower()])
        self.assertEqual(sorted(os.listdir(os.path.join(out, "wavs"))), sorted(i + ".wav" for i in ids))

        wav = lambda i: os.path.join(out, "wavs", i + ".wav")
        measured = median_f0([wav(i) for i in ids], self.dir)
        for name in ["Sense_0870", "Sense_0890"]:
            plain_hz, plain_voiced = measured[wav(name)]
            for suffix, semitones in [("-down3", -3.0), ("-up5", 5.0)]:
                hz, voiced = measured[wav(name + suffix)]
                self.assertAlmostEqual(12 * math.log2(hz / plain_hz), semitones, delta=0.3,
                                       msg=name + suffix)
                # PSOLA moves the harmonics and keeps the voicing: most voiced frames stay voiced.
                self.assertGreater(voiced, 0.8 * plain_voiced, name + suffix)

    def test_several_sources_make_one_corpus_and_their_ids_must_not_collide(self):
        second = self.split_source("Sense_0890")
        out = os.path.join(self.dir, "shifted")
        r = self.build(out, "--shifts", "4", sources=[self.source, second])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "metadata.csv"), encoding="utf-8") as f:
            ids = sorted(line.split("|")[0] for line in f)
        expected = [n + s for n in NAMES for s in ("", "-up4")]
        self.assertEqual(ids, sorted(expected))
        wav = lambda i: os.path.join(out, "wavs", i + ".wav")
        measured = median_f0([wav("Sense_0890"), wav("Sense_0890-up4")], self.dir)
        self.assertAlmostEqual(12 * math.log2(measured[wav("Sense_0890-up4")][0] /
                                              measured[wav("Sense_0890")][0]), 4.0, delta=0.3)
        # The same id in two sources is refused, naming it, and nothing is written.
        shutil.copyfile(os.path.join(self.source, "wavs", "Sense_0870.wav"),
                        os.path.join(second, "wavs", "Sense_0870.wav"))
        with open(os.path.join(second, "metadata.csv"), "a", encoding="utf-8") as f:
            f.write("Sense_0870|again|again\n")
        other = os.path.join(self.dir, "collided")
        r = self.build(other, "--shifts", "4", sources=[self.source, second])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Sense_0870", r.stderr)
        self.assertFalse(os.path.exists(other))

    def test_bad_input_names_the_problem_and_writes_nothing(self):
        out = os.path.join(self.dir, "shifted")
        r = self.build(out, "--shifts", "3 zero")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--shifts", r.stderr)
        os.remove(os.path.join(self.source, "wavs", "Sense_0890.wav"))
        r = self.build(out)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Sense_0890", r.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(out + ".partial"))
        # A file Praat cannot read fails the build, naming it, and leaves no corpus.
        with open(os.path.join(self.source, "wavs", "Sense_0890.wav"), "wb") as f:
            f.write(b"RIFF not really a wav file")
        r = self.build(out, "--shifts", "2")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Sense_0890", r.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
