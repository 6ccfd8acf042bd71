#!/usr/bin/python3
"""The same WaveNet as tts's vocoder, in PyTorch (Debian's python3-torch), as a speed peer.

Measures, on one thread: incremental sampling with per-layer queues (the fast-WaveNet cache, the
best a PyTorch user would write) and teacher-forced training steps (forward + backward), for the
architecture in DESIGN.md: L layers, dilations 1..2^(cycle-1) repeated, R residual, 2R gate,
S skip, A classes, head relu → S×S → relu → A×S. Prints one JSON line like `tts bench vocoder`.

Usage: benchmarks/peer/pytorch_wavenet.py [--layers 20] [--residual 64] [--skip 256]
       [--seconds 0.5] [--threads 1]
"""
import argparse
import json
import time

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
    a = p.parse_args()
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
