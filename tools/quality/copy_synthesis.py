"""Copy-synthesis WER of one vocoder: the held-out prompts, each recording → mel → the vocoder,
then what pocketsphinx hears against the prompt's text. A quick comparison of vocoder checkpoints
(the full report is tools/quality-report, which scores a packed voice).

    /usr/bin/python3 tools/quality/copy_synthesis.py --model RUN_OR_VOCODER_DIR \
        [--tts build/tools/tts] [--corpus data/asterisk] [--held-out voices/default/held-out.txt] \
        [--work DIR] [--seed N]

Prints one line per prompt (id | reference | hypothesis) and a last line with the WER and the mean
log-mel distance to the recordings. Sampling uses --seed (default 1, as the report's copy-synthesis).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wer  # noqa: E402
from scoring import PS_ARGS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="folder with vocoder.json + vocoder.safetensors")
    p.add_argument("--tts", default=os.path.join(ROOT, "build", "tools", "tts"))
    p.add_argument("--corpus", default=os.path.join(ROOT, "data", "asterisk"))
    p.add_argument("--held-out", default=os.path.join(ROOT, "voices", "default", "held-out.txt"))
    p.add_argument("--work", help="where the wavs go (default: a temporary folder, removed)")
    p.add_argument("--seed", type=int, default=1, help="sampling seed (the report uses 1)")
    a = p.parse_args()
    references = {}
    with open(os.path.join(a.corpus, "metadata.csv"), encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("|")
            if len(parts) >= 3:
                references[parts[0]] = parts[2]
    with open(a.held_out, encoding="utf-8") as f:
        ids = [line.strip() for line in f if line.strip()]
    missing = [i for i in ids if i not in references]
    if missing:
        sys.exit(f"copy_synthesis: {a.held_out}: ids not in {a.corpus}/metadata.csv: {missing}")
    work = a.work or tempfile.mkdtemp(prefix="tts-copy-synthesis.")
    os.makedirs(work, exist_ok=True)
    errors = words = 0
    distances = []
    for pid in ids:
        out = os.path.join(work, pid + ".wav")
        r = subprocess.run([a.tts, "vocode", os.path.join(a.corpus, "wavs", pid + ".wav"),
                            "--model", a.model, "-o", out, "--report", "--seed", str(a.seed)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"copy_synthesis: vocoding {pid} failed: {r.stderr.strip()}")
        distances.append(json.loads(r.stdout.strip().splitlines()[-1])["log_mel_distance"])
        r = subprocess.run(["pocketsphinx_continuous", "-infile", out] + PS_ARGS,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"copy_synthesis: pocketsphinx failed on {out}: {r.stderr.strip()[-300:]}")
        heard = " ".join(line.strip() for line in r.stdout.splitlines() if line.strip())
        counts = wer.score(references[pid], heard)
        errors += counts.errors
        words += counts.words
        print(f"{pid} | {references[pid]} | {heard}", flush=True)
    if not a.work:
        subprocess.run(["rm", "-rf", work])
    print(f"copy-synthesis WER {100.0 * errors / words:.1f}% over {words} words of {len(ids)} "
          f"prompts; mean log-mel distance {sum(distances) / len(distances):.3f}")


if __name__ == "__main__":
    main()
