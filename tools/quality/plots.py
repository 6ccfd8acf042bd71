"""The report's pictures (matplotlib, Agg backend; Debian's python3-matplotlib and python3-numpy)."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _save(fig, path):
    """Writes the figure to a temporary name beside `path`, then renames it (atomic)."""
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)


def spectrograms(panels, hop_seconds, path, title):
    """panels: list of (label, array frames x mels). Side by side, one shared colour scale, the
    widths proportional to the durations so that a second is as wide in every panel."""
    arrays = [np.asarray(a, dtype=np.float32) for _, a in panels]
    finite = np.concatenate([a[np.isfinite(a)].ravel() for a in arrays])
    vmin, vmax = float(np.percentile(finite, 1)), float(finite.max())
    widths = [max(a.shape[0], 1) for a in arrays]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.0 + 0.012 * sum(widths), 3.6),
                             gridspec_kw={"width_ratios": widths}, squeeze=False)
    image = None
    for ax, (label, _), a in zip(axes[0], panels, arrays):
        seconds = a.shape[0] * hop_seconds
        image = ax.imshow(a.T, origin="lower", aspect="auto", vmin=vmin, vmax=vmax,
                          cmap="magma", extent=(0, seconds, 0, a.shape[1]),
                          interpolation="nearest")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("seconds")
    axes[0][0].set_ylabel("mel band")
    for ax in axes[0][1:]:
        ax.set_yticklabels([])
    fig.suptitle(title, fontsize=10)
    bar = fig.colorbar(image, ax=list(axes[0]), fraction=0.025, pad=0.01)
    bar.set_label("log magnitude (natural log)")
    _save(fig, path)
    return vmin, vmax


def losses(logs, path):
    """logs: list of (title, training_logs.Log or None, note). One panel per log."""
    fig, axes = plt.subplots(1, len(logs), figsize=(6.0 * len(logs), 4.0), squeeze=False)
    for ax, (title, log, note) in zip(axes[0], logs):
        ax.set_title(title, fontsize=10)
        if log is None or log.empty:
            ax.text(0.5, 0.5, note or "no log", ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        ax.plot(log.train_steps, log.train_loss, color="tab:blue", alpha=0.35, linewidth=0.8,
                label="training loss (one batch per logged step)")
        window = 10
        if len(log.train_loss) >= 2 * window:
            mean = np.convolve(log.train_loss, np.ones(window) / window, mode="valid")
            ax.plot(log.train_steps[window - 1:], mean, color="tab:blue", linewidth=1.6,
                    label=f"training loss, mean of the last {window} logged steps")
        if log.train_mel:
            ax.plot(log.train_steps, log.train_mel, color="tab:green", alpha=0.6, linewidth=0.9,
                    label="training mel loss (part of the total)")
            val_label = "validation mel loss"
        else:
            val_label = "validation loss"
        if log.val_steps:
            ax.plot(log.val_steps, log.val_loss, "o-", color="tab:red", markersize=3.5,
                    label=val_label)
        ax.set_xlabel(f"step (of {log.total_steps:,} planned)" if log.total_steps else "step")
        ax.set_ylabel("loss")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path)
