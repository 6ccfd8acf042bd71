"""The CPU vocoder's sampling weights in fp32, fp16 and int8 (`--weights`), judged on audio: how
far each precision's audio lies from fp32's for the same seed, against how far two fp32 seeds lie
from each other (the vocoder samples, so a seed is another draw of the same sentence); each
precision's copy-synthesis distance to the recordings; and Praat's HNR.

    /usr/bin/python3 tools/quality/compare_sampling_weights.py [--tts build/tools/tts]
        [--voice voices/default] [--corpus data/asterisk] [--sentences FILE] [--count 20]
        [--prompts N] [--seeds 0 1] [--jobs 2] [--work DIR]

Two sets: the voice's held-out prompts (VOICE/held-out.txt), each recording → log-mel → the
voice's vocoder (`tts vocode --report`), and the first COUNT lines of --sentences spoken by
`tts say`. Distances are `tts vocode --report`'s: the mean absolute difference of natural-log mel
magnitudes (`tts mel`) over the frames two files share. Prints the figures as JSON.
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import praat  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRECISIONS = ["fp32", "fp16", "int8"]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout


def read_npy(path):
    """(frames, mels) and the values of a float32 .npy file as `tts mel` writes it."""
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode("latin-1")
    shape_text = header[header.index("(", header.index("shape")):]
    frames, mels = (int(x) for x in shape_text[1:shape_text.index(")")].split(",")[:2])
    return frames, mels, struct.unpack(f"<{frames * mels}f", data[10 + header_len:])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tts", default=os.path.join(ROOT, "build", "tools", "tts"))
    p.add_argument("--voice", default=os.path.join(ROOT, "voices", "default"))
    p.add_argument("--corpus", default=os.path.join(ROOT, "data", "asterisk"))
    p.add_argument("--sentences", default=os.path.join(ROOT, "..", "shared", "eval",
                                                       "dev-sentences.txt"))
    p.add_argument("--count", type=int, default=20, help="sentences to speak")
    p.add_argument("--prompts", type=int, help="held-out prompts to copy (default: all)")
    p.add_argument("--seeds", type=int, nargs=2, default=[0, 1])
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--work", help="keep the audio here (default: a temporary folder)")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="tts-sampling-weights-")
    with open(os.path.join(a.voice, "held-out.txt")) as f:
        prompts = [line.strip() for line in f if line.strip()][:a.prompts]
    with open(a.sentences) as f:
        sentences = [line.strip() for line in f if line.strip()][:a.count]
    sets = {"copy": prompts, "say": [f"{k:02d}" for k in range(len(sentences))]}

    def wav(kind, precision, seed, name):
        return os.path.join(work, f"{kind}-{precision}-{seed}", f"{name}.wav")

    jobs = []
    for precision in PRECISIONS:
        for seed in a.seeds:
            for kind in sets:
                os.makedirs(os.path.dirname(wav(kind, precision, seed, "x")), exist_ok=True)
            jobs += [("copy", precision, seed, name) for name in prompts]
            jobs += [("say", precision, seed, f"{k:02d}", text) for k, text in enumerate(sentences)]

    def synthesise(job):
        kind, precision, seed, name = job[:4]
        out = wav(kind, precision, seed, name)
        if kind == "copy":
            report = run([a.tts, "vocode", os.path.join(a.corpus, "wavs", f"{name}.wav"), "-o", out,
                          "--model", os.path.join(a.voice, "vocoder"), "--report", "--seed",
                          str(seed), "--weights", precision])
            return job[:4], json.loads(report.strip().splitlines()[-1])["log_mel_distance"]
        run([a.tts, "say", job[4], "--voice", a.voice, "-o", out, "--seed", str(seed),
             "--weights", precision])
        return job[:4], None

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        to_recording = {k: d for k, d in pool.map(synthesise, jobs) if d is not None}

    mels = {}

    def mel(path):
        if path not in mels:
            npy = path[:-4] + ".npy"
            run([a.tts, "mel", path, "-o", npy])
            mels[path] = read_npy(npy)
        return mels[path]

    def distance(x, y):
        fx, m, vx = mel(x)
        fy, _, vy = mel(y)
        n = min(fx, fy) * m
        return sum(abs(u - v) for u, v in zip(vx[:n], vy[:n])) / n

    s0, s1 = a.seeds
    figures = {"seeds": a.seeds, "prompts": len(prompts), "sentences": len(sentences)}
    for precision in PRECISIONS:
        for seed in a.seeds:
            figures[f"copy_to_recording_{precision}_seed{seed}"] = statistics.mean(
                to_recording[("copy", precision, seed, name)] for name in prompts)
    for kind, names in sets.items():
        def between(pa, sa, pb, sb):
            return statistics.mean(distance(wav(kind, pa, sa, n), wav(kind, pb, sb, n))
                                   for n in names)
        figures[f"{kind}_fp32_seed{s0}_vs_fp32_seed{s1}"] = between("fp32", s0, "fp32", s1)
        for precision in PRECISIONS[1:]:
            for seed in a.seeds:
                figures[f"{kind}_fp32_vs_{precision}_seed{seed}"] = between("fp32", seed,
                                                                           precision, seed)
            figures[f"{kind}_{precision}_seed{s0}_vs_{precision}_seed{s1}"] = between(
                precision, s0, precision, s1)
        for precision in PRECISIONS:
            paths = [wav(kind, precision, seed, n) for seed in a.seeds for n in names]
            measured = praat.measure_files(paths, os.path.join(work, f"praat-{kind}-{precision}"),
                                           a.jobs)
            bad = [p for p in paths if isinstance(measured[p], str)]
            if bad:
                raise RuntimeError(f"Praat could not measure {bad[0]}: {measured[bad[0]]}")
            figures[f"{kind}_hnr_db_{precision}"] = praat.Pool([measured[p] for p in paths]).hnr
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
