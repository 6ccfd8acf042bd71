#!/usr/bin/env python3
"""Which voices `tts serve` serves, with the real command: without --voice every voice on the
search path (`default` first), a broken one skipped with a warning, `--voice` narrowing it,
`--voices-dir` adding a folder, and SIGHUP serving the voices made since, over HTTP and Wyoming.

    python3 tests/serve/test_serve_voices.py BUILD_DIR      (ctest runs it as serve_voices)
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if len(sys.argv) > 1:
    os.environ["TTS_BUILD_DIR"] = sys.argv.pop(1)
import test_serve  # noqa: E402  (after TTS_BUILD_DIR is set)

TTS = test_serve.TTS


def random_voice(folder):
    subprocess.run([TTS, "voices", "create-random", folder, "--size", "tiny"], check=True,
                   capture_output=True)


def served_names(server):
    status, body = server.get("/v1/audio/voices")
    assert status == 200, body
    return [v["id"] for v in json.loads(body)["voices"]]


def wyoming_names(server):
    r = subprocess.run([sys.executable, os.path.join(HERE, "wyoming_client.py"), "--port",
                        str(server.wyoming), "--describe"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return [v["name"] for v in json.loads(r.stdout)["tts"][0]["voices"]]


class ServedVoices(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tts-serve-voices-")
        self.path_dir = os.path.join(self.dir, "path")
        os.makedirs(self.path_dir)
        # A home of its own, so that the tester's own voices are not served.
        self.env = dict(os.environ, HOME=self.dir, XDG_DATA_HOME=os.path.join(self.dir, "data"),
                        TTS_VOICE_PATH=self.path_dir)
        self.servers = []

    def tearDown(self):
        for server in self.servers:
            server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def serve(self, *args):
        server = test_serve.Server("--workers", "1", *args, env=self.env)
        self.servers.append(server)
        return server

    def test_every_voice_found_is_served_default_first_and_a_broken_one_skipped(self):
        random_voice(os.path.join(self.path_dir, "aaa-first-by-name"))
        random_voice(os.path.join(self.path_dir, "zed"))
        broken = os.path.join(self.path_dir, "broken")
        os.makedirs(broken)
        with open(os.path.join(broken, "voice.json"), "w") as f:
            f.write("{ not json")
        server = self.serve()
        names = served_names(server)
        self.assertEqual(names[0], "default")  # the bundled voice, found on the search path
        self.assertIn("aaa-first-by-name", names)
        self.assertIn("zed", names)
        self.assertNotIn("broken", names)
        self.assertTrue(any("broken" in line and "not served" in line for line in server.log),
                        "".join(server.log))
        self.assertEqual(wyoming_names(server), names)
        status, _, audio = server.post({"model": "tts-1", "input": "Hi.", "voice": "zed",
                                        "response_format": "wav"})
        self.assertEqual(status, 200)
        self.assertGreater(len(audio), 44)

    def test_voice_narrows_and_voices_dir_adds(self):
        extra = os.path.join(self.dir, "extra")
        random_voice(os.path.join(self.path_dir, "not-asked-for"))
        random_voice(os.path.join(extra, "from-dir"))
        server = self.serve("--voice", "default", "--voices-dir", extra)
        self.assertEqual(served_names(server), ["default", "from-dir"])

    def test_sighup_serves_the_voices_made_since(self):
        server = self.serve()
        before = served_names(server)
        self.assertNotIn("newcomer", before)
        random_voice(os.path.join(self.path_dir, "newcomer"))
        server.proc.send_signal(signal.SIGHUP)
        deadline = time.time() + 60
        while time.time() < deadline and "newcomer" not in served_names(server):
            time.sleep(0.2)
        self.assertEqual(served_names(server), before + ["newcomer"])
        self.assertIn("newcomer", wyoming_names(server))
        self.assertTrue(any("reload: 1 voice(s) added newcomer" in line for line in server.log),
                        "".join(server.log))
        # A second reload finds nothing new, and the server keeps serving.
        server.proc.send_signal(signal.SIGHUP)
        time.sleep(1)
        self.assertIsNone(server.proc.poll())
        self.assertEqual(served_names(server), before + ["newcomer"])
        self.assertEqual(server.stop(), 0)

    def test_a_named_voice_that_does_not_load_stops_the_start_naming_it(self):
        broken = os.path.join(self.path_dir, "broken")
        os.makedirs(broken)
        with open(os.path.join(broken, "voice.json"), "w") as f:
            f.write("{ not json")
        r = subprocess.run([TTS, "serve", "--port", "0", "--no-wyoming", "--voice", "broken"],
                           capture_output=True, text=True, env=self.env, timeout=60)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("voice.json", r.stderr)


if __name__ == "__main__":
    unittest.main()
