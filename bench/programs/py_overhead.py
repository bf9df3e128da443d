"""Per-call cost of shoal from Python next to the same calls from C, in the
same job and process (shoal._core._bench_c runs the C loops).

    build/tools/shoalrun -n 2 /usr/bin/python3 bench/programs/py_overhead.py [--iters N] [--md FILE]

PE 0 and PE 1 target each other (shared memory); PE 0 prints a table of the
median over REPEATS runs of each loop: 8-byte p, 8-byte get, fetch-add,
barrier_all and 1 MiB put (with bandwidth). The Python numbers include the
Python `for` loop around the call.

--shmem4py adds a column for the same calls through shmem4py, built against
this libshoal and importable by the interpreter (it has no `p`: its 8-byte p
is a one-element put). This script does not build shmem4py; see
docs/python.md for how it was built.
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
ap.add_argument("--shmem4py", action="store_true",
                help="add a column for shmem4py on this libshoal (must be importable)")
args = ap.parse_args()

me, n = shoal.my_pe(), shoal.n_pes()
peer = (me + 1) % n
word = shoal.zeros(1, np.int64)
local8 = np.zeros(1, np.int64)
MIB = 1 << 20
big = shoal.zeros(MIB // 8, np.int64)
src = np.ones(MIB // 8, np.int64)
p, get, fadd, barrier, put = shoal.p, shoal.get, shoal.atomic_fetch_add, shoal.barrier_all, shoal.put
if args.shmem4py:
    from shmem4py import shmem
    s_word, s_big = shmem.zeros(1, np.int64), shmem.zeros(MIB // 8, np.int64)


def s4p_loop(op, iters):
    """The same loops through shmem4py."""
    s_put, s_get, s_fadd, s_bar = shmem.put, shmem.get, shmem.atomic_fetch_add, shmem.barrier_all
    t0 = time.perf_counter()
    if op == "p":
        for _ in range(iters):
            s_put(s_word, local8, peer)
    elif op == "get":
        for _ in range(iters):
            s_get(local8, s_word, peer)
    elif op == "fetch_add":
        for _ in range(iters):
            s_fadd(s_word, 1, peer)
    elif op == "barrier_all":
        for _ in range(iters):
            s_bar()
    else:
        for _ in range(iters):
            s_put(s_big, src, peer)
    return (time.perf_counter() - t0) / iters


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
    cs, ps, ss = [], [], []
    shoal._core._bench_c(op, max(iters // 10, 1), peer, remote, local)  # warm-up
    py_loop(op, max(iters // 10, 1))
    if args.shmem4py:
        s4p_loop(op, max(iters // 10, 1))
    for _ in range(args.repeats):   # interleaved, so all see the same machine state
        barrier()
        cs.append(shoal._core._bench_c(op, iters, peer, remote, local))
        barrier()
        ps.append(py_loop(op, iters))
        if args.shmem4py:
            barrier()
            ss.append(s4p_loop(op, iters))
    rows.append((label, statistics.median(cs), statistics.median(ps),
                 statistics.median(ss) if ss else None))
barrier()

if me == 0:
    lines = [f"Shoal from Python vs C, {n} PEs on one host, same job "
             f"(median of {args.repeats} interleaved runs; load average "
             f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)", "",
             "| call | C | Python | Python adds |" + (" shmem4py | shmem4py / shoal |"
                                                       if args.shmem4py else ""),
             "|---|---|---|---|" + ("---|---|" if args.shmem4py else "")]

    def cost(t, label):
        if label == "1 MiB put":
            return f"{t * 1e6:.1f} µs ({MIB / t / 1e9:.2f} GB/s)"
        return f"{t * 1e6:.3f} µs"
    for label, c, py, s4 in rows:
        adds = (f"{(py / c - 1) * 100:+.1f}% time" if label == "1 MiB put"
                else f"{(py - c) * 1e6:+.3f} µs")
        line = f"| {label} | {cost(c, label)} | {cost(py, label)} | {adds} |"
        if s4 is not None:
            line += f" {cost(s4, label)} | {s4 / py:.2f}x |"
        lines.append(line)
    print("\n".join(lines))
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(lines) + "\n")
