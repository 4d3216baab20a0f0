"""Draws the soak's samples (bench/soak.sh): VmRSS, open descriptors, task-store size and
interval p99 over time, one line per store.

Usage: python soak_plot.py OUT.png STORE=FILE.csv...
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PANELS = [
    ("rss_kib", "VmRSS (MiB)", 1 / 1024),
    ("fds", "open descriptors", 1),
    ("store_bytes", "task store (MiB)", 1 / 1048576),
    ("p99_ms", "p99 of the interval (ms)", 1),
]


def read(path):
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def main(out, stores):
    figure, axes = plt.subplots(len(PANELS), 1, figsize=(9, 11), sharex=True)
    for name, path in stores:
        rows = read(path)
        minutes = [float(row["elapsed_s"]) / 60 for row in rows]
        for axis, (column, label, scale) in zip(axes, PANELS):
            points = [
                (m, float(row[column]) * scale)
                for m, row in zip(minutes, rows)
                if row[column] != ""
            ]
            axis.plot([p[0] for p in points], [p[1] for p in points], label=name)
            axis.set_ylabel(label)
            axis.grid(True, alpha=0.3)
    for axis in axes:
        axis.set_ylim(bottom=0)
        axis.legend(loc="best")
    axes[-1].set_xlabel("minutes")
    figure.suptitle("a2a serve soak: the mix at half capacity")
    figure.tight_layout()
    figure.savefig(out, dpi=100)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], [arg.split("=", 1) for arg in sys.argv[2:]])
