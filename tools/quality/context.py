"""The settings of one report run, shared by all its stages, and the failures and notes that the
stages collect on the way (the report lists them in the order they were found)."""

import os
from dataclasses import dataclass, field


@dataclass
class Context:
    root: str            # the repository
    out_dir: str         # quality.md and quality/*.png go here
    tts: str             # the tts command
    corpus: str          # the Asterisk corpus (metadata.csv, wavs/)
    limit: int | None    # score only the first N development sentences and held-out prompts
    jobs: int            # utterances synthesised and recognised at once
    bench_runs: int      # runs of `tts bench pipeline`
    seeds: list          # the voice samples: it speaks everything once per seed
    command: str         # the command line, as shown in the report
    pitch_sentences: int = 10   # dev sentences of the pitch-shift check (tts say --pitch)
    pictures_folder: str = "quality"   # OUT/this/ holds the pictures (and praat.json)
    voice_dir: str = ""
    voice_json: dict = field(default_factory=dict)
    work: str = ""       # temporary folder with every wav
    failures: list = field(default_factory=list)   # (section, message)
    notes: list = field(default_factory=list)

    @property
    def voice_label(self):
        return f"tts, voice {os.path.basename(self.voice_dir)}"

    # System ids, one per seed; seed 0 keeps the plain name ("tts", "copy"), which the
    # spectrogram picture and the appendix use.
    @property
    def tts_ids(self):
        return ["tts" if seed == 0 else f"tts-seed{seed}" for seed in self.seeds]

    @property
    def copy_ids(self):
        return ["copy" if seed == 0 else f"copy-seed{seed}" for seed in self.seeds]

    @property
    def vocoder_dir(self):
        return os.path.join(self.voice_dir, self.voice_json.get("vocoder", "vocoder"))

    def rel(self, path):
        """The path relative to the repository, unless it lies far outside it."""
        r = os.path.relpath(path, self.root)
        return path if r.startswith("../..") else r
