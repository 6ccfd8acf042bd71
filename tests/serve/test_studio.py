#!/usr/bin/env python3
"""The studio's HTTP routes (`tts serve --studio DIR`), with the real command, a tiny random base
and takes made by `tts say`: every route answers, every refusal says why (bad names, languages and
prompt numbers; not WAV, not 16-bit, stereo, empty, truncated, too short, too long, silent,
clipped; the clip, disk and free-space bounds; a second job while one runs; cancel with no job;
the API key), takes land on disk in the LJSpeech layout, a voice job runs, is cancelled, runs again,
ends with its verdict, and its voice is served at once and by a server started later.

    python3 tests/serve/test_studio.py BUILD_DIR      (ctest runs it as serve_studio)
"""

import io
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_serve  # noqa: E402

PROMPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                       "studio_prompts")


def wav(samples, rate=16000, channels=1, width=2):
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", s) if width == 2 else bytes([s & 255])
                               for s in samples))
    return out.getvalue()


def tone(seconds, amplitude, rate=16000):
    return [int(amplitude * math.sin(2 * math.pi * 220 * i / rate)) for i in range(int(seconds * rate))]


class Client:
    def __init__(self, url, key=None):
        self.url, self.key = url, key

    def call(self, method, path, body=None, content_type="audio/wav"):
        headers = {"Content-Type": content_type}
        if self.key:
            headers["Authorization"] = "Bearer " + self.key
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")


class Studio(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tts-studio-")
        cls.addClassCleanup(cls.tmp.cleanup)
        root = cls.tmp.name
        cls.base = os.path.join(root, "base")
        subprocess.run([test_serve.TTS, "voices", "create-random", cls.base, "--size", "tiny"],
                       check=True, capture_output=True)
        speech = os.path.join(root, "speech.wav")
        subprocess.run([test_serve.TTS, "say", "-o", speech, "The quick brown fox jumps over the "
                        "lazy dog."], check=True, capture_output=True)
        with open(speech, "rb") as f:
            cls.take = f.read()
        cls.dir = os.path.join(root, "studio")
        cls.server = cls.start("--studio", cls.dir, "--studio-max-clip", "4",
                               "--studio-max-clips", "6")
        cls.api = Client(cls.server.url)

    @classmethod
    def start(cls, *args, steps=2000):
        free = () if "--studio-min-free" in args else ("--studio-min-free", "1")
        server = test_serve.Server(
            "--no-wyoming", "--studio-prompts", PROMPTS, "--studio-min-minutes", "0", *free,
            "--studio-create-args",
            f"--base {cls.base} --vocoder {cls.base}/vocoder --steps {steps}", *args)
        cls.addClassCleanup(server.stop)
        return server

    def refused(self, status, answer, words, code):
        self.assertEqual(status, code, answer)
        self.assertIn(words, answer["error"]["message"])

    def test_1_overview_and_session(self):
        status, o = self.api.call("GET", "/v1/studio")
        self.assertEqual(status, 200, o)
        self.assertEqual([l["code"] for l in o["languages"]], ["en", "fr"])
        self.assertEqual(o["limits"]["max_clip_seconds"], 4)
        self.assertEqual(o["job"], {"state": "idle"})
        status, s = self.api.call("GET", "/v1/studio/voices/ann?lang=fr")
        self.assertEqual(status, 200, s)
        self.assertEqual(s["prompt"]["index"], 0)
        self.assertEqual(s["prompts"], 2)
        self.assertEqual(s["minutes_left"], 20)
        self.refused(*self.api.call("GET", "/v1/studio/voices/a%20b"), "not allowed", 400)
        self.refused(*self.api.call("GET", "/v1/studio/voices/..?lang=en"), "not allowed", 400)
        self.refused(*self.api.call("GET", "/v1/studio/voices/ann?lang=xx"), "no prompts", 400)

    def test_2_bad_takes_are_refused(self):
        post = lambda body, q="lang=en&prompt=0": self.api.call(
            "POST", "/v1/studio/voices/bad/takes?" + q, body)
        self.refused(*post(b""), "empty", 400)
        self.refused(*post(b"ID3 this is an mp3"), "not a WAV", 415)
        self.refused(*post(wav(tone(1, 8000), width=1)), "16-bit", 415)
        self.refused(*post(wav(tone(1, 8000) * 2, channels=2)), "channels", 415)
        self.refused(*post(self.take[:30]), "format chunk", 400)
        self.refused(*post(wav(tone(0.2, 8000))), "shorter", 400)
        self.refused(*post(wav(tone(5, 8000))), "longer than the 4 s", 400)
        self.refused(*post(wav([0] * 16000)), "silent", 422)
        self.refused(*post(wav([32767, -32768] * 8000)), "clipped", 422)
        self.refused(*post(self.take, "lang=en&prompt=99"), "not one of the 6", 400)
        self.refused(*post(self.take, "lang=en&prompt=x"), "not a prompt number", 400)
        self.refused(*post(wav(tone(60, 8000), rate=48000) * 2), "too large", 413)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad", "wavs")))

    def test_3_takes_skip_create_and_cancel(self):
        self.refused(*self.api.call("POST", "/v1/studio/voices/ann/create"), "no takes", 400)
        self.refused(*self.api.call("POST", "/v1/studio/job/cancel"), "no voice job", 409)
        status, s = self.api.call("POST", "/v1/studio/voices/ann/skip?lang=en&prompt=0")
        self.assertEqual((status, s["prompt"]["index"]), (200, 1), s)
        for prompt in (1, 2, 3, 4, 5, 0):
            status, s = self.api.call("POST", f"/v1/studio/voices/ann/takes?lang=en&prompt={prompt}",
                                      self.take)
            self.assertEqual(status, 200, s)
        self.assertEqual((s["clips"], s["prompt"]), (6, None))
        self.assertGreater(s["take"]["rms_dbfs"], -40)
        with open(os.path.join(self.dir, "ann", "metadata.csv")) as f:
            rows = [line.rstrip("\n").split("|") for line in f]
        with open(os.path.join(PROMPTS, "en.txt")) as f:
            self.assertEqual(sorted(t for _, t in rows), sorted(l.strip() for l in f if l.strip()))
        for take_id, _ in rows:
            with open(os.path.join(self.dir, "ann", "wavs", take_id + ".wav"), "rb") as f:
                self.assertEqual(f.read(), self.take)
        # The clip bound: a seventh take of another prompt would pass --studio-max-clips 6 (the
        # fr prompts are another language, so the voice keeps en: prompt 0 re-recorded is fine).
        status, s = self.api.call("POST", "/v1/studio/voices/ann/takes?lang=en&prompt=0", self.take)
        self.assertEqual(status, 200, s)

        # A job (2000 steps: long enough to cancel), a second refused, cancelled.
        status, job = self.api.call("POST", "/v1/studio/voices/ann/create")
        self.assertEqual((status, job["state"]), (200, "running"), job)
        self.refused(*self.api.call("POST", "/v1/studio/voices/ann/create"), "one at a time", 409)
        deadline = time.time() + 60
        while self.api.call("GET", "/v1/studio/job")[1].get("stage") != "training":
            self.assertLess(time.time(), deadline, "the job never reached training")
            time.sleep(0.2)
        status, job = self.api.call("POST", "/v1/studio/job/cancel")
        self.assertEqual(status, 200, job)
        while (job := self.api.call("GET", "/v1/studio/job")[1])["state"] == "running":
            time.sleep(0.2)
        self.assertEqual(job["state"], "cancelled", job)
        self.assertTrue(os.path.exists(os.path.join(self.dir, ".work", "ann", "state.json")) or
                        os.listdir(os.path.join(self.dir, ".work", "ann")))

    def test_4_limits_of_disk_and_free_space(self):
        full = self.start("--studio", os.path.join(self.tmp.name, "full"), "--studio-max-disk", "1")
        api = Client(full.url)
        big = wav(tone(20, 8000, rate=24000), rate=24000)  # 0.96 MB: the first fits 1 MB, the second not
        status, answer = api.call("POST", "/v1/studio/voices/v/takes?prompt=0", big)
        self.assertEqual(status, 200, answer)
        self.refused(*api.call("POST", "/v1/studio/voices/v/takes?prompt=1", big),
                     "--studio-max-disk", 507)
        tight = self.start("--studio", os.path.join(self.tmp.name, "tight"),
                           "--studio-min-free", "1000000000")
        api = Client(tight.url)
        self.assertEqual(api.call("POST", "/v1/studio/voices/v/takes?prompt=0", self.take)[0], 200)
        self.refused(*api.call("POST", "/v1/studio/voices/v/create"), "--studio-min-free", 507)

    def test_5_a_job_ends_with_its_verdict_and_the_voice_is_served(self):
        server = self.start("--studio", self.dir, steps=20)  # the same folder: ann's takes
        api = Client(server.url)
        status, job = api.call("POST", "/v1/studio/voices/ann/create")
        self.assertEqual(status, 200, job)
        started = time.time()
        while (job := api.call("GET", "/v1/studio/job")[1])["state"] == "running":
            self.assertLess(time.time() - started, 120)
            time.sleep(0.3)
        self.assertEqual(job["state"], "done", job)
        self.assertIn(job["result"]["verdict"], ("PASS", "FAIL"))
        status, voices = api.call("GET", "/v1/audio/voices")
        self.assertIn("ann", [v["id"] for v in voices["voices"]])
        code, _, audio = server.post({"input": "Hello there.", "voice": "ann",
                                      "response_format": "wav"})
        self.assertEqual(code, 200)
        self.assertGreater(len(audio), 1000)
        # A server started on the folder later serves the voices made there.
        again = self.start("--studio", self.dir)
        status, voices = Client(again.url).call("GET", "/v1/audio/voices")
        self.assertIn("ann", [v["id"] for v in voices["voices"]])

    def test_6_api_key(self):
        keyed = self.start("--studio", os.path.join(self.tmp.name, "keyed"), "--api-key", "k1")
        for method, path in (("GET", "/v1/studio"), ("GET", "/v1/studio/voices/v"),
                             ("POST", "/v1/studio/voices/v/takes?prompt=0"),
                             ("POST", "/v1/studio/voices/v/skip?prompt=0"),
                             ("POST", "/v1/studio/voices/v/create"), ("GET", "/v1/studio/job"),
                             ("POST", "/v1/studio/job/cancel")):
            self.assertEqual(Client(keyed.url).call(method, path, b"")[0], 401, path)
        self.assertEqual(Client(keyed.url, "k1").call("GET", "/v1/studio")[0], 200)

    def test_7_no_studio_without_the_option(self):
        plain = test_serve.Server("--no-wyoming")
        self.addCleanup(plain.stop)
        self.assertEqual(Client(plain.url).call("GET", "/v1/studio")[0], 404)
        self.assertFalse(Client(plain.url).call("GET", "/health")[1]["studio"])
        self.assertTrue(self.api.call("GET", "/health")[1]["studio"])


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        test_serve.BUILD = args.pop(0)
        test_serve.TTS = os.path.join(test_serve.BUILD, "tools", "tts")
    unittest.main(argv=[sys.argv[0], *args], verbosity=2)
