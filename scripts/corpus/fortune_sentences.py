"""Natural English sentences for synthetic pre-training speech, taken from Debian's `fortunes`.

The generated sentences (sentences.py) cover numbers, times and sentence types but use about 300
words; a voice pre-trained on them alone still mispronounces the wider vocabulary of ordinary
prose (docs/acoustic-model.md, on prose in the pre-training text). The fortune cookies of
Debian's `fortunes` package (BSD licence) hold about 10,000 plain sentences with some 12,000
distinct words. Only sentences that need no normalisation are kept: letters, apostrophes,
hyphens and ordinary punctuation, no digits, no words in capitals, 5 to 16 words. Callers pass the
evaluation sentences as `exclude` (flite_corpus.py does) so that none of them is ever trained on.
"""

import os
import random
import re

DEFAULT_DIR = "/usr/share/games/fortunes"
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
_PLAIN = re.compile(r"[A-Z][A-Za-z' ,;-]*[a-z][.?!]")


def _cookies(directory):
    """Every cookie of every fortune file (the files without an extension) in `directory`."""
    if not os.path.isdir(directory):
        raise FileNotFoundError("%s: no fortune files (install Debian's fortunes package: "
                                "scripts/install-deps)" % directory)
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if "." in name or os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, encoding="latin-1") as f:
            yield from re.split(r"\n%\n", f.read())


def _plain_sentences(cookie):
    # Attribution lines ("-- Mark Twain") are not part of the quotation.
    lines = [l.strip() for l in cookie.split("\n") if not l.strip().startswith("--")]
    for sentence in _SENTENCE_END.split(" ".join(lines)):
        sentence = re.sub(r"\s+", " ", sentence).strip()
        if not _PLAIN.fullmatch(sentence) or "--" in sentence:
            continue
        words = sentence.split()
        if not 5 <= len(words) <= 16 or any(len(w) > 1 and w.isupper() for w in words):
            continue
        yield sentence


def load(directory=None, exclude=()):
    """All distinct plain sentences, in file order, minus those in `exclude` (compared lowercased).
    `directory` defaults to DEFAULT_DIR, where Debian installs the fortune files."""
    directory = directory or DEFAULT_DIR
    excluded = {s.strip().lower() for s in exclude}
    seen, out = set(), []
    for cookie in _cookies(directory):
        for sentence in _plain_sentences(cookie):
            if sentence not in seen and sentence.lower() not in excluded:
                seen.add(sentence)
                out.append(sentence)
    return out


def sample(count, seed=1, directory=None, exclude=()):
    """`count` distinct sentences, the same for the same seed and the same fortune files."""
    directory = directory or DEFAULT_DIR
    pool = load(directory, exclude)
    if count > len(pool):
        raise ValueError("only %d plain sentences in %s, %d asked for" % (len(pool), directory, count))
    return random.Random(seed).sample(pool, count)
