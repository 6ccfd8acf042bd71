#!/usr/bin/env python3
"""`tts serve` end to end, as its users meet it: the real command with the bundled voice, on
localhost, and real clients nobody here wrote (curl; the official `openai` npm package) beside one
written from the Wyoming documentation (wyoming_client.py). Then what a hostile or crowded network
does: malformed HTTP, more clients than workers, a stop signal in mid-stream.

    python3 tests/serve/test_serve.py BUILD_DIR      (ctest runs it as serve_end_to_end)

The openai client is installed by scripts/install-node-clients (npm); without Node.js those
tests are skipped with the reason.
"""

import concurrent.futures
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("TTS_BUILD_DIR", os.path.join(ROOT, "build"))
TTS = os.path.join(BUILD, "tools", "tts")


class Server:
    """`tts serve` on free ports; the ports are read from what it prints when it is listening."""

    def __init__(self, *args, env=None):
        self.proc = subprocess.Popen(
            [TTS, "serve", "--port", "0", "--wyoming-port", "0", *args],
            stderr=subprocess.PIPE, text=True, env=env)
        self.log = []
        self.http = self.wyoming = None
        deadline = time.time() + 120
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError("tts serve exited: " + "".join(self.log))
            self.log.append(line)
            if m := re.search(r"HTTP on http://(\[[^]]+\]|[^:]+):(\d+)", line):
                self.http = int(m.group(2))
            if m := re.search(r"Wyoming on tcp://(\[[^]]+\]|[^:]+):(\d+)", line):
                self.wyoming = int(m.group(2))
            if "tts serve: voices:" in line:  # printed once every listener is up
                break
        threading.Thread(target=self._drain, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http}"

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def post(self, body, timeout=120, headers=None):
        request = urllib.request.Request(
            self.url + "/v1/audio/speech", data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def get(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()


def wav_seconds(path):
    with wave.open(path, "rb") as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2, path
        frames = len(w.readframes(1 << 30)) // 2  # the header's size says "to the end"
        return frames / w.getframerate()


def raw_exchange(port, data, timeout=10):
    """Sends raw bytes and returns what comes back until the server closes or goes quiet."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may hang up mid-send; its answer is what matters
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except (socket.timeout, ConnectionResetError):
            pass
        return out


class ServeEndToEnd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tts-serve-e2e-")
        cls.server = Server("--workers", "2", "--queue", "2")

    @classmethod
    def tearDownClass(cls):
        rc = cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert rc == 0, f"tts serve exited {rc} after SIGTERM: {''.join(cls.server.log)}"

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_curl_gets_a_wav_file(self):
        out = self.path("curl.wav")
        body = json.dumps({"model": "tts-1", "input": "Hello from the server.", "voice": "alloy",
                           "response_format": "wav"})
        subprocess.run(["curl", "-sS", "--fail", "-o", out, "-H", "Content-Type: application/json",
                        "-d", body, self.server.url + "/v1/audio/speech"], check=True, timeout=120)
        self.assertGreater(wav_seconds(out), 0.6)

    def test_the_openai_npm_client_writes_a_valid_file(self):
        if not shutil.which("node") or not os.path.isdir(os.path.join(HERE, "node_modules", "openai")):
            self.skipTest("the openai npm package is not installed (scripts/install-node-clients)")
        script = os.path.join(HERE, "openai_speech.mjs")
        out = self.path("openai.wav")
        r = subprocess.run(["node", script, self.server.url + "/v1", out, "wav",
                            "The quick brown fox jumps over the lazy dog."],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(json.loads(r.stdout)["type"], "audio/wav")
        self.assertGreater(wav_seconds(out), 1.0)
        # FLAC through the same client.
        r = subprocess.run(["node", script, self.server.url + "/v1", self.path("openai.flac"),
                            "flac", "Two words."], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(self.path("openai.flac"), "rb") as f:
            self.assertEqual(f.read(4), b"fLaC")
        # A request the server refuses reaches the client as OpenAI's error, with its status.
        r = subprocess.run(["node", script, self.server.url + "/v1", self.path("x.aac"), "aac",
                            "Hello."], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"], 400)
        self.assertIn("response_format", json.loads(r.stdout)["message"])

    def test_wyoming_describe_synthesize_and_stream(self):
        client = [sys.executable, os.path.join(HERE, "wyoming_client.py"), "--port",
                  str(self.server.wyoming)]
        r = subprocess.run(client + ["--describe"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        info = json.loads(r.stdout)
        self.assertTrue(info["tts"][0]["supports_synthesize_streaming"])
        self.assertEqual(info["tts"][0]["voices"][0]["name"], "default")
        out = self.path("wyoming.wav")
        r = subprocess.run(client + ["--text", "Turn on the kitchen light.", "-o", out],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(wav_seconds(out), 0.8)
        out = self.path("wyoming-stream.wav")
        r = subprocess.run(client + ["--stream", "--text", "It is sunny. It is warm.", "-o", out],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(wav_seconds(out), 0.8)

    def test_malformed_http_gets_4xx_and_the_server_keeps_serving(self):
        port = self.server.http
        cases = {
            "garbage request line": b"\x00\xff GARBAGE\r\n\r\n",
            "header over 8 KiB": b"GET /health HTTP/1.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n",
            "body over the limit": b"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n"
                                   b"Content-Length: 99999999\r\n\r\n{",
            "bad chunk size": b"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\nZZZ\r\n{}\r\n0\r\n\r\n",
            "truncated body": b"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n"
                              b"Content-Length: 100\r\n\r\n{\"input\":",
            "JSON that is not an object": b"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n"
                                          b"Content-Length: 5\r\n\r\n[1,2]",
        }
        for name, data in cases.items():
            with self.subTest(name):
                reply = raw_exchange(port, data)
                if reply:  # an answer must be a 4xx; closing without one is also fine
                    status = int(reply.split(b" ", 2)[1])
                    self.assertTrue(400 <= status < 500, reply[:200])
                self.assertEqual(self.server.get("/health")[0], 200)
        status, _, body = self.server.post({"input": "Still here.", "response_format": "pcm"})
        self.assertEqual(status, 200)
        self.assertGreater(len(body), 8000)

    def test_voices_models_and_metrics(self):
        status, body = self.server.get("/v1/audio/voices")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["voices"][0]["id"], "default")
        status, body = self.server.get("/v1/models")
        self.assertEqual(status, 200)
        status, body = self.server.get("/metrics")
        self.assertEqual(status, 200)
        self.assertIn(b"tts_queue_depth", body)
        self.assertIn(b"tts_real_time_factor", body)


class ServeUnderLoad(unittest.TestCase):
    def test_more_clients_than_places_get_503_not_timeouts(self):
        # The queued request waits as long as the running one takes (slow in sanitizer builds).
        server = Server("--workers", "1", "--queue", "1", "--queue-timeout", "300", "--no-wyoming")
        try:
            def one(_):
                start = time.time()
                status, headers, body = server.post(
                    {"input": "A short busy sentence.", "response_format": "pcm"}, timeout=120)
                return status, headers.get("Retry-After"), len(body), time.time() - start
            with concurrent.futures.ThreadPoolExecutor(16) as pool:
                results = list(pool.map(one, range(16)))
            statuses = [r[0] for r in results]
            self.assertEqual(set(statuses) - {200, 503}, set(), statuses)
            # One runs, one waits for it; the other 14 are refused. (A client's request can reach the
            # server after the first two have finished, and then be served: hence "at least".)
            self.assertGreaterEqual(statuses.count(200), 2, statuses)
            self.assertGreaterEqual(statuses.count(503), 8, statuses)
            for status, retry, size, seconds in results:
                if status == 503:
                    self.assertEqual(retry, "1")
                    self.assertLess(seconds, 5.0)  # refused at once, not after a wait
                else:
                    self.assertGreater(size, 8000)
        finally:
            self.assertEqual(server.stop(), 0)

    def test_sigterm_mid_stream_exits_0(self):
        server = Server("--no-wyoming", "--drain-timeout", "1")
        got = {}

        def long_request():
            request = urllib.request.Request(
                server.url + "/v1/audio/speech",
                data=json.dumps({"input": "This is a long text that keeps going. " * 30,
                                 "response_format": "pcm"}).encode(),
                headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=60) as r:
                    got["first"] = r.read(1000)
                    got["rest"] = r.read()
            except Exception as e:  # a cancelled stream ends as a truncated transfer
                got["error"] = repr(e)
        t = threading.Thread(target=long_request)
        t.start()
        deadline = time.time() + 60
        while "first" not in got and time.time() < deadline and t.is_alive():
            time.sleep(0.05)
        self.assertIn("first", got, got)
        start = time.time()
        self.assertEqual(server.stop(), 0, "".join(server.log))
        self.assertLess(time.time() - start, 10)
        t.join(30)
        self.assertFalse(t.is_alive())
        self.assertIn("stopped", "".join(server.log))


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BUILD = sys.argv.pop(1)
        TTS = os.path.join(BUILD, "tools", "tts")
    unittest.main(verbosity=2)
