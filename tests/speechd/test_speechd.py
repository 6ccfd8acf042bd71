#!/usr/bin/env python3
"""sd_tts under Debian's real speech-dispatcher (0.11): a private server in a temporary folder
(its own config, unix socket and logs), the module added with AddModule, the server's audio
(AudioOutputMethod "alsa") routed by a user-level asoundrc into ALSA's file plugin, so what the
server played can be checked. Real clients: `spd-say` and Debian's python3-speechd, which sends
Orca-style SSML with a mark before every word and collects the index-mark callbacks.

    python3 tests/speechd/test_speechd.py BUILD_DIR      (ctest runs it as speechd_end_to_end)

Exits 77 (ctest's skip) when speech-dispatcher, spd-say or python3-speechd is not installed
(scripts/install-deps installs them).
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VOICE = os.path.join(ROOT, "voices", "default")
BUILD = None
SKIP = 77

WORDS = "Every word of this sentence has a mark before it".split()


def orca_ssml(words):
    """Marks named as Orca names them: the start and end offsets of the word in its text."""
    text = " ".join(words)
    parts, offset = [], 0
    for w in words:
        start = text.index(w, offset)
        parts.append(f'<mark name="{start}:{start + len(w)}"/>{w}')
        offset = start + len(w)
    return "<speak>" + " ".join(parts) + ".</speak>", [p.split('"')[1] for p in parts]


class Daemon:
    def __init__(self, tmp):
        self.tmp = tmp
        conf = os.path.join(tmp, "conf")
        os.makedirs(os.path.join(conf, "modules"))
        os.makedirs(os.path.join(tmp, "log"))
        os.makedirs(os.path.join(tmp, "xdg", "alsa"))
        self.socket = os.path.join(tmp, "speechd.sock")
        self.played = os.path.join(tmp, "played.raw")
        module = os.path.join(BUILD, "tools", "sd_tts", "sd_tts")
        with open(os.path.join(conf, "modules", "sd_tts.conf"), "w") as f:
            f.write(f'TtsVoice "{VOICE}"\nTtsThreads 1\n')
        with open(os.path.join(conf, "speechd.conf"), "w") as f:
            f.write(f"""CommunicationMethod "unix_socket"
SocketPath "{self.socket}"
LogLevel 5
LogDir "{tmp}/log"
AudioOutputMethod "alsa"
AudioALSADevice "default"
DefaultVolume 100
AddModule "tts" "{module}" "sd_tts.conf"
DefaultModule "tts"
DefaultLanguage "en"
""")
        # The server's ALSA default device: 16-bit mono written raw to a file, then discarded.
        with open(os.path.join(tmp, "xdg", "alsa", "asoundrc"), "w") as f:
            f.write('pcm.!default {\n  type plug\n  slave { pcm "tap" format S16_LE channels 1 '
                    'rate 16000 }\n}\n'
                    f'pcm.tap {{\n  type file\n  slave.pcm "null"\n  file "{self.played}"\n'
                    '  format "raw"\n}\n')
        self.env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(tmp, "xdg"),
                        XDG_RUNTIME_DIR=tmp, HOME=tmp,
                        SPEECHD_ADDRESS=f"unix_socket:{self.socket}")
        self.env.pop("ALSA_CONFIG_PATH", None)
        self.proc = subprocess.Popen(
            ["speech-dispatcher", "-s", "-t", "0", "-C", conf, "-c", "unix_socket", "-S",
             self.socket, "-L", os.path.join(tmp, "log"), "-P", os.path.join(tmp, "pid")],
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output = []
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("speech-dispatcher exited: " + "".join(self.output) + self.log())
            if os.path.exists(self.socket):
                try:
                    s = socket.socket(socket.AF_UNIX)
                    s.connect(self.socket)
                    s.close()
                    return
                except OSError:
                    pass
            time.sleep(0.1)
        raise RuntimeError("speech-dispatcher did not listen: " + self.log())

    def _drain(self):
        for line in self.proc.stdout:
            self.output.append(line.decode("utf-8", "replace"))

    def log(self):
        path = os.path.join(self.tmp, "log", "speech-dispatcher.log")
        try:
            with open(path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def spd_say(self, *args, timeout=60):
        return subprocess.run(["spd-say", *args], env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def played_samples(self):
        try:
            return os.path.getsize(self.played) // 2
        except OSError:
            return 0

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class SpeechDispatcherTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.d = Daemon(cls.tmp.name)
        os.environ["SPEECHD_ADDRESS"] = cls.d.env["SPEECHD_ADDRESS"]

    @classmethod
    def tearDownClass(cls):
        cls.d.close()
        cls.tmp.cleanup()

    def client(self):
        import speechd
        c = speechd.SSIPClient("tts-test", address=self.d.env["SPEECHD_ADDRESS"], autospawn=False)
        c.set_output_module("tts")
        self.addCleanup(c.close)
        return c

    def test_1_module_is_listed(self):
        r = self.d.spd_say("-O")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("tts", r.stdout.split())
        r = self.d.spd_say("-o", "tts", "-L")
        self.assertIn("default", r.stdout, r.stdout + r.stderr)

    def test_2_spd_say_speaks(self):
        before = self.d.played_samples()
        started = time.time()
        r = self.d.spd_say("-o", "tts", "-w", "Hello from the speech dispatcher.")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        played = self.d.played_samples() - before
        self.assertGreater(played, 16000, "under a second of audio reached ALSA\n" + self.d.log()[-4000:])
        print(f"\nspd-say: {played / 16000:.2f} s of audio played in {time.time() - started:.2f} s",
              file=sys.stderr)
        for args in (("-c", "a"), ("-k", "shift_a"), ("-r", "50", "-p", "-30", "-i", "50", "Faster.")):
            before = self.d.played_samples()
            r = self.d.spd_say("-o", "tts", "-w", *args)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertGreater(self.d.played_samples() - before, 2000, args)

    def test_3_spd_say_ssml_marks_reach_the_server_in_order(self):
        ssml, names = orca_ssml(WORDS)
        r = self.d.spd_say("-o", "tts", "-x", "-w", ssml)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        log = self.d.log()
        seen = [line.split("Detected INDEX MARK: ", 1)[1].strip()
                for line in log.splitlines() if "Detected INDEX MARK: " in line]
        mine = [m for m in seen if not m.startswith("__spd_")]
        self.assertEqual(mine[-len(names):], names, seen)

    def test_4_index_mark_callbacks_in_order(self):
        import speechd
        c = self.client()
        c.set_data_mode(speechd.DataMode.SSML)
        events, done = [], threading.Event()

        def callback(kind, index_mark=None):
            events.append(index_mark if kind == speechd.CallbackType.INDEX_MARK else kind)
            if kind in (speechd.CallbackType.END, speechd.CallbackType.CANCEL):
                done.set()

        ssml, names = orca_ssml(WORDS)
        c.speak(ssml, callback=callback,
                event_types=(speechd.CallbackType.BEGIN, speechd.CallbackType.END,
                             speechd.CallbackType.CANCEL, speechd.CallbackType.INDEX_MARK))
        self.assertTrue(done.wait(30), events)
        # python3-speechd registers the callback after the server's reply to SPEAK, so a begin
        # event that comes sooner is lost on the client side; marks and end come later.
        self.assertEqual([e for e in events if e != "begin"], [*names, "end"])

    def test_5_stop_cancels(self):
        import speechd
        c = self.client()
        events, done = [], threading.Event()

        def callback(kind, index_mark=None):
            events.append(kind)
            if kind in (speechd.CallbackType.END, speechd.CallbackType.CANCEL):
                done.set()

        # ALSA's file plugin does not pace playback, so the message ends as soon as it is made:
        # about 28 s of speech, which takes several seconds to make even at a real-time factor of
        # 0.1.
        c.speak(" ".join(["This is a long message that will be stopped well before it has been "
                          "said, because the client asks the server to stop it."] * 4),
                callback=callback,
                event_types=(speechd.CallbackType.BEGIN, speechd.CallbackType.END,
                             speechd.CallbackType.CANCEL))
        # The begin event may be lost (see above), and ALSA's file plugin writes its file in large
        # blocks: wait for begin or at most 1.5 s, then 0.5 s more.
        deadline = time.time() + 1.5
        while "begin" not in events and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(0.5)
        sent = time.time()
        c.stop()
        self.assertTrue(done.wait(5), events)
        print(f"\nspeechd STOP → cancel event: {(time.time() - sent) * 1000:.0f} ms", file=sys.stderr)
        self.assertEqual(events[-1], "cancel", events)

    def test_6_interrupted_again_and_again(self):
        # As a screen reader does while one types: each message cancels the one before.
        import speechd
        c = self.client()
        c.set_priority(speechd.Priority.MESSAGE)
        ended, done = [], threading.Event()
        for i in range(8):
            last = i == 7

            def callback(kind, index_mark=None, i=i, last=last):
                ended.append((i, kind))
                if last and kind in (speechd.CallbackType.END, speechd.CallbackType.CANCEL):
                    done.set()

            c.cancel()
            c.speak(f"Message number {i} is interrupted.", callback=callback,
                    event_types=(speechd.CallbackType.END, speechd.CallbackType.CANCEL))
            time.sleep(0.05)
        self.assertTrue(done.wait(30), ended)
        self.assertEqual(ended[-1], (7, "end"), ended)


def main():
    global BUILD
    BUILD = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else
                            os.environ.get("TTS_BUILD_DIR", "build"))
    missing = [p for p in ("speech-dispatcher", "spd-say") if not shutil.which(p)]
    try:
        import speechd  # noqa: F401
    except ImportError:
        missing.append("python3-speechd")
    if missing:
        print("SKIP: not installed: " + ", ".join(missing) + " (scripts/install-deps)")
        sys.exit(SKIP)
    unittest.main(verbosity=2)


if __name__ == "__main__":
    main()
