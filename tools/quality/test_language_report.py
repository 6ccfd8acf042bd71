"""Unit tests of the per-language report: which languages, corpora and held-out lists a voice gets,
the targets' verdicts at their edges, and the tables it writes.
/usr/bin/python3 -m unittest discover -s tools/quality"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import language_report  # noqa: E402
import language_sections  # noqa: E402
import language_targets as lt  # noqa: E402
import languages  # noqa: E402
import sections  # noqa: E402
from harmonicity_pitch import Row  # noqa: E402
from held_out import HeldOut  # noqa: E402
from praat import Measure, Pool  # noqa: E402
from speed import Speed  # noqa: E402

BILINGUAL = {"language": "en-us", "languages": ["es-MX", "en-US"]}
SPANISH = {"language": "es-419", "languages": ["es-MX"]}
ENGLISH = {"language": "en-us"}


class LanguagesTest(unittest.TestCase):
    def test_a_voice_without_languages_speaks_its_language_only(self):
        self.assertEqual(languages.voice_languages(ENGLISH), ["en-us"])
        self.assertTrue(languages.is_english("en-us"))

    def test_the_main_language_comes_first(self):
        self.assertEqual(languages.voice_languages(BILINGUAL), ["en-US", "es-MX"])

    def test_espeak_voice_is_the_voices_own_or_the_projects_choice(self):
        self.assertEqual(languages.espeak_voice(SPANISH, "es-MX"), "es-419")
        self.assertEqual(languages.espeak_voice(BILINGUAL, "es-MX"), "es-419")
        self.assertEqual(languages.espeak_voice({"language": "fr-fr"}, "fr-CA"), "fr-fr")
        self.assertEqual(languages.espeak_voice(ENGLISH, "de-DE"), "de-de")

    def test_report_names_and_default_corpora(self):
        self.assertEqual(languages.report_stem("es-MX"), "quality-es-MX")
        self.assertEqual(languages.default_corpus("/r", "en-US"), "/r/data/asterisk")
        self.assertEqual(languages.default_corpus("/r", "fr-CA"), "/r/data/asterisk-fr")

    def test_corpus_for_prefers_the_named_corpus_then_corpus_for_the_first_language(self):
        corpora = {"es": "/c/es"}
        self.assertEqual(languages.corpus_for("/r", "es-MX", corpora, "/c/main", "en-US"), "/c/es")
        self.assertEqual(languages.corpus_for("/r", "en-US", corpora, "/c/main", "en-US"),
                         "/c/main")
        self.assertEqual(languages.corpus_for("/r", "it-IT", {}, "/c/main", "en-US"),
                         "/r/data/asterisk-it")

    def test_held_out_list_order(self):
        with tempfile.TemporaryDirectory() as voice:
            path, _ = languages.held_out_file("/r", voice, SPANISH, "es-MX")
            self.assertEqual(path, os.path.join(voice, "held-out.txt"))
            path, why = languages.held_out_file("/r", voice, BILINGUAL, "es-MX")
            self.assertEqual(path, "/r/scripts/corpus/held-out/asterisk-es.txt")
            self.assertIn("training recipes", why)
            own = os.path.join(voice, "held-out-es-MX.txt")
            open(own, "w").close()
            self.assertEqual(languages.held_out_file("/r", voice, BILINGUAL, "es-MX")[0], own)
            self.assertEqual(languages.held_out_file("/r", voice, BILINGUAL, "es-MX", "x.txt")[0],
                             os.path.abspath("x.txt"))


class TargetsTest(unittest.TestCase):
    def test_hnr_margin_is_inclusive(self):
        self.assertTrue(lt.hnr_target(12.5, 14.0).passed)
        self.assertFalse(lt.hnr_target(12.49, 14.0).passed)
        self.assertIn("needs ≥ 12.50", lt.hnr_target(12.49, 14.0).figures)
        self.assertIsNone(lt.hnr_target(None, 14.0).passed)

    def test_f0_spread_either_side(self):
        self.assertTrue(lt.f0_spread_target(3.0, 3.6).passed)
        self.assertTrue(lt.f0_spread_target(4.2, 3.6).passed)
        self.assertFalse(lt.f0_spread_target(2.9, 3.6).passed)
        self.assertFalse(lt.f0_spread_target(4.3, 3.6).passed)
        self.assertIn("difference -0.70", lt.f0_spread_target(2.9, 3.6).figures)

    def test_mel_distance_against_the_english_figure(self):
        self.assertTrue(lt.mel_distance_target(0.75, 0.6, "given").passed)
        t = lt.mel_distance_target(0.76, 0.6, "scored here")
        self.assertFalse(t.passed)
        self.assertIn("needs ≤ 0.750", t.figures)
        self.assertIn("scored here", t.figures)
        self.assertIsNone(lt.mel_distance_target(0.7, None, "failed").passed)
        self.assertIsNone(lt.mel_distance_target(None, 0.6, "given").passed)

    def test_speed_slower_by_at_most_ten_percent_and_faster_passes(self):
        self.assertTrue(lt.speed_target(0.33, 0.30).passed)
        self.assertFalse(lt.speed_target(0.331, 0.30).passed)
        self.assertTrue(lt.speed_target(0.10, 0.30).passed)
        self.assertIsNone(lt.speed_target(0.3, None).passed)

    def test_judge_reads_the_pools(self):
        rec = Pool([Measure(2, 30.0, 2, 2, [100.0, 200.0])])      # 15 dB, SD 8.49 semitones
        copy = Pool([Measure(2, 28.0, 2, 2, [100.0, 190.0])])     # 14 dB
        tts = Pool([Measure(1, 12.0, 1, 2, [100.0, 195.0])])      # 12 dB
        targets = lt.judge(rec, copy, tts, {"aligned_mel_l1": 0.7}, 0.6, "given", 0.3, 0.3)
        self.assertEqual([t.passed for t in targets], [False, True, True, True])
        targets = lt.judge(None, None, None, None, None, "failed", None, None)
        self.assertEqual([t.passed for t in targets], [None] * 4)


class Ctx:
    def __init__(self, notes):
        self.notes = notes


class Item:
    def __init__(self, seconds):
        self.seconds = seconds


class TablesTest(unittest.TestCase):
    def test_per_prompt_table_takes_seed_0_and_marks_what_is_missing(self):
        m = Measure(2, 30.0, 2, 2, [100.0, 200.0])
        rows = [Row("recording", "recordings", ["recording"], Pool([m]), {},
                    {"recording": {"a": m}}, 0),
                Row("tts", "tts", ["tts", "tts-seed1"], Pool([]), {},
                    {"tts": {}, "tts-seed1": {"a": m}}, 1)]
        held = HeldOut(["a"], 1, {"a": ("Hola | adiós", "hola adiós")},
                       {"recording": {"a": Item(1.5)}}, 0.0)
        table = language_sections.per_prompt_table(held, rows).splitlines()
        self.assertEqual(table[0], "| prompt | text | seconds | HNR recording | F0 SD recording | "
                                   "HNR tts | F0 SD tts |")
        self.assertEqual(table[2], "| a | Hola \\| adiós | 1.50 | 15.00 | 8.49 | n/a | n/a |")

    def test_targets_table_gives_each_verdict(self):
        table = language_sections.targets_table([lt.hnr_target(13.0, 14.0),
                                                 lt.hnr_target(None, None)])
        self.assertIn("**PASS**", table)
        self.assertIn("**not measured**", table)

    def test_speed_table(self):
        run = {"audio_seconds": 18.0, "real_time_factor": 0.25,
               "time_to_first_audio_seconds": 0.1, "load_before": (1.5, 1, 1)}
        table = language_sections.speed_table([("es", Speed([run], 1.0)), ("en", Speed([], 0.0))])
        self.assertIn("| es | 1 | 18.00 | **0.250** | 0.100 | 1.50 |", table)
        self.assertIn("| en | 0 | | not measured | | |", table)

    def test_spectrogram_paragraph_names_what_each_report_shows_and_where(self):
        held = HeldOut(["a"], 1, {"a": ("Hola | adiós", "hola adiós")}, {}, 0.0)
        pngs = {"spectrograms.png": {"prompt": "a", "vmin": -10.55, "vmax": 0.3}}
        ctx = Ctx(notes=["no spectrogram picture: matplotlib is missing"])
        english = sections.spectrograms_section(ctx, pngs, held)
        self.assertIn('prompt `a` ("Hola \\| adiós"): the recording, its copy-synthesis and the '
                      "TTS rendering of its text, on one colour scale (-10.6 to 0.3)", english[1])
        self.assertEqual(english[2], "![log-mel spectrograms](quality/spectrograms.png)\n")
        spanish = sections.spectrograms_section(
            ctx, pngs, held, ", the voice speaking its text and espeak-ng", "quality-es-MX")
        self.assertIn("its copy-synthesis, the voice speaking its text and espeak-ng, on one",
                      spanish[1])
        self.assertEqual(spanish[2], "![log-mel spectrograms](quality-es-MX/spectrograms.png)\n")
        self.assertEqual(sections.spectrograms_section(ctx, {}, held),
                         ["## Spectrograms\n", "no spectrogram picture: matplotlib is missing\n"])

    def test_bench_text_ends_each_prompt(self):
        self.assertEqual(language_report.bench_text(["Hola", "¿Qué tal?", " ", "Bien."]),
                         "Hola. ¿Qué tal? Bien.")


if __name__ == "__main__":
    unittest.main()
