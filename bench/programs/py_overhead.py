"""Per-call cost of shoal from Python next to the same calls from C, in the
same job and process (shoal._core._bench_c runs the C loops).

    build/tools/shoalrun -n 2 /usr/bin/python3 bench/programs/py_overhead.py [--iters N] [--md FILE]

PE 0 and PE 1 target each other (shared memory); PE 0 prints a table of the
median over REPEATS runs of each loop: 8-byte p, 8-byte get, fetch-add,
barrier_all and 1 MiB put (with bandwidth). The Python numbers include the
Python `for` loop around the call.
"""
import argparse
import os
import statistics
import time

import numpy as np

import shoal

ap = argparse.ArgumentParser()
ap.add_argument("--iters", type=int, default=200000)
ap.add_argument("--repeats", type=int, default=7)
ap.add_argument("--md", help="also write the table to this Markdown file")
args = ap.parse_args()

me, n = shoal.my_pe(), shoal.n_pes()
peer = (me + 1) % n
word = shoal.zeros(1, np.int64)
local8 = np.zeros(1, np.int64)
MIB = 1 << 20
big = shoal.zeros(MIB // 8, np.int64)
src = np.ones(MIB // 8, np.int64)
p, get, fadd, barrier, put = shoal.p, shoal.get, shoal.atomic_fetch_add, shoal.barrier_all, shoal.put


def py_loop(op, iters):
    if op == "p":
        t0 = time.perf_counter()
        for i in range(iters):
            p(word, i, peer)
    elif op == "get":
        t0 = time.perf_counter()
        for _ in range(iters):
            get(local8, word, peer)
    elif op == "fetch_add":
        t0 = time.perf_counter()
        for _ in range(iters):
            fadd(word, 1, peer)
    elif op == "barrier_all":
        t0 = time.perf_counter()
        for _ in range(iters):
            barrier()
    else:
        t0 = time.perf_counter()
        for _ in range(iters):
            put(big, src, peer)
    return (time.perf_counter() - t0) / iters


ops = [("p", "8-byte p", args.iters, word, local8),
       ("get", "8-byte get", args.iters, word, local8),
       ("fetch_add", "fetch-add (int64)", args.iters, word, local8),
       ("barrier_all", "barrier_all", max(args.iters // 20, 100), word, local8),
       ("put", "1 MiB put", max(args.iters // 100, 50), big, src)]
rows = []
for op, label, iters, remote, local in ops:
    cs, ps = [], []
    shoal._core._bench_c(op, max(iters // 10, 1), peer, remote, local)  # warm-up
    py_loop(op, max(iters // 10, 1))
    for _ in range(args.repeats):   # interleaved, so both see the same machine state
        barrier()
        cs.append(shoal._core._bench_c(op, iters, peer, remote, local))
        barrier()
        ps.append(py_loop(op, iters))
    rows.append((label, statistics.median(cs), statistics.median(ps)))
barrier()

if me == 0:
    lines = [f"Shoal from Python vs C, {n} PEs on one host, same job "
             f"(median of {args.repeats} interleaved runs; load average "
             f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)", "",
             "| call | C | Python | Python adds |", "|---|---|---|---|"]
    for label, c, py in rows:
        if label == "1 MiB put":
            lines.append(f"| {label} | {c * 1e6:.1f} µs ({MIB / c / 1e9:.2f} GB/s) | "
                         f"{py * 1e6:.1f} µs ({MIB / py / 1e9:.2f} GB/s) | "
                         f"{(py / c - 1) * 100:+.1f}% time |")
        else:
            lines.append(f"| {label} | {c * 1e6:.3f} µs | {py * 1e6:.3f} µs | "
                         f"{(py - c) * 1e6:+.3f} µs |")
    print("\n".join(lines))
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(lines) + "\n")
