"""The quality report (tools/quality-report runs this with Debian's /usr/bin/python3).

Scores a voice with an independent recogniser (pocketsphinx, US-English model) beside flite kal16,
espeak-ng and the human recordings, in one run, and writes OUT/quality.md plus OUT/quality/*.png.
See docs/quality.md (generated) and tools/quality-report --help.
"""

import argparse
import atexit
import concurrent.futures
import datetime
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import training_logs  # noqa: E402
import wer  # noqa: E402

PS_MODEL = "/usr/share/pocketsphinx/model/en-us"
PS_ARGS = ["-hmm", f"{PS_MODEL}/en-us", "-lm", f"{PS_MODEL}/en-us.lm.bin",
           "-dict", f"{PS_MODEL}/cmudict-en-us.dict", "-logfn", "/dev/null"]
PACKAGES = ["pocketsphinx", "pocketsphinx-en-us", "flite", "espeak-ng", "sox"]
COMMAND_TIMEOUT = 900  # seconds for one synthesis or recognition
PNG_NAMES = ["spectrograms.png", "losses.png"]


class Fatal(Exception):
    def __init__(self, message, code=3):
        super().__init__(message)
        self.code = code


def log(message):
    print(f"quality-report: {message}", file=sys.stderr, flush=True)


def run(cmd, timeout=COMMAND_TIMEOUT, env=None):
    """(returncode, stdout, stderr); a missing program or a timeout becomes returncode -1."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           errors="replace")
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError as e:
        return -1, "", f"cannot run {cmd[0]}: {e}"
    except subprocess.TimeoutExpired:
        return -1, "", f"timed out after {timeout} s"


def tail(text, lines=3):
    text = "\n".join(line for line in text.strip().splitlines() if line.strip())
    return " / ".join(text.splitlines()[-lines:]) if text else "(no message)"


def describe_failure(what, cmd, rc, stderr):
    code = "could not run" if rc == -1 else f"exit {rc}"
    return f"{what} failed ({code}): {tail(stderr)}  [command: {shlex.join(cmd)}]"


# --------------------------------------------------------------------------------------------
# Audio: every system's output goes through the same conversion, then the same recogniser.

def to_16k(src, dst):
    """16 kHz mono signed 16-bit wav with sox; returns an error string or None. No dither (-D):
    sox's default dither is random, and the recogniser's output changed with it between runs."""
    cmd = ["sox", "-V1", "-D", src, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", dst]
    rc, _, err = run(cmd)
    if rc != 0:
        return describe_failure("conversion to 16 kHz mono (sox)", cmd, rc, err)
    return None


def seconds_of(path):
    try:
        with wave.open(path, "rb") as w:
            return w.getnframes() / float(w.getframerate())
    except (OSError, wave.Error, EOFError):
        return None


def recognise(path):
    """(hypothesis text, error or None)."""
    cmd = ["pocketsphinx_continuous", "-infile", path] + PS_ARGS
    rc, out, err = run(cmd)
    if rc != 0:
        return "", describe_failure("recognition (pocketsphinx_continuous)", cmd, rc, err)
    # one line per stretch of speech that its voice-activity detector found
    return " ".join(line.strip() for line in out.splitlines() if line.strip()), None


class Item:
    """One utterance of one system: how it was made, what the recogniser heard, the errors."""

    def __init__(self, system, key, text, reference):
        self.system, self.key, self.text, self.reference = system, key, text, reference
        self.hypothesis = ""
        self.error = None
        self.seconds = None
        self.wav = None           # the 16 kHz file, kept in the work folder
        self.extra = {}           # e.g. vocode --report fields
        self.counts = None

    def finish(self):
        self.counts = wer.score(self.reference, "" if self.error else self.hypothesis)
        return self


def score_item(item, make, workdir):
    """make(raw_path) -> error or None writes the system's audio; then 16 kHz, then recognise."""
    stem = os.path.join(workdir, f"{item.system}-{item.key}")
    raw, wav16 = stem + ".raw.wav", stem + ".wav"
    item.error = make(raw)
    if item.error is None and not os.path.exists(raw):
        item.error = f"synthesis wrote no file {raw}"
    if item.error is None:
        item.error = to_16k(raw, wav16)
    if item.error is None:
        item.wav = wav16
        item.seconds = seconds_of(wav16)
        item.hypothesis, item.error = recognise(wav16)
    return item.finish()


# --------------------------------------------------------------------------------------------
# Systems

def tts_say(tts, voice_dir, text, seed=0, extra=()):
    def make(out):
        cmd = [tts, "say", "--voice", voice_dir, "-o", out, "--seed", str(seed), *extra, "--",
               text]
        rc, _, err = run(cmd)
        return None if rc == 0 else describe_failure("tts say", cmd, rc, err)
    return make


def flite_say(text):
    def make(out):
        cmd = ["flite", "-voice", "kal16", "-t", text, "-o", out]
        rc, _, err = run(cmd)
        return None if rc == 0 else describe_failure("flite", cmd, rc, err)
    return make


def espeak_say(text):
    def make(out):
        cmd = ["espeak-ng", "-v", "en-us", "-w", out, text]
        rc, _, err = run(cmd)
        return None if rc == 0 else describe_failure("espeak-ng", cmd, rc, err)
    return make


def copy_file(src):
    def make(out):
        if not os.path.isfile(src):
            return f"recording {src} is missing"
        shutil.copyfile(src, out)
        return None
    return make


def vocode(tts, vocoder_dir, src, item, seed):
    def make(out):
        if not os.path.isfile(src):
            return f"recording {src} is missing"
        cmd = [tts, "vocode", src, "-o", out, "--model", vocoder_dir, "--report", "--seed",
               str(seed)]
        rc, stdout, err = run(cmd)
        if rc != 0:
            return describe_failure("tts vocode", cmd, rc, err)
        for line in reversed(stdout.splitlines()):
            line = line.strip()
            if line.startswith("{"):
                try:
                    item.extra = json.loads(line)
                except json.JSONDecodeError:
                    pass
                break
        if "log_mel_distance" not in item.extra:
            return f"tts vocode --report printed no log_mel_distance: {tail(stdout + err)}"
        return None
    return make


# --------------------------------------------------------------------------------------------

def resolve_voice(tts, voice):
    """The voice's folder: a path as given, else the FOLDER column of `tts voices` for the name."""
    if os.sep in voice or voice.startswith(".") or os.path.isdir(voice):
        folder = os.path.abspath(voice)
        if not os.path.isdir(folder):
            raise Fatal(f"voice folder {folder} does not exist (is --voice right?)")
        if not os.path.isfile(os.path.join(folder, "voice.json")):
            raise Fatal(f"voice folder {folder} has no voice.json (is --voice right?)")
        return folder
    rc, out, err = run([tts, "voices"])
    if rc != 0:
        raise Fatal(describe_failure("tts voices", [tts, "voices"], rc, err))
    for line in out.splitlines()[1:]:
        fields = line.split()
        if fields and fields[0] == voice:
            # FOLDER is the last column; a folder path with spaces spans several fields
            start = line.rfind(" /")
            folder = line[start + 1:].strip() if start >= 0 else fields[-1]
            if os.path.isfile(os.path.join(folder, "voice.json")):
                return folder
    raise Fatal(f"no voice named '{voice}' on the voice search path ({tail(out + err, 1)}); "
                f"pass --voice NAME or --voice FOLDER")


def check_tools(tts):
    if not (os.path.isfile(tts) and os.access(tts, os.X_OK)):
        raise Fatal(f"tts command {tts} not found or not executable (build it, or pass --tts PATH)")
    for program in ["pocketsphinx_continuous", "flite", "espeak-ng", "sox"]:
        if shutil.which(program) is None:
            raise Fatal(f"{program} is not installed (scripts/install-deps quality)")
    for path in PS_ARGS[1:6:2]:
        if not os.path.exists(path):
            raise Fatal(f"pocketsphinx model file {path} is missing (package pocketsphinx-en-us)")
    rc, out, err = run(["flite", "-lv"])
    if "kal16" not in out + err:
        raise Fatal(f"flite has no kal16 voice (flite -lv: {tail(out + err, 1)})")


def package_versions():
    versions = {}
    for p in PACKAGES:
        rc, out, _ = run(["dpkg-query", "-W", "-f=${Version}", p])
        versions[p] = out.strip() if rc == 0 and out.strip() else "not installed"
    return versions


def machine():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": model}


def loadavg():
    try:
        return os.getloadavg()
    except OSError:
        return None


def git_commit(root):
    rc, out, _ = run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"])
    if rc != 0:
        return "unknown (not a git checkout)"
    commit = out.strip()
    rc, out, _ = run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"])
    if rc == 0 and out.strip():
        commit += " with uncommitted changes to tracked files"
    return commit


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def find_eval_dir(root, given):
    candidates = [given] if given else [os.path.join(root, "..", "shared", "eval"),
                                        os.path.join(root, "shared", "eval")]
    for c in candidates:
        if os.path.isfile(os.path.join(c, "dev-sentences.txt")):
            return os.path.normpath(c)
    raise Fatal("no dev-sentences.txt in " + " or ".join(os.path.normpath(c) for c in candidates)
                + " (pass --eval-dir)")


def run_parallel(jobs, tasks, label):
    """tasks: list of zero-argument callables returning an Item. Keeps the order."""
    results = [None] * len(tasks)
    done = [0]
    lock = threading.Lock()
    started = time.monotonic()

    def one(i):
        results[i] = tasks[i]()
        with lock:
            done[0] += 1
            item = results[i]
            if item.error:
                log(f"{label}: FAILED {item.system} {item.key}: {item.error}")
            if done[0] == len(tasks) or done[0] % 20 == 0:
                log(f"{label}: {done[0]}/{len(tasks)} ({time.monotonic() - started:.0f} s)")

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, range(len(tasks))))
    return results


def total(items):
    c = wer.Counts()
    for item in items:
        c += item.counts
    return c


# --------------------------------------------------------------------------------------------
# Markdown

def md_escape(text):
    return (text or "").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def pct(counts):
    return "n/a" if counts.wer is None else f"{100 * counts.wer:.1f}%"


def wer_table(rows, subsets=None):
    """rows: list of (label, items). subsets: list of (title, predicate on item.key)."""
    head = ("| System | utterances | reference words | substitutions | deletions | insertions "
            "| failed | **WER** |")
    sep = "|---|---:|---:|---:|---:|---:|---:|---:|"
    if subsets:
        head += "".join(f" WER, {title} |" for title, _ in subsets)
        sep += "---:|" * len(subsets)
    lines = [head, sep]
    for label, items in rows:
        c = total(items)
        failed = sum(1 for i in items if i.error)
        line = (f"| {label} | {len(items)} | {c.words} | {c.substitutions} | {c.deletions} | "
                f"{c.insertions} | {failed} | **{pct(c)}** |")
        for _, pred in subsets or []:
            line += f" {pct(total([i for i in items if pred(i.key)]))} |"
        lines.append(line)
    return "\n".join(lines)


def hypothesis_cell(item):
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


# --------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", required=True)
    ap.add_argument("--tts", required=True)
    ap.add_argument("--voice", default="default")
    ap.add_argument("--out", default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--bench-runs", type=int, default=3)
    ap.add_argument("--say-seeds", type=int, default=3)
    ap.add_argument("--eval-dir", default=None)
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--command", default=None, help="the command line, as shown in the report")
    a = ap.parse_args()
    started = time.monotonic()
    root = os.path.abspath(a.root)
    out_dir = os.path.abspath(a.out or os.path.join(root, "docs"))
    tts = os.path.abspath(a.tts)
    corpus = os.path.abspath(a.corpus or os.path.join(root, "data", "asterisk"))
    limit = a.limit if a.limit and a.limit > 0 else None

    def rel(path):
        r = os.path.relpath(path, root)
        return path if r.startswith("../..") else r

    check_tools(tts)
    voice_dir = resolve_voice(tts, a.voice)
    try:
        with open(os.path.join(voice_dir, "voice.json"), encoding="utf-8") as f:
            voice_json = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise Fatal(f"cannot read {voice_dir}/voice.json: {e}")
    eval_dir = find_eval_dir(root, a.eval_dir)
    sentences = read_lines(os.path.join(eval_dir, "dev-sentences.txt"))
    references = read_lines(os.path.join(eval_dir, "dev-references.txt"))
    if len(sentences) != len(references):
        raise Fatal(f"{eval_dir}: dev-sentences.txt has {len(sentences)} lines but "
                    f"dev-references.txt has {len(references)}")
    n_dev_all = len(sentences)
    if limit:
        sentences, references = sentences[:limit], references[:limit]
    os.makedirs(os.path.join(out_dir, "quality"), exist_ok=True)
    work = tempfile.mkdtemp(prefix="tts-quality.")
    if not a.keep_work:
        atexit.register(shutil.rmtree, work, True)
    log(f"voice {voice_dir}; work folder {work}")
    failures = []   # (section, message)
    notes = []

    # A sentence through the voice first: a voice that cannot speak at all stops the run here.
    probe = os.path.join(work, "probe.wav")
    cmd = [tts, "say", "--voice", voice_dir, "-o", probe, "--", "Testing."]
    rc, _, err = run(cmd)
    if rc != 0:
        raise Fatal(f"the voice {voice_dir} cannot speak: "
                    + describe_failure("tts say", cmd, rc, err))

    facts = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_commit(root),
        "machine": machine(),
        "load_start": loadavg(),
        "packages": package_versions(),
        "tts_version": " ; ".join(run([tts, "--version"])[1].strip().splitlines()),
    }

    # ---- development sentences: our voice, flite kal16, espeak-ng ----
    # The vocoder samples, so one run of the voice is one draw: with 330 words its WER moves by
    # several points with the seed alone. The voice speaks every sentence with seeds 0..N-1 and
    # its WER is pooled over them (each seed's row is shown too).
    voice_label = f"tts, voice {os.path.basename(voice_dir)}"
    seeds = list(range(max(1, a.say_seeds)))
    tts_ids = ["tts" if seed == 0 else f"tts-seed{seed}" for seed in seeds]
    copy_ids = ["copy" if seed == 0 else f"copy-seed{seed}" for seed in seeds]
    systems = [(sys_id, f"{voice_label}, seed {seed}",
                lambda t, seed=seed: tts_say(tts, voice_dir, t, seed))
               for sys_id, seed in zip(tts_ids, seeds)]
    systems += [("flite", "flite kal16", flite_say), ("espeak", "espeak-ng en-us", espeak_say)]
    dev_keys = [str(i + 1) for i in range(len(sentences))]
    dev_dir = os.path.join(work, "dev")
    os.makedirs(dev_dir)
    tasks = []
    for sys_id, _, maker in systems:
        for key, text, ref in zip(dev_keys, sentences, references):
            item = Item(sys_id, key, text, ref)
            tasks.append(lambda item=item, m=maker(text): score_item(item, m, dev_dir))
    t0 = time.monotonic()
    dev_items = run_parallel(a.jobs, tasks, "development sentences")
    dev_seconds = time.monotonic() - t0
    dev = {sys_id: {i.key: i for i in dev_items if i.system == sys_id} for sys_id, _, _ in systems}
    for i in dev_items:
        if i.error:
            failures.append(("development sentences", f"{i.system} sentence {i.key} "
                             f"({i.text!r}): {i.error}"))

    # ---- held-out Asterisk prompts: recordings, copy-synthesis, TTS ----
    held_out_file = os.path.join(voice_dir, "held-out.txt")
    human = None
    vocoder_dir = os.path.join(voice_dir, voice_json.get("vocoder", "vocoder"))
    held_out_note = None
    if not os.path.isfile(held_out_file):
        held_out_note = ("The voice has no `held-out.txt`, so the human recordings, copy-synthesis "
                         "and TTS of held-out prompts were not scored.")
        notes.append(held_out_note)
        log(f"{held_out_file} is missing: skipping the held-out prompts")
    else:
        ids = [line.strip() for line in read_lines(held_out_file)
               if line.strip() and not line.strip().startswith("#")]
        n_ids_all = len(ids)
        if limit:
            ids = ids[:limit]
        metadata_path = os.path.join(corpus, "metadata.csv")
        if not os.path.isfile(metadata_path):
            log(f"{metadata_path} is missing: building the corpus with scripts/build-asterisk-corpus")
            cmd = [os.path.join(root, "scripts", "build-asterisk-corpus"), corpus]
            rc = subprocess.run(cmd).returncode
            if rc != 0 or not os.path.isfile(metadata_path):
                failures.append(("held-out prompts", describe_failure(
                    "building the corpus", cmd, rc, "see the messages above")))
        metadata = {}
        if os.path.isfile(metadata_path):
            for line in read_lines(metadata_path):
                parts = line.split("|")
                if len(parts) >= 3:
                    metadata[parts[0]] = (parts[1], parts[2])
        known = []
        for pid in ids:
            if pid in metadata:
                known.append(pid)
            elif metadata:
                failures.append(("held-out prompts", f"prompt id '{pid}' from {held_out_file} "
                                 f"is not in {metadata_path}; not scored"))
        if known:
            hdir = os.path.join(work, "held-out")
            os.makedirs(hdir)
            tasks = []
            for pid in known:
                raw_text, ref = metadata[pid]
                src = os.path.join(corpus, "wavs", pid + ".wav")
                rec = Item("recording", pid, raw_text, ref)
                tasks.append(lambda it=rec, m=copy_file(src): score_item(it, m, hdir))
                # Copy-synthesis and TTS sample: one item per seed, as for the dev sentences.
                for seed, copy_id, tts_id in zip(seeds, copy_ids, tts_ids):
                    cop = Item(copy_id, pid, raw_text, ref)
                    syn = Item(tts_id, pid, raw_text, ref)
                    tasks.append(lambda it=cop, m=vocode(tts, vocoder_dir, src, cop, seed):
                                 score_item(it, m, hdir))
                    tasks.append(lambda it=syn, m=tts_say(tts, voice_dir, raw_text, seed):
                                 score_item(it, m, hdir))
            t0 = time.monotonic()
            items = run_parallel(a.jobs, tasks, "held-out prompts")
            human = {"ids": known, "n_all": n_ids_all, "seconds": time.monotonic() - t0,
                     "metadata": metadata}
            for sys_id in ["recording"] + copy_ids + tts_ids:
                human[sys_id] = {i.key: i for i in items if i.system == sys_id}
            for i in items:
                if i.error:
                    failures.append(("held-out prompts", f"{i.system} of '{i.key}': {i.error}"))

    # ---- pictures ----
    import plots  # matplotlib only now, after the long part has been checked
    pngs = {}
    features = voice_json.get("features", {})
    hop_seconds = features.get("hop_length", 200) / float(features.get("sample_rate", 16000))
    if human:
        def usable(pid):
            return all(human[s][pid].wav and not human[s][pid].error
                       for s in ["recording", "copy", "tts"])
        good = [p for p in human["ids"] if usable(p)]
        preferred = [p for p in good if 1.5 <= (human["recording"][p].seconds or 0) <= 6.0]
        chosen = (preferred or good or [None])[0]
        if chosen is None:
            notes.append("No held-out prompt had all three renderings, so there is no spectrogram "
                         "picture.")
        else:
            arrays = []
            import numpy as np
            for sys_id, label in [("recording", "recording"), ("copy", "copy-synthesis"),
                                  ("tts", "TTS from the text")]:
                npy = os.path.join(work, f"mel-{sys_id}.npy")
                cmd = [tts, "mel", human[sys_id][chosen].wav, "-o", npy,
                       "--sample-rate", str(features.get("sample_rate", 16000)),
                       "--n-fft", str(features.get("n_fft", 1024)),
                       "--hop", str(features.get("hop_length", 200)),
                       "--win", str(features.get("win_length", 800)),
                       "--n-mels", str(features.get("n_mels", 80)),
                       "--fmin", str(features.get("fmin", 0.0)),
                       "--fmax", str(features.get("fmax", 8000.0)),
                       "--log-floor", str(features.get("log_floor", 1e-5))]
                if not features.get("center", True):
                    cmd.append("--no-center")
                rc, _, err = run(cmd)
                if rc != 0:
                    failures.append(("pictures", describe_failure("tts mel", cmd, rc, err)))
                    break
                arrays.append((label, np.load(npy)))
            if len(arrays) == 3:
                path = os.path.join(out_dir, "quality", "spectrograms.png")
                vmin, vmax = plots.spectrograms(
                    arrays, hop_seconds, path,
                    f"held-out prompt '{chosen}': {human['metadata'][chosen][0]}")
                pngs["spectrograms.png"] = {"prompt": chosen, "vmin": vmin, "vmax": vmax}
    else:
        notes.append("No spectrogram picture: it shows a held-out prompt, and none was scored.")

    logs_info = []
    panels = []
    for name, title in [("vocoder", "vocoder (WaveNet), cross-entropy in nats"),
                        ("acoustic", "acoustic model")]:
        path = os.path.join(voice_dir, "training", f"{name}.log")
        if not os.path.isfile(path):
            note = f"{rel(path)} is missing"
            notes.append(f"No {name} training log: `{rel(path)}` is missing.")
            panels.append((title, None, note))
            logs_info.append((name, None))
            continue
        parsed = training_logs.read(path)
        if parsed.empty:
            notes.append(f"`{rel(path)}` has no step lines.")
        panels.append((title, parsed, "no step lines"))
        logs_info.append((name, parsed))
    if any(p[1] is not None and not p[1].empty for p in panels):
        plots.losses(panels, os.path.join(out_dir, "quality", "losses.png"))
        pngs["losses.png"] = {}
    for name in PNG_NAMES:   # a picture this run did not make must not stay behind
        stale = os.path.join(out_dir, "quality", name)
        if name not in pngs and os.path.exists(stale):
            os.remove(stale)

    # ---- speed ----
    bench = []
    t0 = time.monotonic()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    cmd = [tts, "bench", "pipeline", "--voice", voice_dir, "--threads", "1"]
    for _ in range(max(0, a.bench_runs)):
        load = loadavg()
        rc, out, err = run(cmd, env=env)
        if rc != 0:
            failures.append(("speed", describe_failure("tts bench pipeline", cmd, rc, err)))
            break
        try:
            result = json.loads([l for l in out.splitlines() if l.strip().startswith("{")][-1])
        except (IndexError, json.JSONDecodeError):
            failures.append(("speed", f"tts bench pipeline printed no JSON: {tail(out + err)}"))
            break
        result["load_before"] = load
        bench.append(result)
    bench_seconds = time.monotonic() - t0
    log(f"speed: {len(bench)} run(s) of tts bench pipeline ({bench_seconds:.0f} s)")

    # ---- the report ----
    elapsed = time.monotonic() - started
    md = []
    w = md.append
    m = facts["machine"]
    pk = facts["packages"]
    la = facts["load_start"]
    command = a.command or shlex.join(sys.argv)
    w("# Quality report\n")
    w("Generated by `tools/quality-report`; do not edit by hand, run the command again.\n")
    w("| | |\n|---|---|")
    w(f"| Date | {facts['date']} |")
    w(f"| Commit | `{facts['commit']}` |")
    w(f"| Command | `{command}` |")
    w(f"| Voice | `{voice_json.get('name', '?')}` (folder `{rel(voice_dir)}`): "
      f"{md_escape(voice_json.get('description', ''))} |")
    if voice_json.get("source") or voice_json.get("licence"):
        w(f"| Voice source, licence | {md_escape(str(voice_json.get('source', '')))}; "
          f"{md_escape(str(voice_json.get('licence', '')))} |")
    w(f"| tts | `{rel(tts)}`: {md_escape(facts['tts_version'])} |")
    w(f"| Machine | {m['nproc']} logical CPUs, {md_escape(m['cpu'])}; load average "
      + (f"{la[0]:.2f} when the run started" if la else "unknown") + " |")
    w(f"| Judge | pocketsphinx_continuous {pk['pocketsphinx']} with pocketsphinx-en-us "
      f"{pk['pocketsphinx-en-us']} (acoustic model en-us, language model en-us.lm.bin, "
      f"dictionary cmudict-en-us.dict) |")
    w(f"| Comparison systems | flite {pk['flite']} (voice kal16), espeak-ng {pk['espeak-ng']} "
      f"(voice en-us); audio converted with sox {pk['sox']} |")
    w(f"| Run time | {elapsed / 60:.1f} minutes ({a.jobs} utterance(s) at a time): development "
      f"sentences {dev_seconds:.0f} s, held-out prompts "
      + (f"{human['seconds']:.0f} s" if human else "skipped")
      + f", speed {bench_seconds:.0f} s |")
    if limit:
        w(f"| Limit | `--limit {limit}`: only the first {limit} development sentences and "
          f"held-out prompts were scored |")
    w("")
    w("Every system's audio is converted by sox to 16 kHz mono 16-bit (without dither, so that "
      "runs repeat exactly) and transcribed by the same recogniser with the same command:")
    w("")
    w("```sh\npocketsphinx_continuous -infile X.wav " + " ".join(PS_ARGS) + "\n```\n")
    w("Word error rate (WER) = (substitutions + deletions + insertions) / reference words, summed "
      "over all utterances of a system, from a word-level Levenshtein alignment. Reference and "
      "recognised text are both lowercased, hyphens become spaces, and punctuation and apostrophes "
      "are removed. An utterance that failed to synthesise or to be recognised counts as all its "
      "words deleted. The recogniser is a general-purpose model, not adapted to this speaker or "
      "these texts, and makes errors of its own, even on human speech; the other rows are there to calibrate it. Compare rows "
      "within one table: the two tables score different texts (the held-out prompts include "
      "many one-word prompts, which the recogniser's language model gives no context). Small "
      "differences are within the recogniser's noise: in testing, changing only sox's dither "
      "(inaudible) moved espeak-ng's WER by about 1.5 points over the 40 sentences.\n")

    w("## Development sentences\n")
    w(f"`{rel(os.path.join(eval_dir, 'dev-sentences.txt'))}`, "
      f"{len(sentences)} of {n_dev_all} sentences, each spoken by every system (references: "
      f"`dev-references.txt`). Sentences 1–30 are Harvard sentences; 31–40 test text "
      f"normalisation (numbers, abbreviations, times, money).\n")
    subsets = []
    keys = [int(k) for k in dev_keys]
    if any(k <= 30 for k in keys) and any(k > 30 for k in keys):
        subsets = [("1–30", lambda k: int(k) <= 30), ("31–40", lambda k: int(k) > 30)]
    pooled = [i for s in tts_ids for i in dev[s].values()]
    rows = [(label, list(dev[s].values())) for s, label, _ in systems]
    if len(seeds) > 1:
        rows.insert(len(seeds), (f"**{voice_label}, seeds 0–{seeds[-1]} pooled**", pooled))
    w(wer_table(rows, subsets))
    w("")
    w(f"`tts say` ran with its defaults (temperature 1, rate 1) and `--seed` 0"
      + (f" to {seeds[-1]}: the vocoder samples, so each seed is another draw of the same "
         f"sentences, and the pooled row is the voice's figure" if len(seeds) > 1 else "")
      + "; each system's audio lasted in total: " + ", ".join(
          f"{label} {sum(i.seconds or 0 for i in dev[s].values()):.0f} s"
          for s, label, _ in systems) + ".\n")

    w("## Held-out Asterisk prompts\n")
    if human is None:
        w((held_out_note or "Not scored: see the failures below.") + "\n")
    else:
        copy_items = [human[c][p] for c in copy_ids for p in human["ids"]]
        dist = [i.extra["log_mel_distance"] for i in copy_items
                if not i.error and "log_mel_distance" in i.extra]
        floor = [i.extra["log_mel_distance_of_mulaw_input"] for i in copy_items
                 if not i.error and "log_mel_distance_of_mulaw_input" in i.extra]
        w(f"{len(human['ids'])} of the {human['n_all']} prompts listed in the voice's "
          f"`held-out.txt` (not trained on), from `{rel(corpus)}` (Allison Smith's Asterisk "
          f"prompts). References are the normalised transcripts (third column of "
          f"`metadata.csv`); the TTS row speaks the raw transcript (second column). "
          f"Copy-synthesis is `tts vocode REC.wav -o OUT.wav --model {rel(vocoder_dir)} --report "
          f"--seed S`: the recording's log-mel frames through the voice's vocoder. Copy-synthesis "
          f"and TTS sample, so they ran with seeds 0 to {seeds[-1]} and the pooled rows are "
          f"their figures.\n")
        def per_seed(ids, label):
            rows = [(f"{label}, seed {seed}", [human[i][p] for p in human["ids"]])
                    for seed, i in zip(seeds, ids)]
            if len(seeds) > 1:
                rows.append((f"**{label}, seeds 0–{seeds[-1]} pooled**",
                             [human[i][p] for i in ids for p in human["ids"]]))
            return rows
        w(wer_table([("recordings (human)", [human["recording"][p] for p in human["ids"]])]
                    + per_seed(copy_ids, "copy-synthesis (recording → mel → vocoder)")
                    + per_seed(tts_ids, voice_label + " from the text")))
        w("")
        if dist:
            w(f"Copy-synthesis log-mel distance (`tts vocode --report`: mean absolute difference "
              f"of natural-log mel magnitudes, over 80 mels and all frames, between recording and "
              f"re-synthesis), averaged over {len(dist)} renderings: **{statistics.mean(dist):.3f}**; "
              f"the codec floor (the recording merely quantised by the vocoder's sample codec — "
              f"pre-emphasis, if the vocoder uses it, and μ-law — what any vocoder with that codec "
              f"could reach): {statistics.mean(floor):.3f}. Per prompt in the appendix.\n")
        else:
            w("No copy-synthesis succeeded, so there is no log-mel distance.\n")

    w("## Spectrograms\n")
    if "spectrograms.png" in pngs:
        s = pngs["spectrograms.png"]
        w(f"Log-mel spectrograms (`tts mel`, the voice's features) of the held-out prompt "
          f"`{s['prompt']}` (\"{md_escape(human['metadata'][s['prompt']][0])}\"): the "
          f"recording, its copy-synthesis and the TTS rendering of its text, on one colour scale "
          f"({s['vmin']:.1f} to {s['vmax']:.1f}) and one time scale.\n")
        w("![log-mel spectrograms](quality/spectrograms.png)\n")
    else:
        w(" ".join(n for n in notes if "spectrogram picture" in n) + "\n")

    w("## Training\n")
    if "losses.png" in pngs:
        w("Losses parsed from the logs in the voice's `training/` folder (the vocoder's validation "
          "loss is computed with its EMA weights; the acoustic model's validation figure is its "
          "mel loss only, so compare it with the green training mel loss, not the total).\n")
        w("![training losses](quality/losses.png)\n")
    for name, parsed in logs_info:
        if parsed is None:
            w(f"- {name}: no log (`training/{name}.log` is missing).")
        elif parsed.empty:
            w(f"- {name}: the log has no step lines.")
        else:
            line = (f"- {name}: {len(parsed.train_steps)} logged steps up to step "
                    f"{parsed.train_steps[-1]:,} of {parsed.total_steps:,}; last training loss "
                    f"{parsed.train_loss[-1]:.4f}")
            if parsed.val_steps:
                line += (f"; last validation {'mel ' if parsed.train_mel else ''}loss "
                         f"{parsed.val_loss[-1]:.4f} at step {parsed.val_steps[-1]:,}")
            w(line + ".")
    w("")

    w("## Speed\n")
    if bench:
        rtf = statistics.median(b["real_time_factor"] for b in bench)
        ttfa = statistics.median(b["time_to_first_audio_seconds"] for b in bench)
        w(f"`{shlex.join(['tts', 'bench', 'pipeline', '--voice', rel(voice_dir), '--threads', '1'])}`"
          f" (its default five-sentence paragraph), {len(bench)} runs one after another, "
          f"with OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=1: the vocoder on one thread, on the machine "
          f"above. Real-time factor = compute seconds per second of audio (below 1 is faster than "
          f"real time).\n")
        w("| run | audio (s) | wall (s) | real-time factor | time to first audio (s) "
          "| load average before |")
        w("|---:|---:|---:|---:|---:|---:|")
        for n, b in enumerate(bench, 1):
            w(f"| {n} | {b['audio_seconds']:.2f} | {b['wall_seconds']:.2f} | "
              f"{b['real_time_factor']:.3f} | {b['time_to_first_audio_seconds']:.3f} | "
              + (f"{b['load_before'][0]:.2f}" if b["load_before"] else "?") + " |")
        w("")
        w(f"Median real-time factor **{rtf:.3f}** ({1 / rtf:.1f}× real time); median time to "
          f"first audio {ttfa:.3f} s.\n")
    else:
        w("Not measured (see the failures below).\n")

    w("## Failures and notes\n")
    if not failures and not notes:
        w("None: every utterance was synthesised and recognised.\n")
    for section, message in failures:
        w(f"- **{section}**: {md_escape(message)}")
    for note in notes:
        w(f"- {note}")
    w("")

    w("## Appendix: what the recogniser heard\n")
    w("Recognised words in italics differ from the reference (*+word*: inserted), struck-out "
      "words were not recognised; the number is the utterance's errors.\n")
    w(f"<details><summary>Development sentences ({len(sentences)} × {len(systems)} systems)"
      f"</summary>\n")
    text_of = dict(zip(dev_keys, sentences))
    ref_of = dict(zip(dev_keys, references))
    w(hypotheses_table([(label, dev[s]) for s, label, _ in systems], dev_keys, "#",
                       text_of.get, ref_of.get))
    w("\n</details>\n")
    if human:
        w(f"<details><summary>Held-out prompts ({len(human['ids'])} × 3, seed 0)</summary>\n")
        md_meta = human["metadata"]
        w(hypotheses_table([("recording", human["recording"]), ("copy-synthesis", human["copy"]),
                            ("TTS", human["tts"])], human["ids"], "prompt",
                           lambda p: md_meta[p][0], lambda p: md_meta[p][1]))
        w("")
        w("| prompt | seconds | copy-synthesis log-mel distance (seed 0) | codec floor |")
        w("|---|---:|---:|---:|")
        for p in human["ids"]:
            i = human["copy"][p]
            rec = human["recording"][p]
            if i.error or "log_mel_distance" not in i.extra:
                w(f"| {p} | {rec.seconds or 0:.2f} | failed | |")
            else:
                w(f"| {p} | {rec.seconds or 0:.2f} | {i.extra['log_mel_distance']:.3f} | "
                  f"{i.extra.get('log_mel_distance_of_mulaw_input', float('nan')):.3f} |")
        w("\n</details>\n")

    report_path = os.path.join(out_dir, "quality.md")
    atomic_write(report_path, "\n".join(md))
    if a.keep_work:
        log(f"work folder kept: {work}")

    # ---- summary on the terminal ----
    for s, label, _ in systems:
        log(f"WER {label}: {pct(total(dev[s].values()))}")
    if len(seeds) > 1:
        log(f"WER {voice_label}, seeds 0-{seeds[-1]} pooled: {pct(total(pooled))}")
    if human:
        for ids, label in [(["recording"], "recordings"), (copy_ids, "copy-synthesis"),
                           (tts_ids, "TTS of held-out prompts")]:
            pooled_items = [i for s in ids for i in human[s].values()]
            log(f"WER {label}" + (f", seeds 0-{seeds[-1]} pooled" if len(ids) > 1 else "")
                + f": {pct(total(pooled_items))}")
    if bench:
        log(f"real-time factor (1 thread): {statistics.median(b['real_time_factor'] for b in bench):.3f}")
    log(f"wrote {rel(report_path)} and {len(pngs)} picture(s) in {elapsed / 60:.1f} minutes")
    if failures:
        log(f"{len(failures)} failure(s), listed in the report:")
        for section, message in failures:
            log(f"  {section}: {message}")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fatal as e:
        log(f"error: {e}")
        sys.exit(e.code)
    except KeyboardInterrupt:
        sys.exit(130)
