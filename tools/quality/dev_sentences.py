"""The development sentences (../shared/eval): each spoken by our voice, flite (voices kal16, rms
and slt) and espeak-ng, and scored against dev-references.txt."""

import os
import time
from dataclasses import dataclass, field

from commands import Fatal
from inputs import find_eval_dir, read_lines
from scoring import Item, run_parallel, score_item
from systems import FLITE_VOICES, espeak_say, flite_say, tts_say


def is_harvard(key):
    """Sentences 1-30 of the dev set are Harvard sentences; 31-40 test text normalisation."""
    return int(key) <= 30


@dataclass
class DevSentences:
    eval_dir: str
    sentences: list      # the text each system speaks
    references: list     # what the recogniser should hear
    n_all: int           # sentences in the file, before --limit
    systems: list = field(default_factory=list)   # (system id, label, make(text))
    items: dict = field(default_factory=dict)     # system id -> {key: Item}
    seconds: float = 0.0

    @property
    def keys(self):
        """Sentence numbers, from 1, as strings."""
        return [str(i + 1) for i in range(len(self.sentences))]

    def pooled(self, system_ids):
        return [i for s in system_ids for i in self.items[s].values()]


def load(root, given_eval_dir, limit):
    eval_dir = find_eval_dir(root, given_eval_dir)
    sentences = read_lines(os.path.join(eval_dir, "dev-sentences.txt"))
    references = read_lines(os.path.join(eval_dir, "dev-references.txt"))
    if len(sentences) != len(references):
        raise Fatal(f"{eval_dir}: dev-sentences.txt has {len(sentences)} lines but "
                    f"dev-references.txt has {len(references)}")
    n_all = len(sentences)
    if limit:
        sentences, references = sentences[:limit], references[:limit]
    return DevSentences(eval_dir, sentences, references, n_all)


def speaking_systems(ctx):
    """(system id, label, make(text)): the voice once per seed, then flite's voices and espeak-ng.
    The vocoder samples, so one run of the voice is one draw: with 330 words its WER moves by
    several points with the seed alone. Its WER is pooled over the seeds (each seed's row is
    shown too)."""
    systems = [(sys_id, f"{ctx.voice_label}, seed {seed}",
                lambda t, seed=seed: tts_say(ctx.tts, ctx.voice_dir, t, seed))
               for sys_id, seed in zip(ctx.tts_ids, ctx.seeds)]
    systems += [(sys_id, f"flite {voice}", lambda t, voice=voice: flite_say(t, voice))
                for sys_id, voice in FLITE_VOICES]
    systems += [("espeak", "espeak-ng en-us", espeak_say)]
    return systems


def score(ctx, dev, systems=None, name="development sentences", native_too=True):
    """Every system (default: speaking_systems) speaks every sentence; fills dev.systems,
    dev.items and dev.seconds. native_too: also recognise each file at its own level."""
    dev.systems = systems if systems is not None else speaking_systems(ctx)
    dev_dir = os.path.join(ctx.work, name.replace(" ", "-"))
    os.makedirs(dev_dir)
    tasks = []
    for sys_id, _, maker in dev.systems:
        for key, text, ref in zip(dev.keys, dev.sentences, dev.references):
            item = Item(sys_id, key, text, ref)
            tasks.append(lambda item=item, m=maker(text):
                         score_item(item, m, dev_dir, native_too=native_too))
    t0 = time.monotonic()
    items = run_parallel(ctx.jobs, tasks, name)
    dev.seconds = time.monotonic() - t0
    dev.items = {sys_id: {i.key: i for i in items if i.system == sys_id}
                 for sys_id, _, _ in dev.systems}
    for i in items:
        if i.error:
            ctx.failures.append((name, f"{i.system} sentence {i.key} ({i.text!r}): {i.error}"))
