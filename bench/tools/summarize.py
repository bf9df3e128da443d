#!/usr/bin/env python3
"""summarize.py: turns the raw outputs compare.sh collected into Markdown.

compare.sh leaves, under its work folder:
  bin/<side>/<prog>.build            "ok" or why the build failed
  raw/<side>/<prog>.np<N>.rep<R>.out the program's stdout (bench= lines)
  raw/<side>/<prog>.np<N>.rep<R>.err its stderr
  raw/<side>/<prog>.np<N>.rep<R>.rc  its exit status
  commands.txt, env.txt              what was run, and where
Sides are shoal, oshmem and limit (the probes of the machine's limits).

Each table cell is the median over the K runs of a side; a cell that has no
number says why (build failed, crashed, wrong result, the API lacks the
call, not measured).  ratio is OSHMEM / Shoal, so above 1 means Shoal is
faster; limit is Shoal / the machine's limit for that op (LIMIT_NOTES), so
1.0x is the floor.  A Targets section checks the goals of the benchmarks
issue against the same medians.  Standard library only, so it runs with any
python3; plot.py reuses the parsing.
"""
import argparse
import os
import re
import signal
import statistics
import sys

PROGRAMS = ["lat_rma", "lat_amo", "pingpong", "bw_rma", "lat_barrier", "lat_coll", "hello"]
LIMIT_PROGRAMS = ["limit_line", "limit_memcpy"]
# The bench= name of each program's lines, in table order.
BENCHES = [("lat_rma", "lat_rma"), ("lat_amo", "lat_amo"), ("pingpong", "pingpong"),
           ("bw_rma", "bw_rma"), ("lat_barrier", "lat_barrier"), ("lat_coll", "lat_coll"),
           ("job_wall", "hello")]
TITLES = {
    "lat_rma": "RMA latency (µs per op; put and p include shmem_quiet)",
    "lat_amo": "Atomic latency (µs per op; non-fetching ops include shmem_quiet)",
    "pingpong": "Ping-pong: p + wait_until, put_signal + signal_wait_until (µs, half round trip)",
    "bw_rma": "Bandwidth: window of nbi puts or gets, then shmem_quiet (µs per message)",
    "lat_barrier": "Barrier latency (µs per call)",
    "lat_coll": "Collectives over all PEs (µs per call, slowest PE; size = bytes each PE "
                "contributes)",
    "job_wall": "Whole-job wall time of hello: launch, init, barrier, finalize, exit (ms)",
}
LIMIT_NOTES = {
    "lat_rma": "puts: memcpy of the size then a fence; gets: memcpy of the size",
    "lat_amo": "one fetch-add on a cache line the CPU holds (atomic_local)",
    "pingpong": "one-way cache-line transfer between pinned processes",
    "bw_rma": "memcpy of the size",
    "lat_barrier": "one-way cache-line transfer (2 PEs only)",
    "lat_coll": "one-way cache-line transfer + memcpy of the bytes each PE must write "
                "(2 PEs only)",
}
SIDE_NAMES = {"shoal": "Shoal", "oshmem": "OSHMEM", "limit": "limit probe"}
RUN_RE = re.compile(r"^(?P<prog>\w+)\.np(?P<npes>\d+)\.rep(?P<rep>\d+)\.rc$")

# lat_coll op -> (collective, form)
COLL_OPS = {
    "broadcast64": ("broadcast", "active"), "broadcastmem": ("broadcast", "team"),
    "long_sum_to_all": ("long sum", "active"), "long_sum_reduce": ("long sum", "team"),
    "double_sum_to_all": ("double sum", "active"), "double_sum_reduce": ("double sum", "team"),
    "fcollect64": ("fcollect", "active"), "fcollectmem": ("fcollect", "team"),
    "collect64": ("collect", "active"), "collectmem": ("collect", "team"),
    "alltoall64": ("alltoall", "active"), "alltoallmem": ("alltoall", "team"),
}
COLLECTIVES = ["broadcast", "long sum", "double sum", "fcollect", "collect", "alltoall"]


def parse_line(line):
    """The fields of a bench= line as a dict, or None."""
    if not line.startswith("bench="):
        return None
    fields = {}
    for tok in line.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            fields[k] = v
    if not {"bench", "op", "size", "npes"} <= fields.keys():
        return None
    return fields


def key_of(f):
    return (f["bench"], f["op"], f.get("mem", ""), int(f["size"]), int(f["npes"]))


def describe_rc(rc):
    if rc in (124, 137):
        return "timed out"
    if rc > 128:
        try:
            return "crashed (%s)" % signal.Signals(rc - 128).name
        except ValueError:
            pass
    return "failed (exit %d)" % rc


def fmt_us(v):
    if v < 1:
        return "%.4f" % v
    if v < 100:
        return "%.3f" % v
    return "%.1f" % v


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


class Side:
    """Everything one implementation (or the limit probes) produced."""

    def __init__(self, work, name, selected=True):
        self.name = name
        self.selected = selected
        self.build = {}
        self.runs = {}      # (prog, npes) -> [(rep, rc, stderr text)]
        self.values = {}    # key -> [usec]
        self.errors = {}    # key -> set of error words
        self.order = []     # keys in order of first appearance
        self.raw = []       # tagged lines for the raw file
        self.settings = set()  # (reps, target_ms) from the programs' # lines
        self.spec = None    # the OpenSHMEM version its shmem.h announces
        if work is None:
            return
        bindir = os.path.join(work, "bin", name)
        for prog in (LIMIT_PROGRAMS if name == "limit" else PROGRAMS):
            path = os.path.join(bindir, prog + ".build")
            self.build[prog] = read(path).strip() or "not built"
        rawdir = os.path.join(work, "raw", name)
        names = sorted(os.listdir(rawdir)) if os.path.isdir(rawdir) else []
        runs = []
        for fname in names:
            m = RUN_RE.match(fname)
            if m:
                runs.append((int(m["rep"]), m["prog"], int(m["npes"]), fname[:-3]))
        for rep, prog, npes, base in sorted(runs):
            rc = int(read(os.path.join(rawdir, base + ".rc")).strip() or "255")
            err = read(os.path.join(rawdir, base + ".err"))
            self.runs.setdefault((prog, npes), []).append((rep, rc, err))
            for line in read(os.path.join(rawdir, base + ".out")).splitlines():
                self.raw.append("side=%s rep=%d rc=%d %s" % (name, rep, rc, line))
                self.add_line(line)

    def add_line(self, line):
        m = re.search(r"reps=(\d+) iters=auto target_ms=(\S+)", line)
        if line.startswith("#") and m:
            self.settings.add((m[1], m[2]))
        m = re.search(r" spec=(\d+\.\d+)", line)
        if line.startswith("#") and m:
            self.spec = m[1]
        f = parse_line(line)
        if not f:
            return
        key = key_of(f)
        if key not in self.values:
            self.values[key] = []
            self.order.append(key)
        if "usec" in f:
            self.values[key].append(float(f["usec"]))
        if "error" in f:
            self.errors.setdefault(key, set()).add(f["error"])

    def median(self, key):
        vals = self.values.get(key) or []
        return statistics.median(vals) if vals and key not in self.errors else None

    def cell(self, key, prog, scale=1.0):
        """The text for one table cell: a median, or why there is none."""
        if not self.selected:
            return "not run"
        if self.build.get(prog) != "ok":
            return "not built"  # the failures section says why
        runs = self.runs.get((prog, key[4]), [])
        if not runs:
            return "not run"
        errs = self.errors.get(key, set())
        if "wrong_result" in errs:
            return "wrong result"
        if "unsupported" in errs:
            return "lacks it (%s API)" % self.spec if self.spec else "lacks it"
        vals = self.values.get(key) or []
        failed = [rc for _, rc, _ in runs if rc != 0]
        if vals:
            text = fmt_us(statistics.median(vals) * scale)
            if len(vals) < len(runs):
                text += " (%d/%d runs)" % (len(vals), len(runs))
            return text
        if failed and len(failed) == len(runs):
            return describe_rc(failed[0])
        return "not measured"


def sides_from_raw(path):
    """Sides rebuilt from a raw file alone (for plot.py): values only."""
    sides = {}
    for line in read(path).splitlines():
        m = re.match(r"side=(\w+) rep=(\d+) rc=(-?\d+) (.*)$", line)
        if not m:
            continue
        side = sides.setdefault(m[1], Side(None, m[1]))
        side.add_line(m[4])
    return sides


class Limits:
    """The machine's limits, from the limit probes' medians."""

    def __init__(self, side):
        self.side = side

    def get(self, op, size):
        return self.side.median(("limit", op, "", size, 1 if op.startswith(("memcpy",
                                                                              "atomic")) else 2))

    def for_key(self, key):
        """(µs, what) the op of key cannot beat on this machine, or None."""
        bench, op, _mem, size, npes = key
        line = self.get("line_oneway_pinned", 64)
        if bench == "lat_rma":
            fenced = op.startswith(("put", "long_p"))
            return self.get("memcpy_fence" if fenced else "memcpy", size)
        if bench == "bw_rma":
            return self.get("memcpy", size)
        if bench == "lat_amo":
            return self.get("atomic_local", 8)
        if bench == "pingpong":
            return line
        if bench == "lat_barrier":
            return line if npes == 2 else None
        if bench == "lat_coll" and npes == 2 and op in COLL_OPS:
            coll = COLL_OPS[op][0]
            written = size * npes if coll in ("fcollect", "collect", "alltoall") else size
            copy = self.get("memcpy", written)
            return line + copy if line is not None and copy is not None else None
        return None


def fmt_limit(value, limit):
    if value is None or not limit:
        return "—"
    return "%.2f×" % (value / limit)


def fmt_ratio(a, b):
    return "%.2f" % (b / a) if a and b else "—"


def table(out, head, rows, numeric_from=1):
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join("---" if i < numeric_from else "---:"
                              for i in range(len(head))) + "|")
    for row in rows:
        out.append("| " + " | ".join(row) + " |")
    out.append("")


def bench_keys(bench, sides):
    keys = []
    for side in sides:
        for key in side.order:
            if key[0] == bench and key not in keys:
                keys.append(key)
    return keys


def limits_section(out, lim, limit_side):
    out.append("## Machine limits (plain C probes, same run)")
    out.append("")
    out.append("`limit_line`: a cache line between two processes through a shared mapping "
               "(half the round trip), and one fetch-add on a line the CPU holds. "
               "`limit_memcpy`: one thread's libc memcpy from private memory into a shared "
               "mapping, alone and followed by a fence. Each limit column below divides "
               "Shoal's time by one of these.")
    out.append("")
    def cell(op, size):
        v = lim.get(op, size)
        if v is not None:
            return fmt_us(v)
        key = ("limit", op, "", size, 1 if op.startswith(("memcpy", "atomic")) else 2)
        errs = limit_side.errors.get(key, set())
        return ("wrong result" if "wrong_result" in errs else
                "not possible here (one CPU)" if "unsupported" in errs else "not measured")

    rows = []
    for op, size in (("line_oneway_pinned", 64), ("line_oneway_unpinned", 64),
                     ("atomic_local", 8)):
        rows.append([op, str(size), cell(op, size)])
    table(out, ["probe", "bytes", "µs"], rows)
    rows = []
    sizes = sorted({k[3] for k in limit_side.order if k[1] == "memcpy"})
    for size in sizes:
        if size & (size - 1) or (size.bit_length() - 1) % 2 and size != sizes[-1]:
            continue  # powers of 4 (the RMA sizes), and the largest
        t = lim.get("memcpy", size)
        rows.append([str(size), cell("memcpy", size), "%.0f" % (size / t) if t else "—",
                     cell("memcpy_fence", size)])
    table(out, ["bytes", "memcpy µs", "memcpy MB/s", "memcpy + fence µs"], rows)


def coll_section(out, shoal, osh, lim):
    keys = bench_keys("lat_coll", (shoal, osh))
    groups = sorted({(COLL_OPS[k[1]][0], k[3], k[4]) for k in keys if k[1] in COLL_OPS},
                    key=lambda g: (g[2], COLLECTIVES.index(g[0]), g[1]))
    names = {v: k for k, v in COLL_OPS.items()}
    rows = []
    for coll, size, npes in groups:
        kt = ("lat_coll", names[(coll, "team")], "", size, npes)
        ka = ("lat_coll", names[(coll, "active")], "", size, npes)
        best = shoal.median(kt) or shoal.median(ka)
        bkey = kt if shoal.median(kt) else ka
        rows.append([coll, str(size), str(npes), shoal.cell(kt, "lat_coll"),
                     shoal.cell(ka, "lat_coll"), osh.cell(kt, "lat_coll"),
                     osh.cell(ka, "lat_coll"), fmt_ratio(best, osh.median(ka)),
                     fmt_limit(best, lim.for_key(bkey))])
    out.append("## " + TITLES["lat_coll"])
    out.append("")
    out.append("team = the OpenSHMEM 1.5 form on SHMEM_TEAM_WORLD (shmem_broadcastmem, "
               "shmem_long_sum_reduce, ...); active-set = the 1.4 form with pSync "
               "(shmem_broadcast64, shmem_long_sum_to_all, ...). ratio = OSHMEM active-set / "
               "Shoal team form (Shoal's active-set form where it lacks the team form). "
               "limit: " + LIMIT_NOTES["lat_coll"] + ".")
    out.append("")
    if not rows:
        rows = [["no output from either side"] + [""] * 8]
    table(out, ["collective", "size", "npes", "Shoal team µs", "Shoal active-set µs",
                "OSHMEM team µs", "OSHMEM active-set µs", "ratio", "limit"], rows)


def bench_section(out, bench, prog, shoal, osh, lim):
    keys = bench_keys(bench, (shoal, osh))
    scale = 1e-3 if bench == "job_wall" else 1.0
    unit = "ms" if bench == "job_wall" else "µs"
    with_mem = any(k[2] for k in keys)
    out.append("## " + TITLES[bench])
    out.append("")
    if bench in LIMIT_NOTES:
        out.append("limit: " + LIMIT_NOTES[bench] + ".")
        out.append("")
    head = ["op"] + (["mem"] if with_mem else []) + ["size", "npes", "Shoal " + unit,
                                                     "OSHMEM " + unit, "ratio"]
    if bench == "bw_rma":
        head += ["Shoal MB/s", "OSHMEM MB/s"]
    if bench in LIMIT_NOTES:
        head += ["limit"]
    rows = []
    for key in keys:
        a, b = shoal.median(key), osh.median(key)
        row = [key[1]] + ([key[2]] if with_mem else []) + [
            str(key[3]), str(key[4]), shoal.cell(key, prog, scale), osh.cell(key, prog, scale),
            fmt_ratio(a, b)]
        if bench == "bw_rma":
            row += ["%.0f" % (key[3] / a) if a else "—", "%.0f" % (key[3] / b) if b else "—"]
        if bench in LIMIT_NOTES:
            row += [fmt_limit(a, lim.for_key(key))]
        rows.append(row)
    if not rows:
        rows = [["no output from either side"] + [""] * (len(head) - 1)]
    table(out, head, rows)


def targets_section(out, shoal, osh, lim):
    """The goals of the benchmarks issue, each checked against this run."""
    res = []

    def add(name, ok, detail):
        res.append((name, "met" if ok else ("not met" if ok is not None else "no data"),
                    detail))

    def m(side, bench, op, mem, size, npes=2):
        return side.median((bench, op, mem, size, npes))

    # The 8-byte put and get are shmem_long_p + quiet and shmem_long_g (the
    # putmem/getmem sweeps go by powers of 4 and skip 8).
    small = [("lat_rma", "long_p_quiet", "put+quiet (long_p)"),
             ("lat_rma", "long_g", "get (long_g)"), ("lat_amo", "fetch_add", "fetch-add")]
    for bench, op, label in small:
        s, o = m(shoal, bench, op, "heap", 8), m(osh, bench, op, "heap", 8)
        limit = lim.for_key((bench, op, "heap", 8, 2))
        ok = None if s is None else (o is None or s <= o) and limit is not None and \
            s <= 1.5 * limit
        add("8 B %s on heap: no slower than OSHMEM, within 1.5× of the limit" % label, ok,
            "Shoal %s µs, OSHMEM %s µs, limit %s µs (%s)" % (
                fmt_us(s) if s else "—", fmt_us(o) if o else "—",
                fmt_us(limit) if limit else "—", fmt_limit(s, limit)))
    for bench, op, label in small:
        h, g = m(shoal, bench, op, "heap", 8), m(shoal, bench, op, "global", 8)
        ok = None if h is None or g is None else g <= 1.2 * h
        og, oh = m(osh, bench, op, "global", 8), m(osh, bench, op, "heap", 8)
        add("8 B %s on globals as fast as on heap (within 20%% noise)" % label, ok,
            "Shoal global %s µs, heap %s µs; OSHMEM global %s µs, heap %s µs" % (
                fmt_us(g) if g else "—", fmt_us(h) if h else "—",
                fmt_us(og) if og else "—", fmt_us(oh) if oh else "—"))
    line = lim.get("line_oneway_pinned", 64)
    for mem in ("heap", "global"):
        s = m(shoal, "pingpong", "p_wait_until", mem, 8)
        ok = None if s is None or line is None else s <= 2 * line
        add("p/wait_until ping-pong on %s within 2× of the cache-line round trip" % mem, ok,
            "Shoal %s µs half round trip, line one way %s µs (%s)" % (
                fmt_us(s) if s else "—", fmt_us(line) if line else "—", fmt_limit(s, line)))
    for npes, factor in ((2, 3.0), (4, 1.0), (8, 1.0)):
        s, o = m(shoal, "lat_barrier", "barrier_all", "", 0, npes), \
            m(osh, "lat_barrier", "barrier_all", "", 0, npes)
        ok = None if s is None or o is None else o / s >= factor and (factor > 1 or o > s)
        add("barrier_all at %d PEs: %s than OSHMEM" % (
            npes, "at least 3× faster" if factor > 1 else "faster"), ok,
            "Shoal %s µs, OSHMEM %s µs, ratio %s" % (fmt_us(s) if s else "—",
                                                     fmt_us(o) if o else "—", fmt_ratio(s, o)))
    for op, label in (("putmem_nbi", "put"), ("getmem_nbi", "get")):
        worst, detail = None, []
        for key in sorted(k for k in shoal.order if k[0] == "bw_rma" and k[1] == op
                          and k[3] >= 65536):
            s, limit = shoal.median(key), lim.for_key(key)
            if s and limit:
                frac = limit / s
                worst = frac if worst is None else min(worst, frac)
                detail.append("%s: %.0f%%" % (size_name(key[3]), 100 * frac))
        add("%s bandwidth from 64 KiB up: at least 90%% of memcpy" % label,
            None if worst is None else worst >= 0.9, ", ".join(detail) or "—")
    s, o = m(shoal, "job_wall", "hello", "", 0, 4), m(osh, "job_wall", "hello", "", 0, 4)
    add("whole-job wall time at 4 PEs: at least 10× faster than OSHMEM",
        None if s is None or o is None else o / s >= 10,
        "Shoal %.1f ms, OSHMEM %.1f ms, ratio %s" % ((s or 0) / 1e3, (o or 0) / 1e3,
                                                      fmt_ratio(s, o)))
    slower, compared, missing = [], 0, []
    names = {v: k for k, v in COLL_OPS.items()}
    for key in bench_keys("lat_coll", (shoal, osh)):
        if key[1] not in COLL_OPS or COLL_OPS[key[1]][1] != "active":
            continue
        coll = COLL_OPS[key[1]][0]
        o = osh.median(key)
        kt = ("lat_coll", names[(coll, "team")]) + key[2:]
        s = shoal.median(kt) or shoal.median(key)
        if o is None:
            continue
        if s is None:
            missing.append("%s %s np%d" % (coll, size_name(key[3]), key[4]))
            continue
        compared += 1
        if s >= o:
            slower.append("%s %s np%d (%.2f)" % (coll, size_name(key[3]), key[4], o / s))
    ok = None if compared == 0 else not slower and not missing
    add("every collective at every size faster than OSHMEM's active-set form", ok,
        "%d compared; %s%s" % (compared,
                               "slower: " + ", ".join(slower) if slower else "none slower",
                               "; Shoal has no number for " + ", ".join(missing)
                               if missing else ""))
    out.append("## Targets (benchmarks issue), checked on this run")
    out.append("")
    table(out, ["target", "status", "this run"], [[a, b, c] for a, b, c in res], numeric_from=3)


def size_name(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def problems_section(sides):
    """One entry per distinct problem; the runs it happened in are listed."""
    problems, seen = [], {}
    for side in sides.values():
        for prog, status in side.build.items():
            if status != "ok":
                problems.append(["- %s %s: %s" % (SIDE_NAMES[side.name], prog, status)])
        for (prog, npes), runs in sorted(side.runs.items()):
            for rep, rc, err in runs:
                checks = [l for l in err.splitlines() if l.startswith(("bench: ", "limit_"))]
                if rc == 0 and not checks:
                    continue
                what = describe_rc(rc) if rc else "exit 0"
                lines = checks or [l for l in err.splitlines() if l.strip()][-4:]
                detail = tuple("  - `%s`" % l.strip()[:200] for l in lines[:6])
                ident = (side.name, prog, npes, what, detail)
                if ident not in seen:
                    seen[ident] = []
                    problems.append(ident)
                seen[ident].append(rep)
    text = []
    for p in problems:
        if isinstance(p, list):
            text.extend(p)
            continue
        name, prog, npes, what, detail = p
        reps = seen[p]
        text.append("- %s %s at %d PEs, %s %s: %s" %
                    (SIDE_NAMES[name], prog, npes, "run" if len(reps) == 1 else "runs",
                     ", ".join(map(str, reps)), what))
        text.extend(detail)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--k", type=int, required=True)
    ap.add_argument("--sides", default="shoal oshmem")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()

    sides = {name: Side(args.work, name) for name in ("shoal", "oshmem")
             if name in args.sides.split()}
    limit_side = Side(args.work, "limit")
    empty = Side(None, "none", selected=False)  # a side left out with --only
    shoal = sides.get("shoal", empty)
    osh = sides.get("oshmem", empty)
    lim = Limits(limit_side)

    out = ["# Shoal vs Open MPI OSHMEM micro-benchmarks", ""]
    if args.quick:
        out.append("**Quick mode**: every program built and ran once at tiny sizes with few "
                   "iterations. This proves they work; the numbers are not timings.")
        out.append("")
    out.append("Produced by `bench/drivers/compare.sh`. Commands:")
    out += ["", "```"] + read(os.path.join(args.work, "commands.txt")).rstrip().splitlines()
    out += ["```", "", "```"] + read(os.path.join(args.work, "env.txt")).rstrip().splitlines()
    out += ["```", ""]
    settings = set().union(*(side.settings for side in sides.values()))
    if not args.quick and len(settings) == 1:
        reps, target = settings.pop()
        out.append("Each program prints, per op, the median over %s timed rounds of the time "
                   "per operation (each round calibrated to about %s ms). Each of the %d "
                   "rounds of this script runs the limit probes, then every program under "
                   "Shoal and then under OSHMEM; a cell is the median of those %d runs. "
                   "ratio = OSHMEM / Shoal: above 1 means Shoal is faster. limit = Shoal / the "
                   "machine's limit for the op: 1.00× is the floor. PE 0 measures against PE "
                   "1; 2 PEs unless the npes column says otherwise. The machine is a shared "
                   "2-core VM (see the load above), so differences under ~20%% are noise."
                   % (reps, target, args.k, args.k))
        out.append("")

    if not args.quick:
        targets_section(out, shoal, osh, lim)
    limits_section(out, lim, limit_side)
    for bench, prog in BENCHES:
        if bench == "lat_coll":
            coll_section(out, shoal, osh, lim)
        else:
            bench_section(out, bench, prog, shoal, osh, lim)

    all_sides = dict(sides, limit=limit_side)
    problems = problems_section(all_sides)
    if problems:
        out += ["## Failures and wrong results", ""] + problems + [""]

    with open(args.out, "w") as f:
        f.write("\n".join(out))
    raw_path = re.sub(r"\.md$", "", args.out) + ".raw.txt"
    with open(raw_path, "w") as f:
        for side in all_sides.values():
            if side.raw:
                f.write("\n".join(side.raw) + "\n")

    # Shoal (or a limit probe) failing is the caller's business (CI runs the quick mode).
    bad = [p for p in problems if p.startswith(("- Shoal", "- limit"))]
    if bad:
        sys.stderr.write("Shoal or limit probe problems:\n" + "\n".join(bad) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
