#!/usr/bin/python3
"""Draws the PE-to-PE traffic matrix of a Shoal profile as a PNG heat map.

The profile comes from a run with SHOAL_PROFILE_CSV=FILE (docs/debugging.md,
"Profiling summary"): three tables separated by blank lines -- the operation
families, the PEs (pe,wall_ns,...) and the matrix's nonzero cells
(from_pe,to_pe,bytes). Installed as shoal-profile-heatmap. Needs Debian's
python3-matplotlib (scripts/setup.sh does not install it; apt-get install
python3-matplotlib). The library never calls this script.

usage: shoal-profile-heatmap [--log] PROFILE.csv OUT.png
  --log  colour by log10(bytes) (a few heavy pairs hide the rest otherwise);
         cells without traffic stay at the bottom of the scale
"""
import csv
import math
import sys


def read_tables(path):
    """The CSV's tables, keyed by their first column's name."""
    with open(path) as f:
        blocks = [b for b in f.read().split("\n\n") if b.strip()]
    tables = {}
    for b in blocks:
        rows = list(csv.DictReader(b.strip().splitlines()))
        if rows or b.strip():
            tables[b.strip().splitlines()[0].split(",")[0]] = rows
    return tables


def read_matrix(path):
    tables = read_tables(path)
    if "from_pe" not in tables and "pe" not in tables:
        sys.exit(f"{path}: no from_pe,to_pe,bytes table; is it a SHOAL_PROFILE_CSV file?")
    cells = tables.get("from_pe", [])
    n = len(tables["pe"]) if "pe" in tables else 0
    for r in cells:
        n = max(n, 1 + int(r["from_pe"]), 1 + int(r["to_pe"]))
    m = [[0] * n for _ in range(n)]
    for r in cells:
        m[int(r["from_pe"])][int(r["to_pe"])] = int(r["bytes"])
    return m


def main(argv):
    log = "--log" in argv
    args = [a for a in argv if a != "--log"]
    if len(args) != 2 or any(a.startswith("-") for a in args):
        sys.exit(__doc__)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = read_matrix(args[0])
    n = len(m)
    shown = [[math.log10(v) if v > 0 else 0.0 for v in row] for row in m] if log else m
    side = min(2 + 0.5 * n, 20)
    fig, ax = plt.subplots(figsize=(side, max(1.5 + 0.5 * n, 2) if n <= 36 else side))
    im = ax.imshow(shown, cmap="viridis", interpolation="nearest")
    ax.set_xlabel("to PE")
    ax.set_ylabel("from PE")
    if n <= 36:
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
    ax.set_title("bytes moved, PE to PE" + (" (log scale)" if log else ""))
    if n <= 16:
        top = max(max(r) for r in shown) or 1
        for i in range(n):
            for j in range(n):
                ax.text(j, i, str(m[i][j]), ha="center", va="center", fontsize=7,
                        color="black" if shown[i][j] > top / 2 else "white")
    fig.colorbar(im, ax=ax, label="log10(bytes)" if log else "bytes")
    fig.tight_layout()
    fig.savefig(args[1], dpi=100)
    print(f"{args[1]}: {n}x{n} traffic matrix{' (log scale)' if log else ''}")


if __name__ == "__main__":
    main(sys.argv[1:])
