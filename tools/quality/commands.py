"""Running other programs for the quality report, and how it talks about their failures.

Every external step (synthesis, conversion, recognition, benchmarks) goes through run(): a failure
becomes a message in the report rather than an exception, so one bad utterance does not end a run
that has been going for an hour. Fatal is for what makes the whole report meaningless (no voice,
no recogniser, no evaluation files); its code is the exit status.
"""

import shlex
import subprocess
import sys

COMMAND_TIMEOUT = 900  # seconds for one synthesis or recognition


class Fatal(Exception):
    def __init__(self, message, code=3):
        super().__init__(message)
        self.code = code


def log(message):
    print(f"quality-report: {message}", file=sys.stderr, flush=True)


def run(cmd, timeout=COMMAND_TIMEOUT, env=None):
    """(returncode, stdout, stderr); a missing program or a timeout becomes returncode -1."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           errors="replace")
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError as e:
        return -1, "", f"cannot run {cmd[0]}: {e}"
    except subprocess.TimeoutExpired:
        return -1, "", f"timed out after {timeout} s"


def tail(text, lines=3):
    """The last few non-blank lines of a program's output, on one line."""
    text = "\n".join(line for line in text.strip().splitlines() if line.strip())
    return " / ".join(text.splitlines()[-lines:]) if text else "(no message)"


def describe_failure(what, cmd, rc, stderr):
    code = "could not run" if rc == -1 else f"exit {rc}"
    return f"{what} failed ({code}): {tail(stderr)}  [command: {shlex.join(cmd)}]"
