"""Markdown for the report: escaping, percentages, the WER tables and the tables of what the
recogniser heard; and writing the file so that a reader never sees half of it."""

import os
import statistics

import wer
from scoring import total


def md_escape(text):
    return (text or "").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def pct(counts):
    return "n/a" if counts.wer is None else f"{100 * counts.wer:.1f}%"


def own_level_cells(items):
    """The median of the system's own active levels, and its WER when heard at them."""
    levels = [i.level_dbov for i in items if i.level_dbov is not None]
    level = f"{statistics.median(levels):.1f}" if levels else "n/a"
    native = wer.Counts()
    for i in items:
        if i.native_counts is not None:
            native += i.native_counts
    return f" {level} | {pct(native)} |"


def wer_table(rows, subsets=None, own_level=False):
    """rows: list of (label, items). subsets: list of (title, predicate on item.key). own_level:
    two more columns, each system's own speech level and its WER heard at that level."""
    head = ("| System | utterances | reference words | substitutions | deletions | insertions "
            "| failed | **WER** |")
    sep = "|---|---:|---:|---:|---:|---:|---:|---:|"
    if subsets:
        head += "".join(f" WER, {title} |" for title, _ in subsets)
        sep += "---:|" * len(subsets)
    if own_level:
        head += " own level (dBov) | WER at own level |"
        sep += "---:|---:|"
    lines = [head, sep]
    for label, items in rows:
        c = total(items)
        failed = sum(1 for i in items if i.error)
        line = (f"| {label} | {len(items)} | {c.words} | {c.substitutions} | {c.deletions} | "
                f"{c.insertions} | {failed} | **{pct(c)}** |")
        for _, pred in subsets or []:
            line += f" {pct(total([i for i in items if pred(i.key)]))} |"
        if own_level:
            line += own_level_cells(items)
        lines.append(line)
    return "\n".join(lines)


def hypothesis_cell(item):
    """What the recogniser heard, aligned with the reference: *substituted*, *+inserted*,
    ~~deleted~~, then the utterance's error count."""
    if item.error:
        return f"**failed** (counted as {item.counts.words} deletions)"
    c = item.counts
    words = []
    for op, r, h in c.ops:
        if op == "=":
            words.append(h)
        elif op == "S":
            words.append(f"*{h}*")
        elif op == "I":
            words.append(f"*+{h}*")
        else:
            words.append(f"~~{r}~~")
    text = " ".join(words) if words else "(nothing recognised)"
    return f"{md_escape(text)} ({c.errors})"


def hypotheses_table(columns, keys, key_label, text_of, reference_of):
    """columns: list of (label, {key: item})."""
    head = f"| {key_label} | reference | " + " | ".join(label for label, _ in columns) + " |"
    lines = [head, "|---|---|" + "---|" * len(columns)]
    for key in keys:
        ref = md_escape(" ".join(wer.normalise(reference_of(key))))
        shown = text_of(key)
        if shown and wer.normalise(shown) != wer.normalise(reference_of(key)):
            ref += f"<br>(text: {md_escape(shown)})"
        cells = [hypothesis_cell(items[key]) if key in items else "" for _, items in columns]
        lines.append(f"| {key} | {ref} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def atomic_write(path, text):
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
