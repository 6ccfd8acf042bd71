"""Parses the training logs a voice ships (training/vocoder.log, training/acoustic.log).

Vocoder lines:  step 4100/200000  loss 2.1721  val 2.4569  14744 samples/s  ETA 59h03m
Acoustic lines: step 500/30000  loss 1.3594 (mel 0.3789 prior 0.1548 dur 0.8257)  val mel 0.8589  ...

The vocoder repeats its latest validation loss on every line until the next validation; the acoustic
trainer prints "val mel" only on validation lines. Both are handled the same way: a validation point
is the step at which a validation value first appears (after a line without one, or when it changes).
When a run was resumed from an earlier checkpoint, the later line for a step replaces the earlier one.
Other lines (corpus:, model:, resumed from ...) are ignored.
"""

import re
from dataclasses import dataclass, field

_STEP = re.compile(r"^step\s+(\d+)/(\d+)\s+loss\s+([-+0-9.eE]+|nan|inf)")
_MEL = re.compile(r"\(mel\s+([-+0-9.eE]+)")
_VAL = re.compile(r"\bval(?:\s+mel)?\s+([-+0-9.eE]+)")


@dataclass
class Log:
    train_steps: list = field(default_factory=list)
    train_loss: list = field(default_factory=list)
    train_mel: list = field(default_factory=list)   # acoustic only (else empty)
    val_steps: list = field(default_factory=list)
    val_loss: list = field(default_factory=list)
    total_steps: int = 0
    ignored_lines: int = 0

    @property
    def empty(self):
        return not self.train_steps


def parse(text):
    by_step = {}
    log = Log()
    for line in text.splitlines():
        line = line.strip()
        m = _STEP.match(line)
        if not m:
            if line.startswith("step"):
                log.ignored_lines += 1
            continue
        step, total = int(m.group(1)), int(m.group(2))
        log.total_steps = max(log.total_steps, total)
        mel = _MEL.search(line)
        val = _VAL.search(line[m.end():])
        by_step[step] = (float(m.group(3)), float(mel.group(1)) if mel else None,
                         float(val.group(1)) if val else None)
    previous_val = None
    for step in sorted(by_step):
        loss, mel, val = by_step[step]
        log.train_steps.append(step)
        log.train_loss.append(loss)
        if mel is not None:
            log.train_mel.append(mel)
        if val is not None and val != previous_val:
            log.val_steps.append(step)
            log.val_loss.append(val)
        previous_val = val
    if len(log.train_mel) != len(log.train_steps):
        log.train_mel = []
    return log


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse(f.read())
