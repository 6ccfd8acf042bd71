"""tts: speech synthesis from Python, over libtts's C API (docs/python.md).

    import tts
    with tts.Voice.load("default") as voice:
        for chunk in voice.synthesize("Hello, world.", seed=7):
            play(chunk.samples, chunk.sample_rate)
        voice.synthesize_wav("Hello again.", "hello.wav")

Errors from the library are raised as tts.TtsError, carrying the C status (tts.Status) and the
library's message.
"""

import array
import ctypes
import enum
import os
import tempfile
import threading
import wave
from dataclasses import dataclass, field
from typing import List, NamedTuple, Optional, Union

from . import _capi
from ._capi import lib as _lib

try:
    import numpy as _np
except ImportError:  # samples come as array('f') instead
    _np = None

__all__ = ["Voice", "VoiceInfo", "Chunk", "Span", "Mark", "Status", "TtsError", "version",
           "synthesis_defaults", "Synthesis", "list_voices", "voice_search_path"]


class Status(enum.IntEnum):
    """The C API's status codes (TTS_OK, TTS_DONE, TTS_ERR_*), by value and name."""
    OK = _capi.TTS_OK
    DONE = _capi.TTS_DONE
    INVALID_ARGUMENT = _capi.TTS_ERR_INVALID_ARGUMENT
    NOT_FOUND = _capi.TTS_ERR_NOT_FOUND
    BAD_VOICE = _capi.TTS_ERR_BAD_VOICE
    BAD_INPUT = _capi.TTS_ERR_BAD_INPUT
    STATE = _capi.TTS_ERR_STATE
    CANCELLED = _capi.TTS_ERR_CANCELLED
    NO_MEMORY = _capi.TTS_ERR_NO_MEMORY
    UNSUPPORTED = _capi.TTS_ERR_UNSUPPORTED
    INTERNAL = _capi.TTS_ERR_INTERNAL

    @property
    def c_name(self) -> str:
        """The C macro's name, e.g. "TTS_ERR_NOT_FOUND"."""
        return "TTS_" + self.name if self.value >= 0 else "TTS_ERR_" + self.name


class TtsError(Exception):
    """A failure reported by libtts: `status` is the C status code (a Status, or a plain int for a
    code this package does not know), `message` the library's detailed message."""

    def __init__(self, status: int, message: str):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.message = message
        name = status.c_name if isinstance(status, Status) else str(status)
        description = _capi.text(_lib.tts_strerror(int(status)))
        super().__init__(f"{name} ({description}): {message}" if message else
                         f"{name} ({description})")


def _check(rc: int, message_of) -> int:
    if rc < 0:
        raise TtsError(rc, message_of())
    return rc


def _last_error() -> str:
    return _capi.text(_lib.tts_last_error())


def version() -> str:
    """The loaded library's version, e.g. "0.1.0"."""
    return _capi.text(_lib.tts_version())


@dataclass(frozen=True)
class VoiceInfo:
    name: str
    language: str      # espeak-ng voice, e.g. "en-us"
    sample_rate: int   # Hz
    licence: str
    source: str        # where the recordings came from
    path: str          # the voice folder
    size_bytes: int
    error: Optional[str] = None  # list_voices(): why its voice.json could not be read, if it could not
    languages: tuple = ()  # BCP 47 tags it speaks, e.g. ("en-US",)
    speaker: str = ""      # who speaks ("" when voice.json does not say)
    sex: str = ""          # "female", "male" or ""


class Span(NamedTuple):
    """One symbol of a sentence's alignment and the samples [start, end) of the sentence's audio it
    sounds in, counted from the sentence's first sample (as Chunk.sentence_offset is)."""
    symbol: str  # an IPA symbol, " " a word boundary, "^" and "$" the edges
    start: int
    end: int


class Mark(NamedTuple):
    """An SSML <mark name="..."/> as the audio reaches it: it falls just before samples[sample] of
    its chunk (sample == len(samples) for marks at the very end of the input)."""
    name: str
    sample: int         # offset in the chunk's samples
    stream_sample: int  # offset from the synthesis's first sample


@dataclass
class Chunk:
    """One chunk of audio, copied out of the library (it stays valid however long it is kept)."""
    samples: "Union[array.array, object]"  # float32 mono: numpy.ndarray, or array('f') without numpy
    sample_rate: int
    is_last: bool
    sentence_index: int     # 0, 1, ... in input order; -1 for a pause from SSML <break>
    sentence: str           # the sentence's text ("" for a pause)
    phonemes: str           # IPA of the whole sentence ("" for a pause)
    phoneme: str            # symbol sounding at the chunk's first sample ("" in silence)
    sentence_offset: int    # offset in samples of this chunk within its sentence
    alignment: List[Span] = field(default_factory=list)  # the sentence's, the same for its chunks
    marks: List[Mark] = field(default_factory=list)


_OPTION_NAMES = tuple(name for name, _ in _capi.tts_synthesis_options._fields_
                      if name != "struct_size")


def synthesis_defaults() -> dict:
    """The library's default synthesis options, by the names synthesize() takes."""
    o = _capi.defaults(_capi.tts_synthesis_options, _lib.tts_default_synthesis_options,
                       getattr(_lib, "tts_default_synthesis_options_sized", None))
    values = {name: getattr(o, name) for name in _OPTION_NAMES}
    values["ssml"] = bool(values["ssml"])
    values["language"] = values["language"].decode("utf-8") if values["language"] else None
    return values


def _options(kwargs) -> "_capi.tts_synthesis_options":
    o = _capi.defaults(_capi.tts_synthesis_options, _lib.tts_default_synthesis_options,
                       getattr(_lib, "tts_default_synthesis_options_sized", None))
    for name, value in kwargs.items():
        if name not in _OPTION_NAMES:
            raise TypeError(f"unknown synthesis option {name!r} (known: {', '.join(_OPTION_NAMES)})")
        if value is None:
            continue
        if name in ("seed", "threads", "chunk_samples"):
            if isinstance(value, bool) or int(value) != value:
                raise TypeError(f"synthesis option {name} must be an integer, not {value!r}")
            value = int(value)
            # What the C field can hold (the library checks the range within it).
            bits = 8 * ctypes.sizeof(dict(_capi.tts_synthesis_options._fields_)[name])
            low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if name == "threads" else (0, 2 ** bits)
            if not low <= value < high:
                raise TtsError(Status.INVALID_ARGUMENT,
                               f"{name} {value} does not fit its C field (from {low} below {high})")
        elif name == "ssml":
            value = 1 if value else 0
        elif name == "language":
            if not isinstance(value, str):
                raise TypeError(f"synthesis option language must be a str, not {value!r}")
            if "\0" in value:  # a C string ends at the NUL: "es\0garbage" would read as "es"
                shown = "".join(f"\\x{ord(c):02X}" if ord(c) < 0x20 or ord(c) == 0x7F else c
                                for c in value)
                raise TtsError(Status.INVALID_ARGUMENT,
                               f'language tag "{shown}" holds a NUL character')
            value = value.encode("utf-8")  # "" too: the library refuses an empty tag
        else:
            value = float(value)
        setattr(o, name, value)
    return o


def _encode(text: Union[str, bytes]) -> bytes:
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)  # passed as is: the library checks it is UTF-8
    elif isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as e:  # lone surrogates
            raise TtsError(Status.BAD_INPUT, f"text is not valid Unicode: {e}") from None
    else:
        raise TypeError(f"text must be str or bytes, not {type(text).__name__}")
    if b"\0" in data:
        raise TtsError(Status.BAD_INPUT, "text contains a NUL character")
    return data


def _copy_samples(c: "_capi.tts_chunk"):
    n = c.count
    if _np is not None:
        if n == 0:
            return _np.zeros(0, dtype=_np.float32)
        return _np.ctypeslib.as_array(c.samples, shape=(n,)).astype(_np.float32, copy=True)
    out = array.array("f")
    if n:
        out.frombytes(ctypes.string_at(c.samples, n * ctypes.sizeof(ctypes.c_float)))
    return out


class Voice:
    """A loaded voice (tts_voice). Immutable and safe to share between threads; each synthesize()
    runs on a stream of its own. Close it with close() or a with-block (streams still running keep
    the voice's data alive, as the C API promises)."""

    def __init__(self, handle: int):
        self._handle = _capi.tts_voice_p(handle)
        self._lock = threading.Lock()
        info = _capi.tts_voice_info()
        info.struct_size = ctypes.sizeof(info)
        _check(_lib.tts_voice_get_info(self._handle, ctypes.byref(info)), _last_error)
        self.info = _voice_info(info)

    @classmethod
    def load(cls, name_or_path: Union[str, os.PathLike], *, device: str = "cpu") -> "Voice":
        """Loads a voice by name (searched in $TTS_VOICE_PATH, ~/.local/share/tts/voices, the
        installed voices folder) or by folder path (anything containing '/')."""
        name = os.fspath(name_or_path)
        if isinstance(name, str):
            name = name.encode("utf-8")
        if b"\0" in name:
            # C would read the name only up to the NUL: "default\0/../x" would load "default".
            raise TtsError(Status.INVALID_ARGUMENT,
                           f"voice name or path {name!r} contains a NUL character")
        devices = {"cpu": _capi.TTS_DEVICE_CPU, "cuda": _capi.TTS_DEVICE_CUDA}
        if device not in devices:
            raise TtsError(Status.INVALID_ARGUMENT, f"unknown device {device!r} (cpu or cuda)")
        o = _capi.defaults(_capi.tts_voice_options, _lib.tts_default_voice_options,
                           getattr(_lib, "tts_default_voice_options_sized", None))
        o.device = devices[device]
        handle = _capi.tts_voice_p()
        _check(_lib.tts_voice_load(name, ctypes.byref(o), ctypes.byref(handle)), _last_error)
        try:
            return cls(handle.value)
        except BaseException:
            _lib.tts_voice_free(handle)
            raise

    def close(self) -> None:
        """Frees the voice. Generators still running keep working; new calls raise TtsError."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle:
            _lib.tts_voice_free(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None):
            self.close()

    def __repr__(self):
        return f"<tts.Voice {self.info.name!r} {self.info.language} {self.info.sample_rate} Hz>"

    def _new_stream(self):
        with self._lock:
            if not self._handle:
                raise TtsError(Status.INVALID_ARGUMENT, "the voice is closed")
            stream = _capi.tts_stream_p()
            _check(_lib.tts_stream_create(self._handle, ctypes.byref(stream)), _last_error)
        return stream

    def synthesize(self, text: Union[str, bytes], **options) -> "Synthesis":
        """Synthesises `text` (UTF-8 str or bytes), yielding Chunks as the audio is made.

        Options (tts_synthesis_options; unset ones keep the library's defaults, see
        synthesis_defaults()): rate, pitch_semitones, volume, sentence_silence, seed, temperature,
        threads, ssml (True: the text is SSML), chunk_samples, language (a BCP 47 tag the voice
        speaks, VoiceInfo.languages: the text's language). Invalid options raise TtsError
        (Status.INVALID_ARGUMENT) at the call, before anything is yielded; text that cannot be
        spoken raises TtsError (Status.BAD_INPUT) after the chunks of the sentences before it.
        Closing the generator early (close(), break out of a for loop, garbage collection) cancels
        the synthesis and frees its stream and threads (see Synthesis)."""
        data = _encode(text)
        o = _options(options)
        stream = self._new_stream()
        try:
            _check(_lib.tts_synthesize_start(stream, data, ctypes.byref(o)),
                   lambda: _capi.text(_lib.tts_stream_last_error(stream)))
        except BaseException:
            _lib.tts_stream_free(stream)
            raise
        return Synthesis(stream)

    def synthesize_wav(self, text: Union[str, bytes], path: Union[str, os.PathLike],
                       **options) -> int:
        """Synthesises `text` into a 16-bit PCM mono WAV file at `path`, written to a temporary
        file beside it and renamed into place once complete (no partial file on failure). Takes
        synthesize()'s options; returns the number of samples written."""
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".tts-", suffix=".wav.tmp", dir=folder)
        total = 0
        try:
            with os.fdopen(fd, "wb") as f, wave.open(f, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(self.info.sample_rate)
                chunks = self.synthesize(text, **options)
                try:
                    for chunk in chunks:
                        if chunk.sample_rate != w.getframerate() and total == 0:
                            w.setframerate(chunk.sample_rate)
                        w.writeframes(_pcm16(chunk.samples))
                        total += len(chunk.samples)
                finally:
                    chunks.close()
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return total


def _pcm16(samples) -> bytes:
    """float32 in [-1, 1] to little-endian 16-bit PCM, clipped (x * 32767, rounded)."""
    if _np is not None and isinstance(samples, _np.ndarray):
        return (_np.rint(_np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")).tobytes()
    out = array.array("h", (int(round(max(-1.0, min(1.0, x)) * 32767.0)) for x in samples))
    if array.array("h", [1]).tobytes() != b"\x01\x00":
        out.byteswap()
    return out.tobytes()


class Synthesis:
    """The chunks of one synthesize() call, as an iterator (`for chunk in voice.synthesize(...)`).

    It owns a tts_stream: once exhausted, closed (close(), a with-block, or dropping the last
    reference, e.g. by breaking out of the for loop) the synthesis is cancelled and the stream, with
    its threads, freed. cancel() may be called from any thread: a next() waiting in another raises
    TtsError(Status.CANCELLED)."""

    def __init__(self, stream):
        self._stream = stream
        self._lock = threading.Lock()  # held during tts_synthesize_next; close() waits for it
        self._free_lock = threading.Lock()  # held by cancel() and while the stream is freed
        self._chunk = _capi.tts_chunk()
        self._chunk.struct_size = ctypes.sizeof(self._chunk)
        self._sentence_key = None
        self._alignment: List[Span] = []

    def __iter__(self):
        return self

    def __next__(self) -> Chunk:
        with self._lock:
            stream = self._stream
            if not stream:
                raise StopIteration
            c = self._chunk
            rc = _lib.tts_synthesize_next(stream, ctypes.byref(c))
            if rc == _capi.TTS_DONE:
                self._free()
                raise StopIteration
            if rc < 0:
                message = _capi.text(_lib.tts_stream_last_error(stream))
                self._free()
                raise TtsError(rc, message)
            return self._convert(c)

    def _convert(self, c) -> Chunk:
        # The alignment is the same array for every chunk of a sentence: convert it once.
        key = (c.sentence_index, ctypes.cast(c.alignment, ctypes.c_void_p).value)
        if key != self._sentence_key:
            self._sentence_key = key
            spans = c.alignment
            self._alignment = [Span(_capi.text(spans[i].symbol), int(spans[i].start),
                                    int(spans[i].start + spans[i].count))
                               for i in range(c.alignment_count)] if spans else []
        return Chunk(
            samples=_copy_samples(c), sample_rate=int(c.sample_rate), is_last=bool(c.is_last),
            sentence_index=int(c.sentence_index), sentence=_capi.text(c.sentence_text),
            phonemes=_capi.text(c.phonemes), phoneme=_capi.text(c.phoneme),
            sentence_offset=int(c.sentence_offset), alignment=self._alignment, marks=_marks(c))

    def _free(self):
        with self._free_lock:
            stream, self._stream = self._stream, None
            if stream:
                _lib.tts_stream_free(stream)  # cancels what still runs and joins its threads

    def cancel(self) -> None:
        """Stops the synthesis as soon as possible (within one chunk); safe from any thread."""
        with self._free_lock:
            if self._stream:
                _lib.tts_stream_cancel(self._stream)

    def close(self) -> None:
        """Cancels the synthesis if it still runs and frees its stream; idempotent."""
        self.cancel()
        with self._lock:
            self._free()

    @property
    def closed(self) -> bool:
        return not self._stream

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_stream", None):
            self.close()


def _marks(c) -> List[Mark]:
    if not c.marks or not c.mark_count:
        return []
    return [Mark(_capi.text(c.marks[i].name), int(c.marks[i].sample),
                 int(c.marks[i].stream_sample)) for i in range(c.mark_count)]


def _voice_info(info, error=None) -> VoiceInfo:
    return VoiceInfo(
        name=_capi.text(info.name), language=_capi.text(info.language),
        sample_rate=int(info.sample_rate), licence=_capi.text(info.licence),
        source=_capi.text(info.source), path=_capi.text(info.path),
        size_bytes=int(info.size_bytes), error=error,
        languages=tuple(t for t in (_capi.text(info.languages) or "").split(",") if t),
        speaker=_capi.text(info.speaker), sex=_capi.text(info.sex))


def _voice_list():
    if not _capi.HAVE_VOICE_LIST:
        raise TtsError(Status.UNSUPPORTED, f"libtts {version()} has no voice listing "
                       "(tts_voice_list_create)")
    handle = _capi.tts_voice_list_p()
    _check(_lib.tts_voice_list_create(ctypes.byref(handle)), _last_error)
    return handle


def list_voices() -> List[VoiceInfo]:
    """The voices on the search path (see voice_search_path()), in search-path order, a name found
    twice listed once (the one Voice.load takes), read from their voice.json without loading them.
    `name` is the name Voice.load finds it by (its folder's name). A voice whose voice.json cannot
    be read is listed with its name and path and the reason in `error`."""
    handle = _voice_list()
    try:
        voices = []
        for i in range(_lib.tts_voice_list_count(handle)):
            info = _capi.tts_voice_info()
            info.struct_size = ctypes.sizeof(info)
            rc = _lib.tts_voice_list_get(handle, i, ctypes.byref(info))
            if rc == _capi.TTS_ERR_BAD_VOICE:
                voices.append(_voice_info(info, _last_error() or "bad voice"))
            else:
                _check(rc, _last_error)
                voices.append(_voice_info(info))
        return voices
    finally:
        _lib.tts_voice_list_free(handle)


def voice_search_path() -> List[str]:
    """The folders searched for voices by name, in order ($TTS_VOICE_PATH's, then
    $XDG_DATA_HOME/tts/voices or ~/.local/share/tts/voices, then the installed voices), read from
    the environment now; folders that do not exist are listed too."""
    handle = _voice_list()
    try:
        return [_capi.text(_lib.tts_voice_list_search_path(handle, i))
                for i in range(_lib.tts_voice_list_search_path_count(handle))]
    finally:
        _lib.tts_voice_list_free(handle)
