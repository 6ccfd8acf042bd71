#!/usr/bin/python3
"""The same WaveNet as tts's vocoder, in PyTorch (Debian's python3-torch), as a speed peer.

CPU (the default, what scripts/bench-vocoder runs): measures, on one thread, incremental sampling
with per-layer queues (the fast-WaveNet cache, the best a PyTorch user would write) and
teacher-forced training steps (forward + backward), for the architecture in DESIGN.md: L layers,
dilations 1..2^(cycle-1) repeated, R residual, 2R gate, S skip, A classes, head relu → S×S → relu →
A×S. Prints one JSON line like `tts bench vocoder`.

CUDA (--device cuda): times full training steps as a PyTorch user writes them — forward,
cross-entropy over the A mu-law classes, backward, torch.optim.Adam step after
zero_grad(set_to_none=True) — for each shape BATCHxCROP and each mode, on random classes and random
mels already at the sample rate, made on the GPU once per shape. Modes are
{eager|compile|compile-<torch.compile mode>}-{fp32|bf16}: fp32 runs without TF32 (as ours does),
bf16 under torch.autocast; compile modes compile forward + loss (Adam stays eager), and
compile-reduce-overhead uses CUDA graphs. samples_per_s = batch·crop·steps / seconds of the timed
steps (after warm-up steps, which include compiling); peak_mb = torch.cuda.max_memory_allocated over
the mode (warm-up included). One line per (shape, mode) on stdout, a failed mode printing error=
instead and the run going on; details (warm-up seconds, last loss) go to stderr:

  PEER_TRAINING shape=8x4096 mode=compile-bf16 samples_per_s=1.234e+06 peak_mb=1234
  PEER_TRAINING shape=8x4096 mode=compile-bf16 error="..."

Usage: benchmarks/peer/pytorch_wavenet.py [--layers 20] [--residual 64] [--skip 256]
       [--seconds 0.5] [--threads 1]
       benchmarks/peer/pytorch_wavenet.py --device cuda [--train-shapes 8x4096,32x8192]
       [--modes eager-fp32,eager-bf16,compile-bf16,compile-reduce-overhead-bf16]
       [--steps 20] [--warmup 3] [--seconds-limit 150]
"""
import argparse
import gc
import json
import math
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F


class WaveNet(nn.Module):
    def __init__(self, layers, cycle, r, s, a, mels):
        super().__init__()
        self.dilations = [2 ** (i % cycle) for i in range(layers)]
        self.r, self.a = r, a
        self.embedding = nn.Embedding(a, r)
        self.conditioning = nn.Conv1d(mels, layers * 2 * r, 1)
        self.dilated = nn.ModuleList(nn.Conv1d(r, 2 * r, 2, dilation=d) for d in self.dilations)
        self.residual = nn.ModuleList(nn.Conv1d(r, r, 1) for _ in range(layers - 1))
        self.skip = nn.Conv1d(layers * r, s, 1)
        self.hidden = nn.Conv1d(s, s, 1)
        self.output = nn.Conv1d(s, a, 1)

    def forward(self, inputs, cond):  # inputs: B×T classes, cond: B×mels×T (already upsampled)
        h = self.embedding(inputs).transpose(1, 2)
        c = self.conditioning(cond).chunk(len(self.dilations), dim=1)
        gated_all = []
        for i, d in enumerate(self.dilations):
            z = self.dilated[i](F.pad(h, (d, 0))) + c[i]
            f, g = z.chunk(2, dim=1)
            gated = torch.tanh(f) * torch.sigmoid(g)
            gated_all.append(gated)
            if i < len(self.residual):
                h = h + self.residual[i](gated)
        skip = F.relu(self.skip(torch.cat(gated_all, dim=1)))
        return self.output(F.relu(self.hidden(skip)))

    @torch.no_grad()
    def sample(self, cond, n):  # cond: mels×n; fast-WaveNet queues, one sample at a time
        r = self.r
        proj = self.conditioning(cond.unsqueeze(0))[0]  # (L·2R)×n, off the serial path
        queues = [torch.zeros(d, r) for d in self.dilations]
        w_past = [m.weight[:, :, 0].contiguous() for m in self.dilated]
        w_now = [m.weight[:, :, 1].contiguous() for m in self.dilated]
        b_dil = [m.bias for m in self.dilated]
        w_res = [m.weight[:, :, 0] for m in self.residual]
        b_res = [m.bias for m in self.residual]
        w_skip, b_skip = self.skip.weight[:, :, 0], self.skip.bias
        w_hid, b_hid = self.hidden.weight[:, :, 0], self.hidden.bias
        w_out, b_out = self.output.weight[:, :, 0], self.output.bias
        previous = torch.tensor(self.a // 2)
        out = torch.empty(n, dtype=torch.long)
        for t in range(n):
            h = self.embedding.weight[previous]
            gated_all = []
            for i, d in enumerate(self.dilations):
                past = queues[i][t % d].clone()
                queues[i][t % d] = h
                z = w_past[i] @ past + w_now[i] @ h + b_dil[i] + proj[i * 2 * r:(i + 1) * 2 * r, t]
                gated = torch.tanh(z[:r]) * torch.sigmoid(z[r:])
                gated_all.append(gated)
                if i < len(w_res):
                    h = h + w_res[i] @ gated + b_res[i]
            skip = torch.relu(w_skip @ torch.cat(gated_all) + b_skip)
            logits = w_out @ torch.relu(w_hid @ skip + b_hid) + b_out
            previous = torch.multinomial(torch.softmax(logits, 0), 1)[0]
            out[t] = previous
        return out


# --- CUDA training steps (--device cuda) -------------------------------------------------------

CUDA_MODES = "eager-fp32,eager-bf16,compile-bf16,compile-reduce-overhead-bf16"


def parse_shapes(text):
    """'8x4096,32x8192' → [(8, 4096), (32, 8192)]; the argparse type of --train-shapes."""
    shapes = []
    for item in text.split(","):
        batch, _, crop = item.strip().lower().partition("x")
        try:
            shape = (int(batch), int(crop))
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad shape {item!r}: want BATCHxCROP, e.g. 8x4096")
        if min(shape) <= 0:
            raise argparse.ArgumentTypeError(f"bad shape {item!r}: both sizes must be positive")
        shapes.append(shape)
    return shapes


def parse_mode(name):
    """'compile-reduce-overhead-bf16' → ('reduce-overhead', True): the torch.compile mode (None for
    eager) and whether to autocast to bf16. A ValueError here becomes that mode's error line."""
    kind, _, precision = name.rpartition("-")
    if precision not in ("fp32", "bf16") or not (kind in ("eager", "compile")
                                                 or kind.startswith("compile-")):
        raise ValueError(f"unknown mode {name!r}: want eager|compile|compile-<torch.compile mode>"
                         " followed by -fp32|-bf16")
    compile_mode = None if kind == "eager" else (kind[len("compile-"):] or "default")
    return compile_mode, precision == "bf16"


def error_text(e):
    """One line, no double quotes, so that the error= record stays greppable."""
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0] if lines else ''}".replace('"', "'")[:300]


_CLEANUP_FAILURES = set()  # cleanup steps that have failed once: said once, not per mode


def release():
    """Frees what a mode left behind: compiled code (which holds the model), CUDA graph pools and
    the allocator's cached blocks, so that a mode's memory neither limits nor inflates the next."""
    def reset_dynamo():
        torch.compiler.reset()

    def reset_cudagraph_trees():
        from torch._inductor.cudagraph_trees import reset_cudagraph_trees as reset
        reset()

    def empty_cache():
        torch.cuda.empty_cache()

    for free in (reset_dynamo, reset_cudagraph_trees, gc.collect, empty_cache):
        try:
            free()
        except Exception as e:  # cleanup must never end the run; say so once per kind
            if free.__name__ not in _CLEANUP_FAILURES:
                _CLEANUP_FAILURES.add(free.__name__)
                print(f"peer: cleanup {free.__name__}: {error_text(e)}", file=sys.stderr)


def cudagraph_skips():
    """How many compiled graphs CUDA graph trees have declined to capture (each then runs as plain
    compiled code, which the mode's name would overstate); None where the counter is missing."""
    try:
        from torch._dynamo.utils import counters
        return int(counters["inductor"]["cudagraph_skips"])
    except Exception:
        return None


def time_training(a, batch, crop, mode, data):
    """Times a.steps full training steps of a fresh model in one mode, after a.warmup steps.
    Returns (samples/s, peak MiB, warm-up seconds, timed seconds, last loss, graphs that CUDA
    graphs were asked for but not captured (None if not asked or unknown))."""
    compile_mode, bf16 = parse_mode(mode)
    # Our fp32 GEMMs are true fp32, so TF32 stays off for every mode (under autocast the
    # convolutions run in bf16 anyway). The legacy flags on purpose: their setters also set the new
    # fp32_precision state, so the two agree; setting only the new API in PyTorch 2.9+ can make
    # inductor, which reads the legacy flags, fail with "mix of the legacy and new APIs".
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    # A user training convolutions on fixed shapes lets cuDNN pick its fastest algorithms.
    torch.backends.cudnn.benchmark = a.cudnn_benchmark
    torch.cuda.reset_peak_memory_stats()
    inputs, targets, cond = data
    torch.manual_seed(0)
    model = WaveNet(a.layers, a.cycle, a.residual, a.skip, a.classes, a.mels).cuda()
    optimiser = torch.optim.Adam(model.parameters(), 1e-3)

    def forward_loss(inputs, cond, targets):
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
            return F.cross_entropy(model(inputs, cond), targets)

    # CUDA graphs come with reduce-overhead (and with max-autotune, should one ask for it).
    cudagraphs = compile_mode in ("reduce-overhead", "max-autotune")
    skips = cudagraph_skips() if cudagraphs else None  # the count before this mode compiles
    if compile_mode is not None:
        # Forward + loss in one graph (AOTAutograd compiles the backward from it). dynamic=False:
        # each (shape, mode) compiles its own static graph, as for a user with a fixed crop; the
        # caller resets dynamo between modes, so no cache entry is ever reused or recompiled.
        forward_loss = torch.compile(forward_loss, mode=compile_mode, dynamic=False)

    def step():
        if cudagraphs:
            # CUDA graph trees overwrite a graph's outputs on its next replay; this tells them the
            # previous step's outputs (loss, gradients) are dead, as PyTorch requires in a loop.
            torch.compiler.cudagraph_mark_step_begin()
        optimiser.zero_grad(set_to_none=True)
        loss = forward_loss(inputs, cond, targets)
        loss.backward()
        optimiser.step()
        return loss

    # Warm-up compiles (first step: forward, then backward), lets cuDNN choose its algorithms, and
    # for CUDA graphs runs, records, then replays them: hence at least 3 steps there.
    start = time.perf_counter()
    for _ in range(max(a.warmup, 3 if cudagraphs else 1)):
        step()
    torch.cuda.synchronize()
    warmup_s = time.perf_counter() - start
    if skips is not None:
        after = cudagraph_skips()
        skips = None if after is None else after - skips
    start = time.perf_counter()
    for _ in range(a.steps):
        loss = step()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    last = loss.item()  # after the last step, so no replay has overwritten it yet
    if not math.isfinite(last):
        raise FloatingPointError(f"non-finite loss {last} after {a.steps} steps")
    return (batch * crop * a.steps / seconds, torch.cuda.max_memory_allocated() / 2 ** 20,
            warmup_s, seconds, last, skips)


def cuda_main(a):
    """Every (shape, mode) prints exactly one PEER_TRAINING line; no failure ends the run."""
    began = time.perf_counter()
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    try:
        device = torch.cuda.get_device_name()
    except Exception as e:
        device = f"unavailable ({error_text(e)})"
    print(f"peer: torch {torch.__version__}, {device}; L{a.layers} cycle {a.cycle} R{a.residual} "
          f"S{a.skip} A{a.classes} mels {a.mels}; {a.warmup} warm-up + {a.steps} timed steps",
          file=sys.stderr, flush=True)
    for batch, crop in a.train_shapes:
        shape = f"{batch}x{crop}"
        data, data_error = None, None
        try:  # made once per shape, before any timing; shared by the modes
            torch.manual_seed(0)
            data = (torch.randint(0, a.classes, (batch, crop), device="cuda"),
                    torch.randint(0, a.classes, (batch, crop), device="cuda"),
                    torch.randn(batch, a.mels, crop, device="cuda"))
        except Exception as e:
            data_error = f"inputs: {error_text(e)}"
        for mode in modes:
            elapsed = time.perf_counter() - began
            if data is None:
                print(f'PEER_TRAINING shape={shape} mode={mode} error="{data_error}"', flush=True)
                continue
            if a.seconds_limit > 0 and elapsed > a.seconds_limit:
                print(f'PEER_TRAINING shape={shape} mode={mode} error="skipped: --seconds-limit '
                      f'{a.seconds_limit:g} s reached ({elapsed:.0f} s)"', flush=True)
                continue
            try:
                rate, peak, warmup_s, seconds, last, skips = time_training(a, batch, crop, mode,
                                                                           data)
                # A trailing note only when CUDA graphs were asked for and some graph was not
                # captured: the figure is then not what the mode's name says.
                note = f' note="{skips} graph(s) not captured as CUDA graphs"' if skips else ""
                print(f"PEER_TRAINING shape={shape} mode={mode} samples_per_s={rate:.3e} "
                      f"peak_mb={peak:.0f}{note}", flush=True)
                print(f"peer: shape={shape} mode={mode} warmup_s={warmup_s:.1f} (compiling "
                      f"included) timed_s={seconds:.3f} loss={last:.3f}", file=sys.stderr,
                      flush=True)
            except Exception as e:  # compile unavailable, out of memory, ...: report and go on
                print(f'PEER_TRAINING shape={shape} mode={mode} error="{error_text(e)}"',
                      flush=True)
                # The innermost frames, kept short: a GPU run's log shows only its tail.
                print(f"peer: shape={shape} mode={mode} failed:\n"
                      f"{traceback.format_exc(limit=-3)[-1500:]}", file=sys.stderr, flush=True)
            finally:
                release()
        del data
        release()
    print(f"peer: done in {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--layers", type=int, default=20)
    p.add_argument("--cycle", type=int, default=10)
    p.add_argument("--residual", type=int, default=64)
    p.add_argument("--skip", type=int, default=256)
    p.add_argument("--classes", type=int, default=256)
    p.add_argument("--mels", type=int, default=80)
    p.add_argument("--seconds", type=float, default=0.5)
    p.add_argument("--sample-rate", type=int, default=16000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--train-batch", type=int, default=4)
    p.add_argument("--train-length", type=int, default=8000)
    p.add_argument("--train-steps", type=int, default=2)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="cuda: time training steps on the GPU per shape and mode (see above)")
    p.add_argument("--train-shapes", type=parse_shapes, default=parse_shapes("8x4096,32x8192"),
                   help="cuda: BATCHxCROP,... (default 8x4096,32x8192)")
    p.add_argument("--modes", default=CUDA_MODES,
                   help=f"cuda: comma-separated (default {CUDA_MODES})")
    p.add_argument("--steps", type=int, default=20, help="cuda: timed steps per shape and mode")
    p.add_argument("--warmup", type=int, default=3,
                   help="cuda: untimed steps first, compiling included (at least 1; 3 with CUDA "
                        "graphs)")
    p.add_argument("--seconds-limit", type=float, default=150,
                   help="cuda: start no further (shape, mode) after this many seconds from the "
                        "first; the rest print a skipped error line (0: no limit)")
    p.add_argument("--cudnn-benchmark", action=argparse.BooleanOptionalAction, default=True,
                   help="cuda: set torch.backends.cudnn.benchmark")
    a = p.parse_args()
    if a.device == "cuda":
        if a.steps < 1 or a.warmup < 0:
            p.error("--steps must be at least 1 and --warmup at least 0")
        cuda_main(a)
        return
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = WaveNet(a.layers, a.cycle, a.residual, a.skip, a.classes, a.mels)

    n = int(a.seconds * a.sample_rate)
    cond = torch.randn(a.mels, n)
    start = time.perf_counter()
    model.sample(cond, n)
    sampling = n / (time.perf_counter() - start)

    inputs = torch.randint(0, a.classes, (a.train_batch, a.train_length))
    targets = torch.randint(0, a.classes, (a.train_batch, a.train_length))
    tcond = torch.randn(a.train_batch, a.mels, a.train_length)
    optimiser = torch.optim.Adam(model.parameters(), 1e-3)

    def step():
        optimiser.zero_grad()
        loss = F.cross_entropy(model(inputs, tcond), targets)
        loss.backward()
        optimiser.step()

    step()  # warm-up
    start = time.perf_counter()
    for _ in range(a.train_steps):
        step()
    training = a.train_steps * a.train_batch * a.train_length / (time.perf_counter() - start)
    print(json.dumps({"bench": "pytorch-wavenet", "torch": torch.__version__,
                      "layers": a.layers, "residual": a.residual, "skip": a.skip,
                      "threads": a.threads, "samples_per_second": round(sampling),
                      "times_real_time": sampling / a.sample_rate,
                      "train_samples_per_second": round(training),
                      "train_batch": f"{a.train_batch}x{a.train_length}"}))


if __name__ == "__main__":
    main()
