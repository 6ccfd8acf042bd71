"""The report's appendix: what the recogniser heard, utterance by utterance, and the log-mel
distance of each held-out prompt's copy-synthesis. Folded (<details>), as it is long."""

from markdown_tables import hypotheses_table


def dev_sentences_details(dev, title="Development sentences"):
    md = [f"<details><summary>{title} ({len(dev.sentences)} × {len(dev.systems)} "
          f"systems)</summary>\n"]
    text_of = dict(zip(dev.keys, dev.sentences))
    ref_of = dict(zip(dev.keys, dev.references))
    md.append(hypotheses_table([(label, dev.items[s]) for s, label, _ in dev.systems], dev.keys,
                               "#", text_of.get, ref_of.get))
    md.append("\n</details>\n")
    return md


def held_out_details(held_out):
    """Seed 0 only: the other seeds' hypotheses would triple a long table."""
    items, metadata = held_out.items, held_out.metadata
    md = [f"<details><summary>Held-out prompts ({len(held_out.ids)} × 3, seed 0)</summary>\n"]
    md.append(hypotheses_table([("recording", items["recording"]),
                                ("copy-synthesis", items["copy"]), ("TTS", items["tts"])],
                               held_out.ids, "prompt",
                               lambda p: metadata[p][0], lambda p: metadata[p][1]))
    md.append("")
    md.append("| prompt | seconds | copy-synthesis log-mel distance (seed 0) | codec floor |")
    md.append("|---|---:|---:|---:|")
    for p in held_out.ids:
        i = items["copy"][p]
        rec = items["recording"][p]
        if i.error or "log_mel_distance" not in i.extra:
            md.append(f"| {p} | {rec.seconds or 0:.2f} | failed | |")
        else:
            md.append(f"| {p} | {rec.seconds or 0:.2f} | {i.extra['log_mel_distance']:.3f} | "
                      f"{i.extra.get('log_mel_distance_of_mulaw_input', float('nan')):.3f} |")
    md.append("\n</details>\n")
    return md


def appendix(dev, held_out, unseen=None):
    md = ["## Appendix: what the recogniser heard\n",
          "Recognised words in italics differ from the reference (*+word*: inserted), struck-out "
          "words were not recognised; the number is the utterance's errors.\n"]
    md += dev_sentences_details(dev)
    if unseen:
        md += dev_sentences_details(unseen, "Unseen prose")
    if held_out:
        md += held_out_details(held_out)
    return md
