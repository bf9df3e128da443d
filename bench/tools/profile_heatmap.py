#!/usr/bin/python3
"""Draws the PE-to-PE traffic matrix of a Shoal profile as a PNG heat map.

The profile comes from a run with SHOAL_PROFILE=1 SHOAL_PROFILE_CSV=FILE
(docs/debugging.md, "Profiling summary"): a table of operation families,
a blank line, then rows of from_pe,to_pe,bytes. Needs Debian's
python3-matplotlib (scripts/setup.sh does not install it; apt-get install
python3-matplotlib). The library never calls this script.

usage: bench/tools/profile_heatmap.py PROFILE.csv OUT.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_matrix(path):
    with open(path) as f:
        _, _, tail = f.read().partition("\n\n")
    rows = list(csv.DictReader(tail.strip().splitlines()))
    if not rows:
        sys.exit(f"{path}: no from_pe,to_pe,bytes rows; is it a SHOAL_PROFILE_CSV file?")
    n = 1 + max(max(int(r["from_pe"]), int(r["to_pe"])) for r in rows)
    m = [[0] * n for _ in range(n)]
    for r in rows:
        m[int(r["from_pe"])][int(r["to_pe"])] = int(r["bytes"])
    return m


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    m = read_matrix(sys.argv[1])
    n = len(m)
    fig, ax = plt.subplots(figsize=(2 + 0.5 * n, 1.5 + 0.5 * n))
    im = ax.imshow(m, cmap="viridis")
    ax.set_xlabel("to PE")
    ax.set_ylabel("from PE")
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_title("bytes moved, PE to PE")
    if n <= 16:
        top = max(max(r) for r in m) or 1
        for i in range(n):
            for j in range(n):
                ax.text(j, i, str(m[i][j]), ha="center", va="center", fontsize=7,
                        color="black" if m[i][j] > top / 2 else "white")
    fig.colorbar(im, ax=ax, label="bytes")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)
    print(f"{sys.argv[2]}: {n}x{n} traffic matrix")


if __name__ == "__main__":
    main()
