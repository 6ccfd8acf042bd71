#!/usr/bin/python3
"""Build an LJSpeech-style corpus from the Debian Asterisk core prompts (CC-BY-SA-3.0) of one
language: en (Allison Smith), es (Allison Smith, Mexican Spanish), fr (June, Canadian French),
it (Carlo), ru (a female speaker).

Usage: asterisk_corpus.py OUT_DIR [--language XX] [--sounds-dir DIR] [--transcripts FILE] [--jobs N]

Audio: every *.g722 under the sounds folder of asterisk-core-sounds-XX-g722, decoded by ffmpeg to
16 kHz mono 16-bit wav. Text: core-sounds-XX.txt.gz of asterisk-core-sounds-XX ("path: text",
UTF-8; a byte-order mark, as the Italian file has, is skipped). English transcripts are normalised
here (normalise.py); the other languages keep their digits, which the engine's normaliser of that
language spells at training time as it does at synthesis (docs/languages.md).
See docs/corpus.md for what is kept, what is dropped and why.
"""

import argparse
import concurrent.futures
import gzip
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ljspeech  # noqa: E402
from normalise import normalise  # noqa: E402

# Per language: the speaker (Debian's copyright files and sound folder names), the BCP 47 tag of
# the recordings, and the words for the keypad symbols the prompts name.
LANGUAGES = {
    "en": {"speaker": "Allison Smith (en_US, female)", "tag": "en-US", "name": "English",
           "keys": {}},
    "es": {"speaker": "Allison Smith (es_MX, female)", "tag": "es-MX", "name": "Mexican Spanish",
           "keys": {"#": "numeral", "*": "asterisco"}},
    "fr": {"speaker": "June (fr_CA, female)", "tag": "fr-CA", "name": "Canadian French",
           "keys": {"#": "dièse", "*": "étoile"}},
    "it": {"speaker": "Carlo (it_IT, male)", "tag": "it-IT", "name": "Italian",
           "keys": {"#": "cancelletto", "*": "asterisco"}},
    "ru": {"speaker": "IvrvoiceRU (ru_RU, female)", "tag": "ru-RU", "name": "Russian",
           "keys": {"#": "решётка", "*": "звёздочка"}},
}
LANGUAGE = "en"


def audio_package(language=None):
    return "asterisk-core-sounds-%s-g722" % (language or LANGUAGE)


def text_package(language=None):
    return "asterisk-core-sounds-%s" % (language or LANGUAGE)

# A transcript that is only a description in brackets: "[ascending tones]", "<beep ascending>",
# "(10 seconds of silence)".
_DESCRIPTION_ONLY = re.compile(r"^\s*(\[[^\]]*\]|<[^>]*>|\([^)]*\))\s*$")
_BRACKETED = re.compile(r"\s*\[[^\]]*\]")
_NOTE = re.compile(r"\s*\(note:[^)]*\)", re.IGNORECASE)
# A parenthesised stage direction that says a sound is heard in the recording.
_SOUND_NOTE = re.compile(r"\([^)]*\b(tone|beep|sound|plays|music)\b[^)]*\)", re.IGNORECASE)


def package_files(package):
    out = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("build-asterisk-corpus: package %s is not installed (%s)" % (
            package, out.stderr.strip()))
    return [line for line in out.stdout.splitlines() if line.strip()]


def package_version(package):
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True,
                         text=True)
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def default_sounds_dir():
    files = [f for f in package_files(audio_package()) if f.endswith(".g722")]
    if not files:
        raise SystemExit("build-asterisk-corpus: %s lists no .g722 files" % audio_package())
    return os.path.commonpath(files) if len(files) > 1 else os.path.dirname(files[0])


def default_transcripts():
    name = "core-sounds-%s.txt" % LANGUAGE
    for f in package_files(text_package()):
        if f.endswith(name + ".gz") or f.endswith(name):
            return f
    raise SystemExit("build-asterisk-corpus: %s has no %s(.gz)" % (text_package(), name))


def read_transcripts(path):
    """Return ({key: text}, [(key, problem)]). Lines are 'relative/path: text'; ';' starts a
    comment line. A key listed twice keeps its first text."""
    opener = gzip.open if path.endswith(".gz") else open
    texts, problems = {}, []
    # utf-8-sig: the Italian file starts with a byte-order mark, which would become part of the
    # first line (its comment sign then no longer first).
    with opener(path, "rt", encoding="utf-8-sig", errors="replace") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith(";"):
                continue
            if ":" not in line:
                problems.append(("line %d" % number, "no 'path: text' separator"))
                continue
            key, text = line.split(":", 1)
            key = key.strip()
            if key in texts:
                problems.append((key, "listed twice in the transcripts (line %d)" % number))
                continue
            texts[key] = " ".join(text.split())
    return texts, problems


def clean_transcript(key, raw, language="en"):
    """Return (spoken text, None) or (None, (reason, detail))."""
    if _DESCRIPTION_ONLY.match(raw):
        return None, ("non-speech (transcript is a description)", raw)
    if _SOUND_NOTE.search(raw):
        return None, ("transcript notes a non-speech sound in the audio", raw)
    text = _BRACKETED.sub("", raw)          # "at [@]" -> "at": the bracket shows the symbol
    text = _NOTE.sub("", text)              # "IAX (note: does not say "2")" -> "IAX"
    text = " ".join(text.split())
    if key.startswith("letters/") and len(text) == 1 and text.isalpha():
        text = text.upper()                 # the letter name, not the article "a"
    # Fragments made to be joined ("...has joined the conference.") keep their words only.
    text = re.sub(r"^(\.\.\.|…)\s*", "", text)
    text = re.sub(r"\s*(\.\.\.|…)", "...", text)   # "Press ..." -> "Press...": a pause, kept
    if language == "en":
        spoken = normalise(text)
    else:
        spoken = text.replace("\u201c", "").replace("\u201d", "")  # curly quotes around a prompt
        for symbol, word in LANGUAGES[language]["keys"].items():
            spoken = spoken.replace(symbol, word)
        spoken = " ".join(spoken.split())
    if not re.search(r"[^\W\d_]", spoken):
        return None, ("empty transcript after cleaning", raw)
    if "|" in spoken or "|" in raw:
        return None, ("transcript contains '|'", raw)
    return spoken, None


def decode(ffmpeg, source, target):
    cmd = [ffmpeg, "-nostdin", "-hide_banner", "-v", "error", "-y", "-f", "g722", "-i", source,
           "-ac", "1", "-ar", str(ljspeech.SAMPLE_RATE), "-c:a", "pcm_s16le", "-map_metadata", "-1",
           "-fflags", "+bitexact", "-flags:a", "+bitexact", target]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return "ffmpeg exit %d: %s" % (out.returncode, out.stderr.strip().splitlines()[-1:]
                                       and out.stderr.strip().splitlines()[-1])
    return None


def process(ffmpeg, source, target):
    """Decode and inspect one prompt: (seconds, peak, rms, error)."""
    error = decode(ffmpeg, source, target)
    if error:
        return 0.0, 0.0, 0.0, error
    try:
        seconds, peak, rms = ljspeech.inspect_wav(target)
    except ValueError as e:
        return 0.0, 0.0, 0.0, str(e)
    return seconds, peak, rms, None


def find_audio(sounds_dir):
    found = []
    for root, _, files in os.walk(sounds_dir):
        for name in files:
            if name.endswith(".g722"):
                full = os.path.join(root, name)
                found.append(os.path.relpath(full, sounds_dir))
    return sorted(found)


def build(out_dir, sounds_dir, transcripts, jobs, ffmpeg):
    started = time.time()
    texts, text_problems = read_transcripts(transcripts)
    audio = find_audio(sounds_dir)
    if not audio:
        raise SystemExit("build-asterisk-corpus: no .g722 files under %s" % sounds_dir)

    stage = ljspeech.StagedFolder(out_dir)
    try:
        kept, dropped = [], []
        seen = {}
        todo = []
        for relative in audio:
            key = os.path.splitext(relative)[0].replace(os.sep, "/")
            ident = ljspeech.id_from_path(relative)
            folded = ident.lower()  # ids must also be unique on case-insensitive file systems
            if folded in seen:
                dropped.append((ident, "duplicate id", "also made from %s" % seen[folded]))
                continue
            seen[folded] = relative
            if key not in texts:
                dropped.append((ident, "no transcript for the audio", relative))
                continue
            spoken, problem = clean_transcript(key, texts[key], LANGUAGE)
            if problem:
                dropped.append((ident, problem[0], problem[1]))
                continue
            todo.append((ident, key, spoken))

        audio_keys = {os.path.splitext(r)[0].replace(os.sep, "/") for r in audio}
        unused_text = sorted(k for k in texts if k not in audio_keys)

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {
                pool.submit(process, ffmpeg, os.path.join(sounds_dir, key + ".g722"),
                            stage.path("wavs", ident + ".wav")): (ident, key, spoken)
                for ident, key, spoken in todo
            }
            for future in concurrent.futures.as_completed(futures):
                ident, key, spoken = futures[future]
                seconds, peak, rms, error = future.result()
                reason = ("audio does not decode", error) if error else None
                if not reason:
                    why = ljspeech.check_audio(seconds, peak)
                    if why:
                        reason = (why, "%.2f s, peak %.1f dBFS" % (seconds, ljspeech.db(peak)))
                if reason:
                    dropped.append((ident, reason[0], reason[1]))
                    wav = stage.path("wavs", ident + ".wav")
                    if os.path.exists(wav):
                        os.remove(wav)
                    continue
                kept.append({"id": ident, "raw": texts[key], "normalised": spoken,
                             "seconds": seconds, "peak": peak, "rms": rms})

        summary = ljspeech.write_outputs(stage, kept, dropped, {
            "source": {
                "audio": "%s %s (%s)" % (audio_package(), package_version(audio_package()),
                                         sounds_dir),
                "text": "%s %s (%s)" % (text_package(), package_version(text_package()),
                                        transcripts),
                "speaker": LANGUAGES[LANGUAGE]["speaker"],
                "language": LANGUAGES[LANGUAGE]["tag"],
                "licence": "CC-BY-SA-3.0",
            },
            "audio_files": len(audio),
            "transcripts_without_audio": unused_text,
            "transcript_problems": ["%s: %s" % p for p in text_problems],
        })
        with open(stage.path("LICENSE.txt"), "w", encoding="utf-8") as f:
            f.write("Asterisk core sound prompts, %s, recorded by %s.\n"
                    "Licensed under Creative Commons Attribution-ShareAlike 3.0 (CC-BY-SA-3.0),\n"
                    "see /usr/share/doc/%s/copyright. Anything trained on this folder\n"
                    "(a voice) inherits CC-BY-SA-3.0.\n" % (
                        LANGUAGES[LANGUAGE]["name"], LANGUAGES[LANGUAGE]["speaker"],
                        text_package()))
        stage.commit()
    except BaseException:
        stage.abandon()
        raise
    ljspeech.print_summary("build-asterisk-corpus", out_dir, summary)
    print("  built in %.0f s" % (time.time() - started))
    if unused_text:
        print("  transcripts without audio (ignored): %s" % ", ".join(unused_text))
    return summary


def main(argv):
    parser = argparse.ArgumentParser(prog="build-asterisk-corpus", description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--language", default="en", choices=sorted(LANGUAGES),
                        help="which prompts: en, es, fr, it, ru (default en)")
    parser.add_argument("--sounds-dir", help="folder of .g722 prompts (default: from dpkg -L "
                        "asterisk-core-sounds-XX-g722)")
    parser.add_argument("--transcripts", help="core-sounds-XX.txt(.gz) (default: from dpkg -L "
                        "asterisk-core-sounds-XX)")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--ffmpeg", default="ffmpeg")
    args = parser.parse_args(argv)
    global LANGUAGE
    LANGUAGE = args.language
    sounds_dir = args.sounds_dir or default_sounds_dir()
    transcripts = args.transcripts or default_transcripts()
    build(args.out_dir, sounds_dir, transcripts, max(1, args.jobs), args.ffmpeg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
