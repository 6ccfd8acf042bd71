"""A minimal W3C WebDriver client over the standard library (urllib, json), enough to drive
Debian's headless Chromium through its chromedriver: open a page, find elements, type, click,
run a script, read the console and take a screenshot.

    with ChromeDriver() as driver, driver.session() as browser:
        browser.get("http://127.0.0.1:5500/")
        browser.find("#speak").click()
"""

import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

# Sent inside Element Send Keys: WebDriver's code points for these keys.
KEYS = {"enter": "\ue007", "control": "\ue009", "release": "\ue000", "right": "\ue014",
        "left": "\ue012", "tab": "\ue004"}
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def find_browser():
    """(chromium, chromedriver) paths, or None with the reason when either is absent."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        missing = [n for n, p in (("chromium", chromium), ("chromedriver", driver)) if not p]
        return None, "not installed: " + ", ".join(missing) + " (scripts/install-deps browser)"
    return (chromium, driver), None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriverError(RuntimeError):
    pass


def _call(url, method, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return json.loads(r.read() or b"{}").get("value")
    except urllib.error.HTTPError as e:
        raise WebDriverError(f"{method} {url}: {e.code} {e.read().decode(errors='replace')}")


class Element:
    def __init__(self, browser, element_id):
        self.browser, self.id = browser, element_id

    def _url(self, tail):
        return f"element/{self.id}/{tail}"

    def click(self):
        self.browser.command("POST", self._url("click"), {})

    def clear(self):
        self.browser.command("POST", self._url("clear"), {})

    def type(self, text):
        self.browser.command("POST", self._url("value"), {"text": text})

    def attribute(self, name):
        return self.browser.command("GET", self._url(f"attribute/{name}"))

    def property(self, name):
        return self.browser.command("GET", self._url(f"property/{name}"))

    def text(self):
        return self.browser.command("GET", self._url("text"))


class Browser:
    """One WebDriver session."""

    def __init__(self, base, session_id):
        self.base, self.id = base, session_id

    def command(self, method, path, body=None):
        return _call(f"{self.base}/session/{self.id}/{path}", method, body)

    def get(self, url):
        self.command("POST", "url", {"url": url})

    def find(self, css):
        found = self.command("POST", "element", {"using": "css selector", "value": css})
        return Element(self, found[ELEMENT])

    def run(self, script, *args):
        return self.command("POST", "execute/sync", {"script": script, "args": list(args)})

    def console(self):
        """The browser console's entries since the last call (chromedriver's log endpoint)."""
        return self.command("POST", "se/log", {"type": "browser"}) or []

    def screenshot(self, path):
        png = base64.b64decode(self.command("GET", "screenshot"))
        with open(path + ".tmp", "wb") as f:
            f.write(png)
        os.replace(path + ".tmp", path)

    def wait_for(self, condition, timeout, what):
        """Polls condition() until it returns something true; fails naming `what`."""
        deadline = time.time() + timeout
        while True:
            value = condition()
            if value:
                return value
            if time.time() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.1)


class ChromeDriver:
    """chromedriver on a free localhost port, started and stopped with the `with` block."""

    def __init__(self, chromium=None, driver=None):
        found, reason = find_browser()
        if not found:
            raise RuntimeError(reason)
        self.chromium, self.driver = chromium or found[0], driver or found[1]
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def __enter__(self):
        self.proc = subprocess.Popen([self.driver, f"--port={self.port}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if _call(self.base + "/status", "GET", timeout=2).get("ready"):
                    return self
            except (OSError, WebDriverError):
                pass
            time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("chromedriver did not become ready in 30 s")

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @contextlib.contextmanager
    def session(self, width=760, height=660, extra_args=()):
        args = [
            "--headless=new",
            # Chromium's sandbox refuses to run as root, which is how CI and containers run it.
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--window-size={width},{height}",
            "--no-first-run",
            "--disable-extensions",
            *extra_args,
        ]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": self.chromium, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}}
        created = _call(self.base + "/session", "POST", caps, timeout=120)
        browser = Browser(self.base, created["sessionId"])
        try:
            yield browser
        finally:
            try:
                _call(f"{self.base}/session/{browser.id}", "DELETE", timeout=30)
            except (OSError, WebDriverError):
                pass
