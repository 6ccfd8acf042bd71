#!/usr/bin/env python3
"""sd_tts, the Speech Dispatcher output module, driven over its stdin and stdout by a scripted
server (module_client.py) with the bundled voice: the handshake, SSML with a mark before every
word (every 700 INDEX MARK, in order, between the audio it separates), STOP mid-sentence (703
STOP within 50 ms, and nothing after it), PAUSE (704 PAUSE at the next __spd_ mark), CHAR, KEY,
SOUND_ICON, settings, errors and QUIT.

    python3 tests/speechd/test_sd_tts.py BUILD_DIR      (ctest runs it as speechd_module)
"""

import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from module_client import Module, VOICE  # noqa: E402

BUILD = None
WORDS = "The quick brown fox jumps over the lazy dog".split()


def marked_ssml(words, prefix="w"):
    return "<speak>" + " ".join(f'<mark name="{prefix}{i}"/>{w}' for i, w in enumerate(words)) + \
        ".</speak>"


def audio_and_marks(messages):
    """[(kind, value)]: ("audio", n samples) and ("mark", name) in arrival order."""
    out = []
    for m in messages:
        if m.code == "705":
            out.append(("audio", len(m.samples)))
        elif m.code == "700":
            out.append(("mark", m.lines[0][4:].decode()))
    return out


class ModuleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        binary = os.path.join(BUILD, "tools", "sd_tts", "sd_tts")
        cls.module = Module(binary, f'TtsVoice "{VOICE}"\nTtsThreads 1\n', cls.tmp.name)
        cls.init, cls.voices = cls.module.handshake()

    @classmethod
    def tearDownClass(cls):
        cls.module.close()
        cls.tmp.cleanup()

    def setUp(self):
        self.m = self.module
        self.assertEqual(self.m.quiet_for(0.05), [])  # nothing left over from the last test

    def test_01_init_and_voices(self):
        self.assertTrue(self.init.lines[0].startswith(b"299-"), self.init)
        self.assertIn(b"default", self.init.lines[0])
        lines = self.voices.text.split("\n")
        self.assertEqual(lines[-1], "200 OK VOICE LIST SENT")
        self.assertIn("200-default\ten-US\tnone", lines)

    def test_02_marks_before_every_word(self):
        self.m.send("SET")
        self.assertEqual(self.m.reply().text, "203 OK RECEIVING SETTINGS")
        self.m.send("rate=0", "pitch=0", "volume=100", "punctuation_mode=none",
                    "language=en", "synthesis_voice=NULL", "voice=FEMALE1", ".")
        self.assertEqual(self.m.reply().text, "203 OK SETTINGS RECEIVED")
        self.m.speak(marked_ssml(WORDS))
        got = self.m.until({"702", "703", "704"})
        self.assertEqual(got[0].text, "701 BEGIN")
        self.assertEqual(got[-1].text, "702 END")
        events = audio_and_marks(got)
        marks = [v for k, v in events if k == "mark"]
        self.assertEqual(marks, [f"w{i}" for i in range(len(WORDS))])
        # Audio between the marks: each word has some, and the samples before each mark grow.
        position, positions = 0, []
        for kind, value in events:
            if kind == "audio":
                position += value
            else:
                positions.append(position)
        self.assertEqual(positions, sorted(positions))
        self.assertGreater(position - positions[-1], 1000)  # "dog." after the last mark
        for a, b in zip(positions, positions[1:]):
            self.assertGreater(b - a, 400, positions)  # a word is longer than 25 ms
        self.assertGreater(position, 16000)  # more than a second of speech

    def test_03_stop_mid_sentence_within_50_ms(self):
        text = ("<speak>This is a long sentence that keeps going for a while, so that there is "
                "plenty left to stop, and it goes on and on.</speak>")
        replies, idle = [], []
        self.m.speak(text)
        for round in range(3):
            got = self.m.until({"705"})
            if round == 0:
                self.assertEqual(got[0].text, "701 BEGIN")
            self.assertEqual([m.code for m in got[1:] if m.code != "705"], [])
            time.sleep(0.2)  # well into the sentence
            sent = self.m.send("STOP")
            got = self.m.until({"702", "703", "704"}, timeout=5)
            self.assertEqual(got[-1].text, "703 STOP", got)
            replies.append(got[-1].arrived - sent)
            # At once the next message: its 701 BEGIN comes when the worker has left the
            # cancelled synthesis, and nothing of the stopped one may come before it.
            self.m.send("SPEAK")
            self.assertEqual(self.m.next().text, "202 OK RECEIVING MESSAGE")
            self.m.send(*(text if round < 2 else "<speak>Again.</speak>").split("\n"), ".")
            self.assertEqual(self.m.next().text, "200 OK SPEAKING")
            begin = self.m.next()
            self.assertEqual(begin.text, "701 BEGIN")
            idle.append(begin.arrived - sent)
        got = self.m.until({"702", "703", "704"})
        self.assertEqual(got[-1].text, "702 END")
        print("\nSTOP → 703 STOP: " + ", ".join(f"{r * 1000:.1f} ms" for r in replies) +
              "; STOP → synthesis cancelled (next 701 BEGIN): " +
              ", ".join(f"{t * 1000:.1f} ms" for t in idle), file=sys.stderr)
        self.assertLess(max(replies), 0.05)
        self.assertLess(max(idle), 0.5)  # one chunk's work, even on a loaded machine

    def test_04_stop_when_idle_says_nothing(self):
        self.m.send("STOP")
        self.assertEqual(self.m.quiet_for(0.2), [])

    def test_05_pause_at_the_next_speechd_mark(self):
        # What the server makes of plain text: <speak>, and a __spd_ mark after each sentence.
        # The first sentence is long enough that PAUSE, sent with its first audio, comes before
        # the synthesis reaches the first __spd_ mark even on a fast machine.
        text = ("<speak>First sentence here, and it goes on for quite a while before it ends."
                "<mark name=\"__spd_0\"/> Second sentence is this."
                "<mark name=\"__spd_1\"/> Third one.<mark name=\"__spd_2\"/> Fourth.</speak>")
        self.m.speak(text)
        self.m.until({"705"})
        self.m.send("PAUSE")
        got = self.m.until({"702", "703", "704"}, timeout=30)
        self.assertEqual(got[-1].text, "704 PAUSE", got)
        before = [m for m in got if m.code == "700"]
        self.assertTrue(before, got)
        self.assertTrue(before[-1].text.startswith("700-__spd_"))
        self.assertIs(got[-2], before[-1])  # paused right at the mark
        self.assertEqual(self.m.quiet_for(0.3), [])

    def test_06_char_key_and_icon(self):
        for command, data in (("CHAR", "a"), ("CHAR", "space"), ("CHAR", ","),
                              ("KEY", "shift_a"), ("KEY", "kp-enter")):
            self.m.speak(data, command)
            got = self.m.until({"702", "703", "704"})
            self.assertEqual(got[0].text, "701 BEGIN")
            self.assertEqual(got[-1].text, "702 END", (command, data, got))
            self.assertGreater(sum(len(m.samples) for m in got if m.code == "705"), 1000)
        self.m.speak("message", "SOUND_ICON")
        got = self.m.until({"702"})
        self.assertEqual([m.text for m in got], ["701 BEGIN", "706-message\n706 ICON", "702 END"])

    def test_07_settings_and_errors(self):
        self.m.send("SET")
        self.m.reply()
        self.m.send("rate=500", "pitch=10", ".")
        self.assertEqual(self.m.reply().text, "303 ERROR INVALID PARAMETER OR VALUE")
        self.m.send("SET")
        self.m.reply()
        self.m.send("rate", ".")
        self.assertEqual(self.m.reply().text, "302 ERROR BAD SYNTAX")
        self.m.send("FROBNICATE")
        self.assertEqual(self.m.reply().text, "300 ERR UNKNOWN COMMAND")
        self.m.send("SPEAK")
        self.m.reply()
        self.m.send(".")
        self.assertEqual(self.m.reply().text, "301 ERROR CANT SPEAK")
        self.m.send("AUDIO")
        self.m.reply()
        self.m.send("audio_output_method=pulse", ".")
        self.assertEqual(self.m.reply().text, "303 ERROR INVALID PARAMETER OR VALUE")
        # Faster speech is shorter.
        lengths = []
        for rate in (0, 50):
            self.m.send("SET")
            self.m.reply()
            self.m.send(f"rate={rate}", "pitch=0", ".")
            self.assertEqual(self.m.reply().text, "203 OK SETTINGS RECEIVED")
            self.m.speak("<speak>One two three four five.</speak>")
            got = self.m.until({"702"})
            lengths.append(sum(len(m.samples) for m in got if m.code == "705"))
        self.assertLess(lengths[1], lengths[0] * 0.75, lengths)
        # Spelling mode spells: "cat" as three letters is longer than the word.
        spelled = []
        for mode in ("off", "on"):
            self.m.send("SET")
            self.m.reply()
            self.m.send("rate=0", f"spelling_mode={mode}", ".")
            self.assertEqual(self.m.reply().text, "203 OK SETTINGS RECEIVED")
            self.m.speak("<speak>cat</speak>")
            got = self.m.until({"702"})
            spelled.append(sum(len(m.samples) for m in got if m.code == "705"))
        self.assertGreater(spelled[1], spelled[0] * 1.5, spelled)
        self.m.send("SET")
        self.m.reply()
        self.m.send("spelling_mode=off", ".")
        self.m.reply()
        self.m.send("SET")
        self.m.reply()
        self.m.send("rate=0", ".")
        self.m.reply()

    def speak_and_log(self, *lines):
        """Speaks a message given as lines (str or bytes); its messages and the log lines it
        added to the module's stderr."""
        logged = len(self.m.stderr)
        self.m.send("SPEAK")
        self.assertEqual(self.m.reply().text, "202 OK RECEIVING MESSAGE")
        self.m.send(*lines, ".")
        self.assertEqual(self.m.reply().text, "200 OK SPEAKING")
        got = self.m.until({"702", "703", "704"})
        time.sleep(0.05)  # the log line is written before 702 END; let the reader take it
        return got, "".join(self.m.stderr[logged:])

    def test_08_a_message_that_is_not_ssml_is_spoken_as_text_and_the_log_says_why(self):
        # Malformed SSML, no SSML at all, and bytes that are not UTF-8: each is spoken (its text
        # without the markup), never answered with silence, and the log says why.
        for lines, reason in (
                (["<speak>unclosed <emphasis>tag</speak>"], "does not match <emphasis>"),
                (["Plain words, &amp; no markup."], "expected the root element"),
                ([b"<speak>Caf\xff ok.</speak>"], "not valid UTF-8 (byte offset 10)")):
            got, log = self.speak_and_log(*lines)
            self.assertEqual(got[0].text, "701 BEGIN")
            self.assertEqual(got[-1].text, "702 END")
            self.assertGreater(sum(len(m.samples) for m in got if m.code == "705"), 1600, lines)
            self.assertIn(reason, log)
            self.assertIn("speaking the message's text without its markup", log)

    def test_09_stop_during_a_message_of_50000_marks_leaves_it_at_once(self):
        marks = "".join(f'<mark name="m{i}"/>' for i in range(50000))
        self.m.speak(f"<speak>{marks}Here we go.</speak>")
        time.sleep(0.1)
        sent = self.m.send("STOP")
        got = self.m.until({"702", "703", "704"}, timeout=5)
        self.assertEqual(got[-1].text, "703 STOP", got)
        self.m.speak("<speak>Again.</speak>")
        begin = self.m.next(timeout=30)
        self.assertEqual(begin.text, "701 BEGIN")
        self.assertLess(begin.arrived - sent, 3.0)  # the parse took 14.7 s before it was linear
        got = self.m.until({"702", "703", "704"})
        self.assertEqual(got[-1].text, "702 END")

    def test_99_quit(self):
        self.m.send("QUIT")
        self.assertEqual(self.m.reply().text, "210 OK QUIT")
        self.assertEqual(self.m.proc.wait(10), 0)


class BilingualVoiceTest(unittest.TestCase):
    """Two random voices on TTS_VOICE_PATH: babble (en-US, the configured voice) and allison (en-US
    and pt-BR, pt-BR phonemised by pt-br). LIST VOICES names allison once per language; SET
    language=pt-BR finds her and she reads the text in Portuguese: the same audio as when she is
    named with language=pt, other audio than her English reading of the same text. Her second
    language is one no bundled voice speaks (the search path ends with those, and a voice whose
    own language it is would be chosen first)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        voices = os.path.join(cls.tmp.name, "voices")
        tts = os.path.join(BUILD, "tools", "tts")
        for name, seed, extra in (("babble", "7", []),
                                  ("allison", "8", ["--languages", "en-US", "pt-BR",
                                                    "--espeak-voice", "pt-BR=pt-br"])):
            subprocess.run([tts, "voices", "create-random", os.path.join(voices, name),
                            "--name", name, "--seed", seed] + extra, check=True)
        cls.saved_path = os.environ.get("TTS_VOICE_PATH")
        os.environ["TTS_VOICE_PATH"] = voices
        binary = os.path.join(BUILD, "tools", "sd_tts", "sd_tts")
        cls.module = Module(binary, 'TtsVoice "babble"\nTtsThreads 1\n', cls.tmp.name)
        cls.init, cls.voices = cls.module.handshake()

    @classmethod
    def tearDownClass(cls):
        cls.module.close()
        if cls.saved_path is None:
            os.environ.pop("TTS_VOICE_PATH", None)
        else:
            os.environ["TTS_VOICE_PATH"] = cls.saved_path
        cls.tmp.cleanup()

    def spoken(self, voice, language):
        m = self.module
        m.send("SET")
        self.assertEqual(m.reply().text, "203 OK RECEIVING SETTINGS")
        m.send(f"synthesis_voice={voice}", f"language={language}", "rate=100", ".")
        self.assertEqual(m.reply().text, "203 OK SETTINGS RECEIVED")
        m.speak("<speak>Tenho 21 anos.</speak>")
        got = m.until({"702", "703", "704"})
        self.assertEqual(got[-1].text, "702 END")
        return [s for msg in got if msg.code == "705" for s in msg.samples]

    def test_list_voices_names_each_language(self):
        lines = self.voices.text.split("\n")
        for line in ("200-babble\ten-US\tnone", "200-allison\ten-US\tnone",
                     "200-allison\tpt-BR\tnone"):
            self.assertIn(line, lines)

    def test_a_language_finds_the_bilingual_voice_and_reads_in_it(self):
        by_language = self.spoken("NULL", "pt-BR")
        self.assertGreater(len(by_language), 0)
        self.assertEqual(self.spoken("allison", "pt"), by_language)
        self.assertNotEqual(self.spoken("allison", "en-US"), by_language)
        self.assertNotEqual(self.spoken("NULL", "en-US"), by_language)  # babble, in English


if __name__ == "__main__":
    BUILD = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else
                            os.environ.get("TTS_BUILD_DIR", "build"))
    unittest.main(verbosity=2)
