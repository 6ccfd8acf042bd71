"""The systems that speak in the report. Each function returns make(out_path) -> error or None,
which writes one utterance's audio to out_path; scoring.score_item takes it from there."""

import json
import os
import shutil

from commands import describe_failure, run, tail


def tts_say(tts, voice_dir, text, seed=0, extra=()):
    """Our voice, from the text."""
    def make(out):
        cmd = [tts, "say", "--voice", voice_dir, "-o", out, "--seed", str(seed), *extra, "--",
               text]
        rc, _, err = run(cmd)
        return None if rc == 0 else describe_failure("tts say", cmd, rc, err)
    return make


# flite's voices that speak beside ours: (system id, voice). kal16 (diphone, male) was the only one
# until the Praat judge came; rms (male) and slt (female, as ours) are its clustergen voices.
FLITE_VOICES = [("flite-kal16", "kal16"), ("flite-rms", "rms"), ("flite-slt", "slt")]


def flite_say(text, voice="kal16"):
    def make(out):
        cmd = ["flite", "-voice", voice, "-t", text, "-o", out]
        rc, _, err = run(cmd)
        return None if rc == 0 else describe_failure("flite", cmd, rc, err)
    return make


def espeak_say(text, voice="en-us"):
    def make(out):
        cmd = ["espeak-ng", "-v", voice, "-w", out, text]
        rc, _, err = run(cmd)
        return None if rc == 0 else describe_failure("espeak-ng", cmd, rc, err)
    return make


def copy_file(src):
    """The human recording itself."""
    def make(out):
        if not os.path.isfile(src):
            return f"recording {src} is missing"
        shutil.copyfile(src, out)
        return None
    return make


def vocode(tts, vocoder_dir, src, item, seed):
    """Copy-synthesis: the recording's log-mel frames through the voice's vocoder. The log-mel
    distance that `tts vocode --report` prints goes into item.extra."""
    def make(out):
        if not os.path.isfile(src):
            return f"recording {src} is missing"
        cmd = [tts, "vocode", src, "-o", out, "--model", vocoder_dir, "--report", "--seed",
               str(seed)]
        rc, stdout, err = run(cmd)
        if rc != 0:
            return describe_failure("tts vocode", cmd, rc, err)
        for line in reversed(stdout.splitlines()):
            line = line.strip()
            if line.startswith("{"):
                try:
                    item.extra = json.loads(line)
                except json.JSONDecodeError:
                    pass
                break
        if "log_mel_distance" not in item.extra:
            return f"tts vocode --report printed no log_mel_distance: {tail(stdout + err)}"
        return None
    return make
