"""A scripted Speech Dispatcher server side for sd_tts: speaks the module protocol to the real
`sd_tts` binary over pipes, as speech-dispatcher 0.11's src/server/output.c does, and collects
every reply and event with the time it arrived.

A message is a run of lines up to one whose fourth byte is a space ("200 OK SPEAKING"), read as
the server reads them; a 705 message's audio is unescaped (0x7d, then the byte with bit 5
inverted) into 16-bit little-endian samples.
"""

import os
import queue
import struct
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VOICE = os.path.join(ROOT, "voices", "default")


class Message:
    def __init__(self, lines, arrived):
        self.lines = lines  # bytes, without "\n"
        self.arrived = arrived  # time.monotonic()
        self.code = lines[-1][:3].decode("ascii", "replace")
        self.text = b"\n".join(lines).decode("utf-8", "replace")
        self.samples = None
        if self.code == "705":
            self.samples = decode_audio(lines)

    def __repr__(self):
        if self.samples is not None:
            return f"<705 AUDIO {len(self.samples)} samples>"
        return f"<{self.text!r}>"


def decode_audio(lines):
    params, data = {}, None
    for line in lines[:-1]:
        if line.startswith(b"705-AUDIO\0"):
            data = line[len(b"705-AUDIO\0"):]
        else:
            key, _, value = line[4:].partition(b"=")
            params[key.decode()] = int(value)
    assert data is not None, lines
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == 0x7D:
            out.append(data[i + 1] ^ 0x20)
            i += 2
        else:
            out.append(data[i])
            i += 1
    assert params["bits"] == 16 and params["num_channels"] == 1 and params["big_endian"] == 0
    assert len(out) == 2 * params["num_samples"], (len(out), params)
    return struct.unpack(f"<{params['num_samples']}h", bytes(out))


class Module:
    def __init__(self, binary, config_text=None, tmpdir=None):
        args = [binary]
        if config_text is not None:
            path = os.path.join(tmpdir, "sd_tts.conf")
            with open(path, "w") as f:
                f.write(config_text)
            args.append(path)
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.messages = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                self.messages.put(None)
                return
            line = line[:-1] if line.endswith(b"\n") else line
            lines.append(line)
            if len(line) < 4 or line[3:4] == b" ":
                self.messages.put(Message(lines, time.monotonic()))
                lines = []

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, *lines):
        sent = time.monotonic()
        # bytes as they are (a message that is not UTF-8), str as UTF-8
        self.proc.stdin.write(b"".join((l if isinstance(l, bytes) else l.encode()) + b"\n"
                                       for l in lines))
        self.proc.stdin.flush()
        return sent

    def next(self, timeout=60):
        try:
            message = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no message from sd_tts within %s s; stderr: %s"
                                 % (timeout, "".join(self.stderr)))
        if message is None:
            raise AssertionError("sd_tts closed its output; stderr: " + "".join(self.stderr))
        return message

    def reply(self, timeout=60):
        """The next message that is not an event (7xx)."""
        while True:
            m = self.next(timeout)
            if not m.code.startswith("7"):
                return m

    def until(self, codes, timeout=60):
        """Messages up to and including the first whose code is in `codes`."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            m = self.next(max(0.01, deadline - time.monotonic()))
            got.append(m)
            if m.code in codes:
                return got

    def quiet_for(self, seconds):
        """Messages that arrive within `seconds`."""
        got = []
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return got
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                return got
            if m is None:
                return got
            got.append(m)

    def handshake(self):
        """INIT, AUDIO, LOGLEVEL and LIST VOICES, as speech-dispatcher's module.c does."""
        self.send("INIT")
        init = self.reply(120)
        assert init.lines[-1] == b"299 OK LOADED SUCCESSFULLY", init
        self.send("AUDIO")
        assert self.reply().text == "207 OK RECEIVING AUDIO SETTINGS"
        self.send("audio_output_method=server", ".")
        assert self.reply().text == "203 OK AUDIO INITIALIZED"
        self.send("LOGLEVEL")
        assert self.reply().text == "207 OK RECEIVING LOGLEVEL SETTINGS"
        self.send("log_level=3", ".")
        assert self.reply().text == "203 OK LOGLEVEL SET"
        self.send("LIST VOICES")
        return init, self.reply()

    def speak(self, text, command="SPEAK"):
        self.send(command)
        assert self.reply().text == "202 OK RECEIVING MESSAGE"
        lines = [("." + l if l.startswith(".") else l) for l in text.split("\n")]
        self.send(*lines, ".")
        r = self.reply()
        assert r.text == "200 OK SPEAKING", r
        return r.arrived

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("QUIT")
            except BrokenPipeError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
