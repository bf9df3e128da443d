#!/usr/bin/env python3
"""Pools several bench/drivers/netns_compare.sh runs into one table.

One run of netns_compare gives K interleaved rounds; the hour-to-hour noise
of a shared machine moves both libraries by more than the difference
between them, so a verdict on "no slower than OSHMEM" wants more rounds than
one run gives. This reads the raw files of several runs (the *.raw.txt that
netns_compare writes beside its report) and prints, for the rows the
issue-10 comparison names, the median over all rounds of each library, the
ratio (OSHMEM time / Shoal time, >1: Shoal faster), the median of the
per-round ratios, and in how many rounds Shoal was faster; then the plain
UCP probe's medians (the floor) with OSHMEM's and with Shoal's settings.

usage: bench/tools/netns_pool.py RAW [RAW ...]
"""
import re
import statistics
import sys

ROWS = [
    ("rdma_demo", "put", "", "8"),
    ("rdma_demo", "get", "", "8"),
    ("rdma_demo", "fetch_add", "", "8"),
    ("lat_rma", "putmem_quiet", "heap", "1"),
    ("lat_rma", "long_p_quiet", "heap", "8"),
    ("lat_rma", "getmem", "heap", "1"),
    ("lat_rma", "long_g", "heap", "8"),
    ("lat_amo", "fetch_add", "heap", "8"),
    ("lat_amo", "fetch_add", "global", "8"),
    ("lat_amo", "fetch", "heap", "8"),
    ("bw_rma", "putmem_nbi", "heap", "65536"),
    ("lat_rma", "putmem_nbi_quiet", "heap", "65536"),
    ("bw_rma", "getmem_nbi", "heap", "65536"),
]
PROBE_OPS = ("put_flush", "get", "fetch_add", "get_win_req", "get_win_flush")
LINE = re.compile(r"(shoal|oshmem|ucpx|ucp) (\d+) (\w+)\| (.*)")


def read(paths):
    """(key, side) -> {(path, round): usec}"""
    vals = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                m = LINE.match(line.rstrip("\n"))
                if not m:
                    continue
                side, rnd, prog, rest = m.groups()
                if "bench=" in rest:
                    d = dict(x.split("=", 1) for x in rest.split() if "=" in x)
                    if "usec" not in d:
                        continue
                    key = (d["bench"], d["op"], d.get("mem", ""), d.get("size", ""))
                    usec = float(d["usec"])
                elif prog == "rdma_demo":
                    p = rest.split()  # op bytes latency_us MB/s
                    if len(p) < 3 or not p[1].isdigit():
                        continue
                    try:
                        usec = float(p[2])
                    except ValueError:
                        continue
                    key = ("rdma_demo", p[0], "", p[1])
                else:
                    continue
                vals.setdefault((key, side), {})[(path, rnd)] = usec
    return vals


def main(paths):
    vals = read(paths)
    print("| row | rounds | Shoal µs | OSHMEM µs | ratio | median of per-round ratios "
          "| rounds Shoal faster |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key in ROWS:
        a, b = vals.get((key, "shoal"), {}), vals.get((key, "oshmem"), {})
        both = [r for r in a if r in b]
        name = " ".join(x for x in key if x)
        if not both:
            print(f"| {name} | 0 | - | - | - | - | - |")
            continue
        ms = statistics.median(a[r] for r in both)
        mo = statistics.median(b[r] for r in both)
        per = statistics.median(b[r] / a[r] for r in both)
        faster = sum(b[r] > a[r] for r in both)
        print(f"| {name} | {len(both)} | {ms:.2f} | {mo:.2f} | {mo / ms:.3f} | {per:.3f} "
              f"| {faster}/{len(both)} |")
    print("\nFloor, plain UCP probe (medians over the rounds): op | OSHMEM's settings "
          "| Shoal's settings (--shoal-like)")
    for op in PROBE_OPS:
        key = ("ucp_probe", op, "", "")
        cells = []
        for side in ("ucp", "ucpx"):
            v = vals.get((key, side), {})
            cells.append(f"{statistics.median(v.values()):.2f} µs" if v else "-")
        print(f"- {op}: {cells[0]} | {cells[1]}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    sys.exit(main(sys.argv[1:]))
