"""Word error rate: text normalisation and a word-level Levenshtein alignment.

Both the reference and the recogniser's hypothesis go through the same normalise(): lowercase,
hyphens and slashes become spaces, every other character that is not a letter, digit, apostrophe
or space is dropped, then apostrophes are dropped too ("it's" and "its" are the same word here,
as they sound the same). Recogniser tokens such as <s>, </s>, <sil>, [NOISE] and the alternate-
pronunciation suffix "(2)" are removed before that.
"""

import re
from dataclasses import dataclass, field

_MARKUP = re.compile(r"<[^>]*>|\[[^\]]*\]|\(\d+\)")
_SPACE_LIKE = re.compile(r"[-/\u2010-\u2015_]")
_DROP = re.compile(r"[^\w' ]", re.UNICODE)


def normalise(text):
    """Lowercase words of `text`, without punctuation, as a list."""
    text = _MARKUP.sub(" ", text)
    text = _SPACE_LIKE.sub(" ", text.lower())
    text = _DROP.sub(" ", text)
    text = text.replace("'", "").replace("\u2019", "")
    return text.split()


@dataclass
class Counts:
    words: int = 0          # reference words
    substitutions: int = 0
    deletions: int = 0
    insertions: int = 0
    ops: list = field(default_factory=list)  # alignment: (op, ref word or None, hyp word or None)

    @property
    def errors(self):
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self):
        """Errors per reference word (can exceed 1 with insertions); None for an empty reference."""
        return self.errors / self.words if self.words else None

    def __iadd__(self, other):
        self.words += other.words
        self.substitutions += other.substitutions
        self.deletions += other.deletions
        self.insertions += other.insertions
        return self


def align(ref, hyp):
    """Minimum-edit alignment of word lists `ref` and `hyp` (unit costs). Returns Counts."""
    n, m = len(ref), len(hyp)
    # cost[i][j]: edits turning ref[:i] into hyp[:j]
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = i
    for j in range(1, m + 1):
        cost[0][j] = j
    for i in range(1, n + 1):
        ri = ref[i - 1]
        row, prev = cost[i], cost[i - 1]
        for j in range(1, m + 1):
            sub = prev[j - 1] + (ri != hyp[j - 1])
            row[j] = min(sub, prev[j] + 1, row[j - 1] + 1)
    counts = Counts(words=n)
    i, j = n, m
    ops = []
    while i > 0 or j > 0:
        if i > 0 and j > 0 and cost[i][j] == cost[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            if ref[i - 1] == hyp[j - 1]:
                ops.append(("=", ref[i - 1], hyp[j - 1]))
            else:
                counts.substitutions += 1
                ops.append(("S", ref[i - 1], hyp[j - 1]))
            i, j = i - 1, j - 1
        elif i > 0 and cost[i][j] == cost[i - 1][j] + 1:
            counts.deletions += 1
            ops.append(("D", ref[i - 1], None))
            i -= 1
        else:
            counts.insertions += 1
            ops.append(("I", None, hyp[j - 1]))
            j -= 1
    counts.ops = ops[::-1]
    return counts


def score(reference_text, hypothesis_text):
    """Counts for one utterance from raw texts (both normalised)."""
    return align(normalise(reference_text), normalise(hypothesis_text))
