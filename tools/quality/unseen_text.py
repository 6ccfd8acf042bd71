"""Sentences the bundled voice was never trained on, for a WER check beyond the 40 dev sentences.

Plain sentences from Debian's fortunes (scripts/corpus/fortune_sentences.py), minus the 8,000 that
the bundled voice's acoustic model was pre-trained on (scripts/train-acoustic-asterisk builds that
corpus with `build-flite-corpus data/flite-fortunes 8000 --text fortunes`, seed 1; MODEL_CARD.md)
and minus the dev sentences. A check set drawn from all fortunes would be mostly text the model
has already spoken (31 of 40 such sentences were, in one check), which flatters it against flite.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "corpus"))

import flite_corpus  # noqa: E402
import fortune_sentences  # noqa: E402
from dev_sentences import DevSentences  # noqa: E402
from dev_sentences import speaking_systems as dev_speaking_systems  # noqa: E402

# The bundled voice's pre-training text: (kind, count, seed) as build-flite-corpus was run.
PRETRAINING_TEXT = ("fortunes", 8000, 1)
# Which unseen sentences the quality report draws (one fixed set, so that reports compare).
UNSEEN_SENTENCE_SEED = 1


def pretraining_sentences(text=PRETRAINING_TEXT):
    kind, count, seed = text
    return flite_corpus.choose_texts(kind, count, seed)


def unseen_fortunes(count, seed, dev_sentences=()):
    """`count` fortunes sentences in neither the pre-training text nor `dev_sentences`; the same
    for the same seed and fortune files."""
    exclude = list(pretraining_sentences()) + list(dev_sentences)
    return fortune_sentences.sample(count, seed, exclude=exclude)


def load(count, seed, dev_sentences):
    """The report's unseen-prose set as a DevSentences (the text is its own reference)."""
    sentences = unseen_fortunes(count, seed, dev_sentences)
    return DevSentences(eval_dir=None, sentences=sentences, references=list(sentences),
                        n_all=count)


def speaking_systems(ctx):
    """Our voice once per seed and flite's voices (espeak-ng, far behind on the dev sentences,
    is left out to keep the run short)."""
    return [s for s in dev_speaking_systems(ctx) if s[0] != "espeak"]
