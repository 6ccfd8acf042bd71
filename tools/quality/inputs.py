"""What the report reads before it starts: the voice (its folder and voice.json, and a first
sentence to show that it speaks at all) and the folder of evaluation texts."""

import json
import os

from commands import Fatal, describe_failure, run, tail


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def find_eval_dir(root, given):
    candidates = [given] if given else [os.path.join(root, "..", "shared", "eval"),
                                        os.path.join(root, "shared", "eval")]
    for c in candidates:
        if os.path.isfile(os.path.join(c, "dev-sentences.txt")):
            return os.path.normpath(c)
    raise Fatal("no dev-sentences.txt in " + " or ".join(os.path.normpath(c) for c in candidates)
                + " (pass --eval-dir)")


def resolve_voice(tts, voice):
    """The voice's folder: a path as given, else the FOLDER column of `tts voices` for the name."""
    if os.sep in voice or voice.startswith(".") or os.path.isdir(voice):
        folder = os.path.abspath(voice)
        if not os.path.isdir(folder):
            raise Fatal(f"voice folder {folder} does not exist (is --voice right?)")
        if not os.path.isfile(os.path.join(folder, "voice.json")):
            raise Fatal(f"voice folder {folder} has no voice.json (is --voice right?)")
        return folder
    rc, out, err = run([tts, "voices"])
    if rc != 0:
        raise Fatal(describe_failure("tts voices", [tts, "voices"], rc, err))
    for line in out.splitlines()[1:]:
        fields = line.split()
        if fields and fields[0] == voice:
            # FOLDER is the last column; a folder path with spaces spans several fields
            start = line.rfind(" /")
            folder = line[start + 1:].strip() if start >= 0 else fields[-1]
            if os.path.isfile(os.path.join(folder, "voice.json")):
                return folder
    raise Fatal(f"no voice named '{voice}' on the voice search path ({tail(out + err, 1)}); "
                f"pass --voice NAME or --voice FOLDER")


def read_voice_json(voice_dir):
    try:
        with open(os.path.join(voice_dir, "voice.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise Fatal(f"cannot read {voice_dir}/voice.json: {e}")


def check_voice_speaks(tts, voice_dir, work):
    """A sentence through the voice first: a voice that cannot speak at all stops the run here,
    not after an hour of failures."""
    probe = os.path.join(work, "probe.wav")
    cmd = [tts, "say", "--voice", voice_dir, "-o", probe, "--", "Testing."]
    rc, _, err = run(cmd)
    if rc != 0:
        raise Fatal(f"the voice {voice_dir} cannot speak: "
                    + describe_failure("tts say", cmd, rc, err))
