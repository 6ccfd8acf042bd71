#!/usr/bin/env python3
"""How `tts serve` starts, or refuses to: a port another process listens on, an API key that is
empty (an unset variable) or comes from a file or the environment, an IPv6 address in the URL it
prints, a timeout that is not a number.

    python3 tests/serve/test_serve_startup.py BUILD_DIR      (ctest runs it as serve_startup)
"""

import os
import socket
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_serve  # noqa: E402  (the build folder is set below, before any server starts)
from test_serve import Server  # noqa: E402


def run_tts(*args, env=None, timeout=30):
    """`tts ARGS`: its exit code and stderr; a server that starts instead of refusing is killed
    at `timeout` and reported as None."""
    proc = subprocess.Popen([test_serve.TTS, *args], stderr=subprocess.PIPE, text=True, env=env)
    try:
        _, err = proc.communicate(timeout=timeout)
        return proc.returncode, err
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        return None, err


def status_of(url, key=None):
    headers = {"Authorization": "Bearer " + key} if key else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def without_key_env():
    env = dict(os.environ)
    env.pop("TTS_API_KEY", None)
    return env


class StartUp(unittest.TestCase):
    def test_a_port_another_process_listens_on_is_refused(self):
        server = Server("--no-wyoming")
        try:
            code, err = run_tts("serve", "--port", str(server.http), "--no-wyoming", timeout=20)
            self.assertEqual(code, 1, err)
            self.assertIn(f"127.0.0.1:{server.http}", err)
            self.assertIn("in use by another process", err)
            self.assertEqual(status_of(server.url + "/health"), 200)  # the first serves on
        finally:
            server.stop()
        server = Server()
        try:
            code, err = run_tts("serve", "--port", "0", "--wyoming-port", str(server.wyoming),
                                timeout=20)
            self.assertEqual(code, 1, err)
            self.assertIn("in use by another process", err)
        finally:
            server.stop()

    def test_an_empty_api_key_is_a_usage_error_from_any_source(self):
        env = without_key_env()
        with tempfile.TemporaryDirectory() as folder:
            blank = os.path.join(folder, "blank")
            with open(blank, "w") as f:
                f.write(" \n")
            cases = [
                (["--api-key", ""], env),
                (["--api-key", "  "], env),
                (["--api-key-file", blank], env),
                ([], {**env, "TTS_API_KEY": ""}),
                (["--api-key", "a", "--api-key-file", blank], env),
            ]
            for args, case_env in cases:
                with self.subTest(args=args, env=case_env.get("TTS_API_KEY")):
                    code, err = run_tts("serve", "--port", "0", "--no-wyoming", *args,
                                        env=case_env, timeout=20)
                    self.assertEqual(code, 2, err)
                    self.assertIn("tts serve:", err)
            code, err = run_tts("serve", "--port", "0", "--no-wyoming", "--api-key-file",
                                os.path.join(folder, "missing"), env=env, timeout=20)
            self.assertEqual(code, 3, err)
            self.assertIn("missing", err)

    def test_the_key_from_a_file_or_the_environment(self):
        env = without_key_env()
        with tempfile.TemporaryDirectory() as folder:
            key_file = os.path.join(folder, "key")
            with open(key_file, "w") as f:
                f.write("sesame\n")
            for args, server_env in [(["--api-key-file", key_file], env),
                                     ([], {**env, "TTS_API_KEY": "sesame"}),
                                     # --api-key-file over the environment
                                     (["--api-key-file", key_file],
                                      {**env, "TTS_API_KEY": "other"})]:
                with self.subTest(args=args):
                    server = Server("--no-wyoming", *args, env=server_env)
                    try:
                        url = server.url + "/v1/models"
                        self.assertEqual(status_of(url), 401)
                        self.assertEqual(status_of(url, "other"), 401)
                        self.assertEqual(status_of(url, "sesame"), 200)
                    finally:
                        server.stop()

    def test_an_ipv6_address_is_printed_in_brackets(self):
        try:
            with socket.socket(socket.AF_INET6) as s:
                s.bind(("::1", 0))
        except OSError:
            self.skipTest("no IPv6 loopback here")
        server = Server("--host", "::1")
        try:
            log = "".join(server.log)
            self.assertIn(f"HTTP on http://[::1]:{server.http}\n", log)
            self.assertIn(f"Wyoming on tcp://[::1]:{server.wyoming}\n", log)
            self.assertEqual(status_of(f"http://[::1]:{server.http}/health"), 200)
        finally:
            server.stop()

    def test_a_timeout_that_is_not_a_number_is_a_usage_error(self):
        for option in ["--read-timeout", "--keep-alive-timeout", "--request-timeout",
                       "--queue-timeout", "--drain-timeout"]:
            for value in ["nan", "inf"]:
                with self.subTest(option=option, value=value):
                    code, err = run_tts("serve", "--port", "0", "--no-wyoming", option, value,
                                        timeout=20)
                    self.assertEqual(code, 2, err)
                    self.assertIn(option, err)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        test_serve.BUILD = sys.argv.pop(1)
        test_serve.TTS = os.path.join(test_serve.BUILD, "tools", "tts")
    unittest.main(verbosity=2)
