"""Which languages a report run covers, and for each: the espeak-ng voice that phonemises it, the
Asterisk corpus and held-out list it is judged on, and the names of the files it writes.

A voice's voice.json names its espeak-ng voice ("language": "es-419") and the languages it speaks
as BCP 47 tags ("languages": ["es-MX"]); a voice without "languages" speaks its "language" only.
English gets the full report (tools/quality/report.py); every other language the per-language one
(language_report.py), which has no recogniser to score words with.
"""

import os

# espeak-ng voice of each primary language subtag the project has a corpus for: what the voice
# packer and the training recipes use (Mexican Spanish is espeak-ng's Latin American Spanish).
ESPEAK_VOICES = {"en": "en-us", "es": "es-419", "fr": "fr-fr", "it": "it", "ru": "ru"}


def primary(tag):
    """The primary language subtag, lower case: "es-MX", "es_419", "ES" -> "es"."""
    return tag.replace("_", "-").split("-")[0].lower()


def is_english(tag):
    return primary(tag) == "en"


def voice_languages(voice_json):
    """The BCP 47 tags the voice speaks, its main language first."""
    tags = voice_json.get("languages") or [voice_json.get("language", "en-us")]
    main = primary(voice_json.get("language", tags[0]))
    return sorted(tags, key=lambda t: primary(t) != main)


def speaks_natively(voice_json, tag):
    """Whether the voice's own "language" (its espeak-ng voice) is this tag's language, so that
    `tts say --voice VOICE` speaks it without being told."""
    return primary(voice_json.get("language", "en-us")) == primary(tag)


def espeak_voice(voice_json, tag):
    """The espeak-ng voice for `tag`: the voice's own "language" when it is that language, else
    the project's choice for the language, else the tag itself in lower case."""
    if speaks_natively(voice_json, tag):
        return voice_json["language"]
    return ESPEAK_VOICES.get(primary(tag), tag.lower())


def report_stem(tag):
    """quality-es-MX: the per-language report's file (STEM.md) and folder (STEM/)."""
    return "quality-" + tag.replace("_", "-")


def default_corpus(root, tag):
    """data/asterisk for English, data/asterisk-XX for another language (XX: primary subtag)."""
    p = primary(tag)
    return os.path.join(root, "data", "asterisk" if p == "en" else f"asterisk-{p}")


def corpus_for(root, tag, corpora, main_corpus, main_tag):
    """The corpus to judge `tag` on: --corpus-XX (corpora: {primary subtag: folder}), else
    --corpus when `tag` is the run's first language, else default_corpus."""
    if primary(tag) in corpora:
        return corpora[primary(tag)]
    if main_corpus and primary(tag) == primary(main_tag):
        return main_corpus
    return default_corpus(root, tag)


def held_out_file(root, voice_dir, voice_json, tag, given=None):
    """(path, why it was chosen) of the held-out prompt ids for `tag`: --held-out when given;
    else VOICE/held-out-TAG.txt; else VOICE/held-out.txt when `tag` is the voice's own language;
    else the list the training recipes keep out of that language's corpus
    (scripts/corpus/held-out/asterisk-XX.txt). The path may not exist (the caller says so)."""
    if given:
        return os.path.abspath(given), "given with --held-out"
    own = os.path.join(voice_dir, f"held-out-{tag}.txt")
    if os.path.isfile(own):
        return own, f"the voice's list for {tag}"
    if speaks_natively(voice_json, tag):
        return os.path.join(voice_dir, "held-out.txt"), "the voice's list"
    return (os.path.join(root, "scripts", "corpus", "held-out", f"asterisk-{primary(tag)}.txt"),
            f"the voice has no held-out-{tag}.txt: the prompts the training recipes keep out of "
            f"the {primary(tag)} corpus")
