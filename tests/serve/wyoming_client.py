#!/usr/bin/env python3
"""A small Wyoming client, written from the protocol's documentation (rhasspy/wyoming README).

    python3 tests/serve/wyoming_client.py --port 10200 --describe
    python3 tests/serve/wyoming_client.py --port 10200 --text "Hello there." -o out.wav
    python3 tests/serve/wyoming_client.py --port 10200 --text "Hi. Bye." --stream -o out.wav

An event is a JSON header line ({"type", "data"?, "data_length"?, "payload_length"?}) followed by
data_length bytes of JSON merged over the header's data, then payload_length bytes of payload.

--describe prints the server's `info` data as JSON. --text sends `synthesize` and writes the
audio-chunks between audio-start and audio-stop as a WAV file; with --stream it sends the text as
synthesize-start, synthesize-chunk (a few words each), the compatibility `synthesize`, and
synthesize-stop, and collects every audio stream until synthesize-stopped.

Exit status: 0 on success; 1 on an `error` event (its text and code on stderr); 2 when the
connection fails, ends early, or the server breaks the protocol. Standard library only.
"""

import argparse
import json
import socket
import sys
import wave

MAX_HEADER = 1 << 16
MAX_SECTION = 1 << 24


class ProtocolError(Exception):
    pass


class ServerError(Exception):
    def __init__(self, data):
        super().__init__(data.get("text", "(no text)"))
        self.code = data.get("code")


def write_event(sock, event_type, data=None, payload=b""):
    header = {"type": event_type, "version": "1.7.0"}
    data_bytes = b""
    if data:
        data_bytes = json.dumps(data, ensure_ascii=False).encode("utf-8")
        header["data_length"] = len(data_bytes)
    if payload:
        header["payload_length"] = len(payload)
    line = json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n"
    sock.sendall(line + data_bytes + payload)


def read_exactly(stream, length):
    data = stream.read(length)
    if data is None or len(data) != length:
        raise ProtocolError(f"the connection ended inside an event ({length} bytes expected)")
    return data


def read_event(stream):
    """The next (type, data, payload), or None when the server has closed the connection."""
    line = stream.readline(MAX_HEADER + 1)
    if not line:
        return None
    if not line.endswith(b"\n"):
        raise ProtocolError("header line too long or truncated")
    header = json.loads(line)
    if not isinstance(header, dict) or not isinstance(header.get("type"), str):
        raise ProtocolError(f"bad header: {line!r}")
    data = header.get("data") or {}
    if not isinstance(data, dict):
        raise ProtocolError("header data is not an object")
    lengths = []
    for name in ("data_length", "payload_length"):
        value = header.get(name) or 0
        if not isinstance(value, int) or value < 0 or value > MAX_SECTION:
            raise ProtocolError(f"bad {name}: {value!r}")
        lengths.append(value)
    if lengths[0]:
        section = json.loads(read_exactly(stream, lengths[0]))
        if not isinstance(section, dict):
            raise ProtocolError("data section is not an object")
        data.update(section)
    payload = read_exactly(stream, lengths[1]) if lengths[1] else b""
    return header["type"], data, payload


def next_event(stream):
    event = read_event(stream)
    if event is None:
        raise ProtocolError("the server closed the connection")
    if event[0] == "error":
        raise ServerError(event[1])
    return event


class Audio:
    def __init__(self):
        self.format = None  # (rate, width, channels)
        self.frames = bytearray()
        self.streams = 0

    def read_stream(self, stream, first):
        """Reads one audio-start … audio-stop; `first` is its audio-start event."""
        event_type, data, _ = first
        if event_type != "audio-start":
            raise ProtocolError(f"expected audio-start, got {event_type}")
        fmt = (data["rate"], data["width"], data["channels"])
        if self.format is not None and fmt != self.format:
            raise ProtocolError(f"audio format changed from {self.format} to {fmt}")
        self.format = fmt
        while True:
            event_type, data, payload = next_event(stream)
            if event_type == "audio-stop":
                break
            if event_type != "audio-chunk":
                raise ProtocolError(f"unexpected {event_type} inside an audio stream")
            if (data["rate"], data["width"], data["channels"]) != fmt:
                raise ProtocolError("audio-chunk format differs from audio-start")
            if len(payload) % (fmt[1] * fmt[2]):
                raise ProtocolError("audio-chunk payload is not whole frames")
            self.frames += payload
        self.streams += 1

    def write(self, path):
        rate, width, channels = self.format or (16000, 2, 1)
        with wave.open(path, "wb") as out:
            out.setframerate(rate)
            out.setsampwidth(width)
            out.setnchannels(channels)
            out.writeframes(bytes(self.frames))


def text_chunks(text, words=3):
    """The text in pieces of a few words, as a language model would stream it."""
    pieces = text.split(" ")
    for i in range(0, len(pieces), words):
        yield " ".join(pieces[i : i + words]) + (" " if i + words < len(pieces) else "")


def synthesize(sock, stream, args):
    voice = {"name": args.voice} if args.voice else None
    audio = Audio()
    if not args.stream:
        data = {"text": args.text}
        if voice:
            data["voice"] = voice
        write_event(sock, "synthesize", data)
        audio.read_stream(stream, next_event(stream))
    else:
        write_event(sock, "synthesize-start", {"voice": voice} if voice else None)
        for piece in text_chunks(args.text):
            write_event(sock, "synthesize-chunk", {"text": piece})
        data = {"text": args.text}
        if voice:
            data["voice"] = voice
        write_event(sock, "synthesize", data)  # for servers that do not stream; ignored by ours
        write_event(sock, "synthesize-stop")
        while True:
            event = next_event(stream)
            if event[0] == "synthesize-stopped":
                break
            audio.read_stream(stream, event)
    audio.write(args.output)
    rate, width, channels = audio.format or (16000, 2, 1)
    seconds = len(audio.frames) / (rate * width * channels)
    print(f"{args.output}: {seconds:.2f} s at {rate} Hz in {audio.streams} audio stream(s)",
          file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--describe", action="store_true", help="print the server's info")
    parser.add_argument("--text", help="text to synthesize")
    parser.add_argument("--voice", help="voice name (default: the server's)")
    parser.add_argument("--stream", action="store_true", help="send the text as a stream")
    parser.add_argument("-o", "--output", help="WAV file to write (with --text)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per read")
    args = parser.parse_args()
    if not args.describe and args.text is None:
        parser.error("give --describe, --text or both")
    if args.text is not None and not args.output:
        parser.error("--text needs -o FILE")

    try:
        with socket.create_connection((args.host, args.port), timeout=args.timeout) as sock:
            stream = sock.makefile("rb")
            if args.describe:
                write_event(sock, "describe")
                event_type, data, _ = next_event(stream)
                if event_type != "info":
                    raise ProtocolError(f"expected info, got {event_type}")
                print(json.dumps(data, indent=2, ensure_ascii=False))
            if args.text is not None:
                synthesize(sock, stream, args)
    except ServerError as e:
        print(f"wyoming_client: error from the server ({e.code}): {e}", file=sys.stderr)
        return 1
    except (OSError, ProtocolError, ValueError, KeyError) as e:
        print(f"wyoming_client: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
