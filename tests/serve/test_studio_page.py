#!/usr/bin/env python3
"""The studio of `tts serve --studio DIR` in a real browser: headless Chromium whose microphone is
a WAV file of real speech (--use-file-for-fake-audio-capture; made with `tts say` from the
bundled voice) records every prompt of a small prompt set through the page (Record, Stop, Play
back, Keep), the takes are found on disk in the LJSpeech layout, a reload continues where it
stopped, then Create runs `tts voices create` on them with a tiny random base and a few training
steps; the page shows its progress and its verdict, and speaks a sentence with the new voice.

    python3 tests/serve/test_studio_page.py BUILD_DIR [--screenshots DIR]

ctest runs it as serve_studio_browser; without chromium and chromedriver it exits 77 (skipped).
"""

import os
import subprocess
import sys
import tempfile
import time
import unittest
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_serve  # noqa: E402
from webdriver import ChromeDriver, find_browser  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPTS = os.path.join(os.path.dirname(HERE), "data", "studio_prompts")
SHOTS = None


def studio(browser):
    return browser.run("return Object.assign({}, document.getElementById('studio').dataset);")


class StudioPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tts-studio-page-")
        cls.addClassCleanup(cls.tmp.cleanup)
        root = cls.tmp.name
        base = os.path.join(root, "base")
        subprocess.run([test_serve.TTS, "voices", "create-random", base, "--size", "tiny"],
                       check=True, capture_output=True)
        cls.speech = os.path.join(root, "speech.wav")
        subprocess.run([test_serve.TTS, "say", "-o", cls.speech,
                        "The quick brown fox jumps over the lazy dog, and then it rests."],
                       check=True, capture_output=True)
        cls.dir = os.path.join(root, "studio")
        cls.server = test_serve.Server(
            "--no-wyoming", "--studio", cls.dir, "--studio-prompts", PROMPTS,
            "--studio-min-minutes", "0", "--studio-min-free", "1", "--studio-create-args",
            f"--base {base} --vocoder {base}/vocoder --steps 20")
        cls.addClassCleanup(cls.server.stop)
        cls.driver = ChromeDriver().__enter__()
        cls.addClassCleanup(cls.driver.__exit__)
        cls.session = cls.driver.session(width=760, height=1100, extra_args=(
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={cls.speech}", "--autoplay-policy=no-user-gesture-required"))
        cls.browser = cls.session.__enter__()
        cls.addClassCleanup(cls.session.__exit__, None, None, None)

    def shot(self, name, show="studio-job"):
        if SHOTS:
            self.browser.run(f"document.getElementById('{show}').scrollIntoView({{block: 'end'}});")
            self.browser.screenshot(os.path.join(SHOTS, f"studio-{name}.png"))

    def wait(self, key, values, timeout=60):
        return self.browser.wait_for(
            lambda: (lambda s: s if s.get(key) in values else None)(studio(self.browser)),
            timeout, f"the studio's {key} to become one of {values} (it is {studio(self.browser)})")

    def record_take(self, seconds=2.0):
        self.browser.find("#studio-record").click()
        self.wait("state", ("recording",), 20)
        time.sleep(seconds)
        self.browser.find("#studio-record").click()
        return self.wait("state", ("recorded",), 20)

    def test_record_create_and_speak(self):
        b = self.browser
        b.get(self.server.url + "/")
        self.wait("state", ("closed",), 30)
        name = b.find("#studio-name")
        name.clear()
        name.type("page-voice")
        b.find("#studio-open").click()
        self.wait("state", ("ready",), 30)
        self.assertIn("Prompt 1 of 6", b.find("#studio-count").text())
        self.assertIn("20.0 min still wanted", b.find("#studio-count").text())
        with open(os.path.join(PROMPTS, "en.txt")) as f:
            prompts = [line.strip() for line in f if line.strip()]
        self.assertEqual(b.find("#studio-prompt").text(), prompts[0])

        # The first take: recorded, played back, kept.
        s = self.record_take()
        self.assertGreater(float(s["takeSeconds"]), 1.5)
        self.assertNotIn("quiet", b.find("#studio-warning").text())
        self.shot("1-recorded", "studio-create")
        b.find("#studio-play").click()
        b.find("#studio-keep").click()
        self.wait("clips", ("1",), 30)
        self.assertIn("Prompt 2 of 6", b.find("#studio-count").text())

        # Skip one, record three more, then a reload continues at the skipped prompt's successor.
        b.find("#studio-skip").click()
        self.browser.wait_for(lambda: "Prompt 3 of 6" in b.find("#studio-count").text(), 30,
                              "the skip")
        for clips in ("2", "3"):
            self.record_take()
            b.find("#studio-keep").click()
            self.wait("clips", (clips,), 30)
        b.get(self.server.url + "/")
        self.wait("state", ("ready",), 30)
        self.assertEqual(b.find("#studio-name").property("value"), "page-voice")
        self.assertIn("Prompt 5 of 6", b.find("#studio-count").text())
        for clips in ("4", "5", "6"):  # 5, 6, then the skipped 2 comes round
            self.record_take()
            b.find("#studio-keep").click()
            self.wait("clips", (clips,), 30)
        self.assertIn("Every prompt is recorded", b.find("#studio-count").text())
        self.shot("2-recorded-all", "studio-create")

        # On disk, in the layout voices create reads, every take a real recording of speech.
        folder = os.path.join(self.dir, "page-voice")
        with open(os.path.join(folder, "metadata.csv")) as f:
            rows = [line.rstrip("\n").split("|") for line in f]
        self.assertEqual(sorted(text for _, text in rows), sorted(prompts))
        for take_id, _ in rows:
            with wave.open(os.path.join(folder, "wavs", take_id + ".wav")) as w:
                self.assertEqual((w.getnchannels(), w.getsampwidth()), (1, 2))
                self.assertGreater(w.getnframes() / w.getframerate(), 1.5)

        # Create: progress, the verdict, and the new voice speaks.
        started = time.time()
        b.find("#studio-create").click()
        self.wait("job", ("running", "done"), 30)
        self.browser.wait_for(lambda: "Making" in b.find("#studio-job").text()
                              or studio(b).get("job") == "done", 30, "the job's progress")
        self.shot("3-job-running")
        s = self.wait("job", ("done", "failed"), 150)
        self.assertEqual(s["job"], "done", b.find("#studio-job").text())
        print(f"\n  voice job: {time.time() - started:.1f} s; {b.find('#studio-job').text()}",
              file=sys.stderr)
        self.assertIn(s["verdict"], ("PASS", "FAIL"))
        self.assertIn("Verdict", b.find("#studio-job").text())
        # The page reloads its voice list once the job is done; that request may still be on its way.
        self.browser.wait_for(lambda: "page-voice" in b.run(
            "return [...document.querySelectorAll('#voice option')].map(o => o.value);"), 30,
            "the new voice in the page's list")
        report = b.wait_for(lambda: (lambda p: p if p.get("state") in ("done", "error") else None)(
            b.run("return Object.assign({}, document.getElementById('player').dataset);")),
            120, "the new voice's sentence")
        self.assertEqual(report["state"], "done", report)
        self.assertGreater(float(report["audioSeconds"]), 0.5)
        self.assertEqual(b.run("return document.getElementById('voice').value;"), "page-voice")
        self.shot("4-voice-made")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--screenshots" in args:
        i = args.index("--screenshots")
        SHOTS = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if args and not args[0].startswith("-"):
        test_serve.BUILD = args.pop(0)
        test_serve.TTS = os.path.join(test_serve.BUILD, "tools", "tts")
    found, reason = find_browser()
    if not found:
        print(f"skipped: {reason}", file=sys.stderr)
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *args], verbosity=2)
