#!/usr/bin/env python3
"""The page `tts serve` answers GET / with, in a real browser: Debian's headless Chromium, driven
over WebDriver by its chromedriver, loads the page from the real `tts serve` with the bundled
voice, types, presses Speak (a real click, so no autoplay exemption is needed) and reads what the
page reports in its #player element's data-* attributes: the bytes that arrived, the seconds of
audio they hold, how far the AudioContext's clock advanced while playing them, and whether it was
already playing before the last byte arrived. Also: the keyboard, Stop, and `--api-key`.

    python3 tests/serve/test_web_page.py BUILD_DIR [--screenshot PNG]

ctest runs it as serve_web_page_browser; without chromium and chromedriver (scripts/install-deps
browser) it exits 77, which ctest reports as skipped.
"""

import json
import os
import sys
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_serve  # noqa: E402  (its Server runs the real `tts serve` on free ports)
from webdriver import KEYS, ChromeDriver, find_browser  # noqa: E402

SCREENSHOT = None
TEXT = ("Hello from a browser. This speech plays while the rest of it is still being made. "
        "And here is a third sentence, to be sure.")


def player(browser):
    """The page's own report: #player's data-* attributes."""
    return browser.run("return Object.assign({}, document.getElementById('player').dataset);")


def wait_state(browser, states, timeout=120):
    return browser.wait_for(
        lambda: (lambda p: p if p.get("state") in states else None)(player(browser)),
        timeout, f"the page's state to become one of {states} (it is {player(browser)})")


def severe(console):
    return [e["message"] for e in console if e.get("level") == "SEVERE"]


class BrowserCase(unittest.TestCase):
    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.server = test_serve.Server(*cls.server_args)
        cls.driver = ChromeDriver().__enter__()
        cls.addClassCleanup(cls.driver.__exit__)
        cls.addClassCleanup(cls.server.stop)
        cls.session = cls.driver.session()
        cls.browser = cls.session.__enter__()
        cls.addClassCleanup(cls.session.__exit__, None, None, None)

    def open_page(self):
        self.browser.get(self.server.url + "/")

    def speak_and_check(self, click=True):
        """Presses Speak (or Ctrl+Enter in the text box) and checks the audio arrived and played."""
        if click:
            self.browser.find("#speak").click()
        else:
            self.browser.find("#text").type(KEYS["control"] + KEYS["enter"] + KEYS["release"])
        report = wait_state(self.browser, ("done", "error", "stopped", "needs-key"))
        self.assertEqual(report["state"], "done", (report, self.browser.find("#status").text()))
        rate = self.browser.run(
            "return voices[document.getElementById('voice').selectedIndex].sample_rate;")
        received = int(report["bytes"])
        seconds = float(report["audioSeconds"])
        played = float(report["playedSeconds"])
        self.assertEqual(received % 2, 0, report)  # whole 16-bit samples
        self.assertGreater(seconds, 2.0, report)  # three sentences of speech
        self.assertAlmostEqual(seconds, received / 2 / rate, delta=1e-3)
        # The AudioContext's clock ran through all of it (played, not only decoded) ...
        self.assertGreaterEqual(played, seconds - 0.05, report)
        # ... and had started on the first chunk before the last one arrived: it streamed.
        self.assertEqual(report["playedWhileStreaming"], "true", report)
        self.assertIn("Played", self.browser.find("#status").text())
        return report


class WebPage(BrowserCase):
    def test_1_page_loads_the_voices_and_is_labelled(self):
        self.open_page()
        wait_state(self.browser, ("ready",), 30)
        with urllib.request.urlopen(self.server.url + "/v1/audio/voices", timeout=10) as r:
            served = [v["id"] for v in json.load(r)["voices"]]
        shown = self.browser.run(
            "return [...document.querySelectorAll('#voice option')].map(o => o.value);")
        self.assertEqual(shown, served)
        # Every control has a label a screen reader announces, and the status line is live.
        unlabelled = self.browser.run(
            "return [...document.querySelectorAll('input, select, textarea')]"
            ".filter(c => c.labels.length === 0).map(c => c.id);")
        self.assertEqual(unlabelled, [])
        self.assertEqual(self.browser.find("#status").attribute("role"), "status")
        self.assertTrue(self.browser.find("#key-row").property("hidden"))  # no key asked for
        self.assertEqual(severe(self.browser.console()), [])

    def test_2_speak_streams_and_plays(self):
        self.open_page()
        wait_state(self.browser, ("ready",), 30)
        box = self.browser.find("#text")
        box.clear()
        box.type(TEXT)
        report = self.speak_and_check()
        print(f"\n  page report: {report}", file=sys.stderr)
        # What was spoken can be downloaded: a WAV of exactly the bytes that arrived.
        download = self.browser.find("#download")
        self.assertFalse(download.property("hidden"))
        self.assertTrue(download.property("href").startswith("blob:"), download.property("href"))
        self.assertEqual(int(download.attribute("data-bytes")), 44 + int(report["bytes"]))
        # Nothing was blocked (the Content-Security-Policy allows only this server) or failed.
        self.assertEqual(severe(self.browser.console()), [])
        if SCREENSHOT:
            self.browser.screenshot(SCREENSHOT)

    def test_2b_voices_are_named_by_language_and_their_sample_follows(self):
        self.open_page()
        wait_state(self.browser, ("ready",), 30)
        labels = self.browser.run(
            "return [...document.querySelectorAll('#voice option')].map(o => o.text);")
        # The voice's languages by name ("English (United States)"), not as espeak-ng codes.
        self.assertIn("English", labels[0])
        french = [i for i, label in enumerate(labels) if "French" in label]
        if not french:
            self.skipTest("no French voice is served")
        self.browser.run("const list = document.getElementById('voice');"
                         "list.selectedIndex = arguments[0];"
                         "list.dispatchEvent(new Event('change'));", french[0])
        self.assertTrue(self.browser.find("#text").property("value").startswith("Bonjour"))
        # A text typed by hand is kept when the voice changes.
        box = self.browser.find("#text")
        box.clear()
        box.type("Mon propre texte.")
        self.browser.run("const list = document.getElementById('voice');"
                         "list.selectedIndex = 0; list.dispatchEvent(new Event('change'));")
        self.assertEqual(self.browser.find("#text").property("value"), "Mon propre texte.")
        self.assertEqual(self.browser.find("#pitch").attribute("max"), "24")

    def test_3_keyboard_sets_rate_and_pitch_and_speaks(self):
        self.open_page()
        wait_state(self.browser, ("ready",), 30)
        self.browser.find("#rate").type(KEYS["right"] * 2)  # arrow keys move a range by a step
        self.assertEqual(self.browser.find("#rate-value").text(), "1.10×")
        can_shift = self.browser.run("return voices[0].pitch;")
        if can_shift:
            self.browser.find("#pitch").type(KEYS["right"] * 2)
            self.assertEqual(self.browser.find("#pitch-value").text(), "+2 semitones")
        box = self.browser.find("#text")
        box.clear()
        box.type(TEXT)
        self.speak_and_check(click=False)  # Ctrl+Enter, from the text box

    def test_4_stop_ends_the_speech_and_its_synthesis(self):
        self.open_page()
        wait_state(self.browser, ("ready",), 30)
        box = self.browser.find("#text")
        box.clear()
        box.type(" ".join([TEXT] * 6))
        self.browser.find("#speak").click()
        wait_state(self.browser, ("playing",), 60)
        self.browser.find("#stop").click()
        self.assertEqual(player(self.browser)["state"], "stopped")
        time.sleep(1)
        self.assertEqual(player(self.browser)["state"], "stopped")  # nothing plays on
        # The server noticed the hang-up and freed its worker.
        def idle():
            with urllib.request.urlopen(self.server.url + "/health", timeout=10) as r:
                return json.load(r)["running"] == 0
        self.browser.wait_for(idle, 30, "the server's synthesis to stop")


class WebPageWithApiKey(BrowserCase):
    server_args = ("--api-key", "page-test-key")

    def test_page_asks_for_the_key_and_sends_it(self):
        # The page is served without the key; the API is not.
        with urllib.request.urlopen(self.server.url + "/", timeout=10) as r:
            self.assertEqual(r.status, 200)
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(self.server.url + "/v1/audio/voices", timeout=10)
        self.assertEqual(refused.exception.code, 401)

        self.open_page()
        wait_state(self.browser, ("needs-key",), 30)
        self.assertFalse(self.browser.find("#key-row").property("hidden"))
        self.assertEqual(self.browser.find("#key").attribute("type"), "password")
        self.assertTrue(self.browser.run("return document.activeElement.id === 'key';"))
        key = self.browser.find("#key")
        key.type("wrong" + KEYS["enter"])
        self.browser.wait_for(lambda: "refused" in self.browser.find("#status").text(), 30,
                              "the wrong key to be refused")
        self.assertEqual(player(self.browser)["state"], "needs-key")
        key.clear()
        key.type("page-test-key" + KEYS["enter"])
        wait_state(self.browser, ("ready",), 30)
        box = self.browser.find("#text")
        box.clear()
        box.type(TEXT)
        self.speak_and_check()


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--screenshot" in args:
        i = args.index("--screenshot")
        SCREENSHOT = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if args and not args[0].startswith("-"):
        test_serve.BUILD = args.pop(0)
        test_serve.TTS = os.path.join(test_serve.BUILD, "tools", "tts")
    found, reason = find_browser()
    if not found:
        print(f"skipped: {reason}", file=sys.stderr)
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *args], verbosity=2)
