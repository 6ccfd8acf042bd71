"""Tests of the Python package (python/tts) over libtts, with the bundled voice.

Run by CTest (python_package) with PYTHONPATH=python, TTS_LIBRARY=the built libtts.so,
TTS_TEST_VOICE=voices/default and TTS_COMMAND=the built tts command; by hand:

    PYTHONPATH=python TTS_LIBRARY=build/engine/libtts.so python3 -m unittest tests/python/test_tts.py
"""

import array
import gc
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import wave

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
if "TTS_LIBRARY" not in os.environ and os.path.exists(os.path.join(ROOT, "build/engine/libtts.so")):
    os.environ["TTS_LIBRARY"] = os.path.join(ROOT, "build/engine/libtts.so")

import tts  # noqa: E402

VOICE = os.environ.get("TTS_TEST_VOICE", os.path.join(ROOT, "voices", "default"))
TEXT = "Hi there. Bye."
SEED = 11


def floats(samples):
    return list(samples) if isinstance(samples, array.array) else samples.tolist()


def os_threads():
    return len(os.listdir("/proc/self/task"))


def read_wav(path):
    with wave.open(path, "rb") as w:
        params = (w.getnchannels(), w.getsampwidth(), w.getframerate())
        frames = w.readframes(w.getnframes())
    pcm = array.array("h")
    pcm.frombytes(frames)
    if sys.byteorder == "big":
        pcm.byteswap()
    return params, pcm


class VoiceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.voice = tts.Voice.load(VOICE)
        cls.chunks = list(cls.voice.synthesize(TEXT, seed=SEED))
        cls.audio = [x for c in cls.chunks for x in floats(c.samples)]

    @classmethod
    def tearDownClass(cls):
        cls.voice.close()

    def test_the_language_option_must_be_one_the_voice_speaks(self):
        english = [x for c in self.voice.synthesize(TEXT, seed=SEED, language="en")
                   for x in floats(c.samples)]
        self.assertEqual(english, self.audio)
        with self.assertRaises(tts.TtsError) as caught:
            list(self.voice.synthesize(TEXT, language="es-MX"))
        self.assertEqual(caught.exception.status, tts.Status.INVALID_ARGUMENT)
        self.assertIn('language "es-MX"', str(caught.exception))
        with self.assertRaises(TypeError):
            self.voice.synthesize(TEXT, language=5)

    def test_an_empty_language_tag_or_one_with_a_nul_is_refused(self):
        # Not the voice's own language (None is), and "es\0garbage" is not "es": the C API's
        # message for the empty tag, the same words for the NUL that ctypes cannot pass on.
        for tag, message in (("", 'language tag "" is empty'),
                             ("en\x00garbage", 'language tag "en\\x00garbage" holds a NUL')):
            with self.assertRaises(tts.TtsError) as caught:
                list(self.voice.synthesize(TEXT, language=tag))
            self.assertEqual(caught.exception.status, tts.Status.INVALID_ARGUMENT)
            self.assertIn(message, str(caught.exception))

    def test_info(self):
        info = self.voice.info
        self.assertEqual(info.name, "default")
        self.assertEqual(info.language, "en-us")
        self.assertEqual(info.sample_rate, 16000)
        self.assertTrue(info.licence)
        self.assertEqual(os.path.realpath(info.path), os.path.realpath(VOICE))
        self.assertGreater(info.size_bytes, 0)
        self.assertRegex(tts.version(), r"^\d+\.\d+\.\d+")

    def test_load_by_name_from_the_search_path(self):
        old = os.environ.get("TTS_VOICE_PATH")
        os.environ["TTS_VOICE_PATH"] = os.path.dirname(os.path.abspath(VOICE))
        try:
            with tts.Voice.load(os.path.basename(VOICE)) as v:
                self.assertEqual(v.info.name, "default")
        finally:
            if old is None:
                del os.environ["TTS_VOICE_PATH"]
            else:
                os.environ["TTS_VOICE_PATH"] = old

    def test_list_voices_and_the_search_path(self):
        old = os.environ.get("TTS_VOICE_PATH")
        with tempfile.TemporaryDirectory() as d:
            os.symlink(os.path.abspath(VOICE), os.path.join(d, "mine"))
            os.mkdir(os.path.join(d, "broken"))
            with open(os.path.join(d, "broken", "voice.json"), "w") as f:
                f.write("{")
            os.environ["TTS_VOICE_PATH"] = d
            try:
                path = tts.voice_search_path()
                voices = tts.list_voices()
            finally:
                if old is None:
                    del os.environ["TTS_VOICE_PATH"]
                else:
                    os.environ["TTS_VOICE_PATH"] = old
        self.assertEqual(os.path.realpath(path[0]), os.path.realpath(d))
        self.assertGreater(len(path), 1)
        mine = {v.name: v for v in voices if os.path.dirname(v.path.rstrip("/")) == d}
        self.assertEqual(set(mine), {"mine", "broken"})
        self.assertEqual(mine["mine"].language, "en-us")
        self.assertEqual(mine["mine"].sample_rate, 16000)
        self.assertIsNone(mine["mine"].error)
        self.assertTrue(mine["broken"].error)
        self.assertEqual(mine["broken"].sample_rate, 0)

    def test_chunks_carry_the_sentences(self):
        self.assertGreater(len(self.chunks), 2)
        self.assertEqual(self.chunks[0].sample_rate, 16000)
        self.assertLessEqual(len(self.chunks[0].samples), 256)  # first audio comes early
        self.assertEqual([c.is_last for c in self.chunks], [False] * (len(self.chunks) - 1) + [True])
        self.assertEqual(sorted({c.sentence_index for c in self.chunks}), [0, 1])
        self.assertEqual({c.sentence for c in self.chunks}, {"Hi there.", "Bye."})
        for c in self.chunks:
            self.assertTrue(c.phonemes)
            self.assertEqual(c.marks, [])
        if tts._np is not None:
            self.assertEqual(str(self.chunks[0].samples.dtype), "float32")

    def test_alignment_tiles_each_sentence(self):
        # With no silence after the sentence its spans tile all of its audio.
        chunks = list(self.voice.synthesize("Bye.", seed=SEED, sentence_silence=0))
        spans = chunks[0].alignment
        self.assertTrue(all(c.alignment == spans for c in chunks))
        self.assertEqual(spans[0].symbol, "^")
        self.assertEqual(spans[-1].symbol, "$")
        self.assertEqual(spans[0].start, 0)
        for a, b in zip(spans, spans[1:]):
            self.assertEqual(a.end, b.start)
            self.assertLessEqual(a.start, a.end)
        self.assertEqual(spans[-1].end, sum(len(c.samples) for c in chunks))
        offset = 0
        for c in chunks:
            self.assertEqual(c.sentence_offset, offset)
            offset += len(c.samples)
        # In the two-sentence text every sentence's spans start at its first sample and end
        # before its audio plus the silence after it does.
        for index in (0, 1):
            mine = [c for c in self.chunks if c.sentence_index == index]
            spans = mine[0].alignment
            self.assertEqual(spans[0].start, 0)
            self.assertLessEqual(spans[-1].end, sum(len(c.samples) for c in mine))
            symbol, start, end = spans[1]  # spans are tuples too
            self.assertEqual((symbol, start, end), (spans[1].symbol, spans[1].start, spans[1].end))

    def test_the_same_audio_as_the_tts_command(self):
        command = os.environ.get("TTS_COMMAND", os.path.join(ROOT, "build/tools/tts"))
        if not os.access(command, os.X_OK):
            self.skipTest("no tts command (set TTS_COMMAND)")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "say.wav")
            subprocess.run([command, "say", "--voice", VOICE, "--seed", str(SEED), "-o", out, TEXT],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            (channels, width, rate), pcm = read_wav(out)
        self.assertEqual((channels, width, rate), (1, 2, 16000))
        self.assertEqual(len(pcm), len(self.audio))
        worst = max(abs(p / 32767.0 - min(1.0, max(-1.0, x))) for p, x in zip(pcm, self.audio))
        self.assertLess(worst, 2.5 / 32767.0)

    def test_same_seed_same_audio_whatever_the_chunk_size_and_without_numpy(self):
        # Without numpy the samples are array('f'), and they are the same numbers.
        saved = tts._np
        tts._np = None
        try:
            again = list(self.voice.synthesize(TEXT, seed=SEED, chunk_samples=700))
        finally:
            tts._np = saved
        self.assertIsInstance(again[0].samples, array.array)
        self.assertEqual(again[0].samples.typecode, "f")
        self.assertTrue(all(len(c.samples) <= 700 for c in again))
        self.assertEqual([x for c in again for x in c.samples], self.audio)

    def test_synthesize_wav(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.wav")
            n = self.voice.synthesize_wav(TEXT, path, seed=SEED)
            self.assertEqual(os.listdir(d), ["out.wav"])  # no temporary left behind
            (channels, width, rate), pcm = read_wav(path)
            self.assertEqual((channels, width, rate), (1, 2, 16000))
            self.assertEqual(n, len(pcm))
            self.assertEqual(n, len(self.audio))
            worst = max(abs(p / 32767.0 - min(1.0, max(-1.0, x))) for p, x in zip(pcm, self.audio))
            self.assertLessEqual(worst, 0.5 / 32767.0 + 1e-7)
            # A failure leaves neither the file nor a temporary.
            bad = os.path.join(d, "bad.wav")
            with self.assertRaises(tts.TtsError):
                self.voice.synthesize_wav(b"\xff\xfe", bad)
            self.assertEqual(os.listdir(d), ["out.wav"])

    def test_ssml(self):
        chunks = list(self.voice.synthesize(
            '<speak>Hi.<break time="100ms"/><prosody rate="fast">Bye.</prosody></speak>',
            ssml=True, seed=SEED))
        pauses = [c for c in chunks if c.sentence_index == -1]
        self.assertTrue(pauses)
        self.assertEqual(sum(len(c.samples) for c in pauses), 1600)
        self.assertTrue(all(c.sentence == "" and c.alignment == [] for c in pauses))
        self.assertEqual({c.sentence for c in chunks if c.sentence_index >= 0}, {"Hi.", "Bye."})
        with self.assertRaises(tts.TtsError) as e:
            list(self.voice.synthesize("<speak>Hi <break", ssml=True))
        self.assertEqual(e.exception.status, tts.Status.BAD_INPUT)

    def test_ssml_marks(self):
        chunks = list(self.voice.synthesize(
            '<speak><mark name="start"/>Hi <mark name="word"/>there.<mark name="end"/></speak>',
            ssml=True, seed=SEED, chunk_samples=512))
        marks, before = [], 0
        for c in chunks:
            for m in c.marks:
                self.assertLessEqual(m.sample, len(c.samples))
                self.assertEqual(m.stream_sample, before + m.sample)
                marks.append(m)
            before += len(c.samples)
        self.assertEqual([m.name for m in marks], ["start", "word", "end"])
        name, sample, stream_sample = marks[1]  # marks are tuples too
        self.assertEqual(name, "word")
        # A mark before a word falls where the word's first symbol starts in the alignment.
        spans = chunks[0].alignment
        k = [s.symbol for s in spans].index(" ") + 1
        self.assertEqual(stream_sample, spans[k].start)
        self.assertEqual(marks[2].stream_sample, before)  # at the very end: sample == count
        self.assertTrue(chunks[-1].is_last)

    def test_errors_carry_the_c_status_and_message(self):
        with self.assertRaises(tts.TtsError) as e:
            tts.Voice.load(os.path.join(ROOT, "no-such-voice-here/"))
        self.assertEqual(e.exception.status, tts.Status.NOT_FOUND)
        self.assertEqual(int(e.exception.status), -2)
        self.assertEqual(e.exception.status.c_name, "TTS_ERR_NOT_FOUND")
        self.assertIn("no-such-voice-here", e.exception.message)
        self.assertIn("TTS_ERR_NOT_FOUND", str(e.exception))

        with self.assertRaises(tts.TtsError) as e:
            tts.Voice.load("no-such-voice-name")
        self.assertEqual(e.exception.status, tts.Status.NOT_FOUND)

        # A NUL would end the name where C reads it: refused, not loaded as the part before it.
        for name in (VOICE + "\0/../../etc", "default\0x", os.fsencode(VOICE) + b"\0"):
            with self.assertRaises(tts.TtsError, msg=repr(name)) as e:
                tts.Voice.load(name)
            self.assertEqual(e.exception.status, tts.Status.INVALID_ARGUMENT)
            self.assertIn("NUL", e.exception.message)

        for options in ({"rate": 0}, {"rate": 11}, {"pitch_semitones": 30}, {"chunk_samples": 0},
                        {"threads": 0}, {"seed": -1}, {"seed": 2 ** 64}, {"threads": 2 ** 31}):
            with self.assertRaises(tts.TtsError, msg=str(options)) as e:
                self.voice.synthesize("Hi.", **options)  # raised at the call, before any chunk
            self.assertEqual(e.exception.status, tts.Status.INVALID_ARGUMENT, options)
            self.assertTrue(e.exception.message, options)

        with self.assertRaises(tts.TtsError) as e:
            list(self.voice.synthesize(b"Hi \xff\xfe there."))  # invalid UTF-8
        self.assertEqual(e.exception.status, tts.Status.BAD_INPUT)
        self.assertIn("UTF-8", e.exception.message)
        with self.assertRaises(tts.TtsError) as e:
            list(self.voice.synthesize("Hi \ud800 there."))  # a lone surrogate is no UTF-8 either
        self.assertEqual(e.exception.status, tts.Status.BAD_INPUT)

        with self.assertRaises(TypeError):
            self.voice.synthesize("Hi.", speed=2)
        with self.assertRaises(tts.TtsError) as e:
            tts.Voice.load(VOICE, device="tpu")
        self.assertEqual(e.exception.status, tts.Status.INVALID_ARGUMENT)

    def test_closing_early_cancels_and_frees_the_stream(self):
        long_text = " ".join(["This sentence is long enough to keep the vocoder busy."] * 20)
        before = os_threads()
        s = self.voice.synthesize(long_text, seed=SEED)
        first = next(s)
        self.assertGreater(len(first.samples), 0)
        self.assertGreater(os_threads(), before)  # the stream's frontend and vocoder threads
        t = time.monotonic()
        s.close()
        self.assertLess(time.monotonic() - t, 5.0)
        self.assertTrue(s.closed)
        self.assertEqual(os_threads(), before)
        self.assertEqual(list(s), [])
        s.close()  # idempotent

        # Breaking out of a for loop drops the iterator, which frees it too.
        for chunk in self.voice.synthesize(long_text, seed=SEED):
            break
        del chunk
        gc.collect()
        self.assertEqual(os_threads(), before)

    def test_cancel_from_another_thread(self):
        long_text = " ".join(["This sentence is long enough to keep the vocoder busy."] * 20)
        with self.voice.synthesize(long_text, seed=SEED) as s:
            next(s)
            threading.Timer(0.2, s.cancel).start()
            with self.assertRaises(tts.TtsError) as e:
                for _ in s:
                    pass
            self.assertEqual(e.exception.status, tts.Status.CANCELLED)
            self.assertTrue(s.closed)

    def test_a_closed_voice(self):
        v = tts.Voice.load(VOICE)
        s = v.synthesize("Hi.", seed=SEED, sentence_silence=0)
        v.close()  # the running synthesis keeps the voice's data alive
        self.assertGreater(sum(len(c.samples) for c in s), 0)
        with self.assertRaises(tts.TtsError) as e:
            v.synthesize("Hi.")
        self.assertEqual(e.exception.status, tts.Status.INVALID_ARGUMENT)
        v.close()


class DefaultsTest(unittest.TestCase):
    def test_synthesis_defaults_mirror_the_options_struct(self):
        d = tts.synthesis_defaults()
        self.assertEqual(set(d), {"rate", "pitch_semitones", "volume", "sentence_silence", "seed",
                                  "temperature", "threads", "ssml", "chunk_samples", "language"})
        self.assertIsNone(d["language"])
        self.assertEqual(d["rate"], 1.0)
        self.assertEqual(d["ssml"], False)
        self.assertEqual(d["chunk_samples"], 2048)

    def test_the_ctypes_declarations_mirror_tts_h(self):
        import ctypes
        import re
        from tts import _capi
        header = os.environ.get("TTS_HEADER", os.path.join(ROOT, "engine/include/tts/tts.h"))
        with open(header, encoding="utf-8") as f:
            source = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        scalars = {"size_t": ctypes.c_size_t, "int": ctypes.c_int, "float": ctypes.c_float,
                   "uint64_t": ctypes.c_uint64, "const char*": ctypes.c_char_p}
        structs = re.findall(r"typedef struct (\w+) \{(.*?)\} \1;", source, flags=re.S)
        self.assertGreaterEqual(len(structs), 6)
        for name, body in structs:
            ours = getattr(_capi, name)._fields_
            theirs = [re.match(r"\s*(.*?)\s*(\w+)$", d.strip()).groups()
                      for d in body.split(";") if d.strip()]
            self.assertEqual([n for n, _ in ours], [n for _, n in theirs], name)
            for (field, ctype), (ctext, _) in zip(ours, theirs):
                ctext = ctext.replace(" *", "*")
                if ctext in scalars:
                    expected = scalars[ctext]
                else:
                    pointee = re.fullmatch(r"const (\w+)\*", ctext).group(1)
                    expected = ctypes.POINTER(scalars.get(pointee) or getattr(_capi, pointee))
                self.assertIs(ctype, expected, f"{name}.{field}: {ctext}")
        # "TTS_API void(tts_chunk_init)(…)": a name in parentheses is one the header also defines as
        # a macro.
        functions = set(re.findall(r"TTS_API [^;(]*?\(?\b(tts_\w+)\)?\(", source))
        self.assertGreater(len(functions), 15)
        # The callback form is left out on purpose (the iterator pulls; docs/python.md).
        self.assertEqual(functions - {"tts_synthesize"}, set(_capi.FUNCTIONS))


if __name__ == "__main__":
    unittest.main()
