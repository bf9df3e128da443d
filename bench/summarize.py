#!/usr/bin/env python3
"""summarize.py: turns the raw outputs compare.sh collected into Markdown.

compare.sh leaves, under its work folder:
  bin/<side>/<prog>.build            "ok" or why the build failed
  raw/<side>/<prog>.np<N>.rep<R>.out the program's stdout (bench= lines)
  raw/<side>/<prog>.np<N>.rep<R>.err its stderr
  raw/<side>/<prog>.np<N>.rep<R>.rc  its exit status
  commands.txt, env.txt              what was run, and where

Each table cell is the median over the K runs of a side; a cell that has no
number says why (build failed, crashed, wrong result, not measured).  The
ratio is OSHMEM / Shoal, so above 1 means Shoal is faster.  Standard library
only, so it runs with any python3.
"""
import argparse
import os
import re
import signal
import statistics
import sys

PROGRAMS = ["lat_rma", "lat_amo", "pingpong", "bw_put", "lat_barrier", "hello"]
# The bench= name of each program's lines, in table order.
BENCHES = [("lat_rma", "lat_rma"), ("lat_amo", "lat_amo"), ("pingpong", "pingpong"),
           ("bw_put", "bw_put"), ("lat_barrier", "lat_barrier"), ("job_wall", "hello")]
TITLES = {
    "lat_rma": "RMA latency (µs per op; put and p include shmem_quiet)",
    "lat_amo": "Atomic latency (µs per op; non-fetching ops include shmem_quiet)",
    "pingpong": "Ping-pong, shmem_long_p + shmem_long_wait_until (µs, half round trip)",
    "bw_put": "Put bandwidth: window of shmem_putmem_nbi, then shmem_quiet (µs per message)",
    "lat_barrier": "Barrier latency (µs per call)",
    "job_wall": "Whole-job wall time of hello: launch, init, barrier, finalize, exit (ms)",
}
SIDE_NAMES = {"shoal": "Shoal", "oshmem": "OSHMEM"}
RUN_RE = re.compile(r"^(?P<prog>\w+)\.np(?P<npes>\d+)\.rep(?P<rep>\d+)\.rc$")


def parse_line(line):
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


class Side:
    """Everything one implementation produced."""

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
        bindir = os.path.join(work, "bin", name)
        for prog in PROGRAMS:
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
                m = re.search(r"reps=(\d+) iters=auto target_ms=(\S+)", line)
                if line.startswith("#") and m:
                    self.settings.add((m[1], m[2]))
                f = parse_line(line)
                if not f:
                    continue
                key = (f["bench"], f["op"], int(f["size"]), int(f["npes"]))
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
        runs = self.runs.get((prog, key[3]), [])
        if not runs:
            return "not run"
        if key in self.errors:
            return "wrong result"
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


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


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
    empty = Side(args.work, "none", selected=False)  # a side left out with --only
    shoal = sides.get("shoal", empty)
    osh = sides.get("oshmem", empty)

    out = []
    out.append("# Shoal vs Open MPI OSHMEM micro-benchmarks")
    out.append("")
    if args.quick:
        out.append("**Quick mode**: every program built and ran once at tiny sizes with few "
                   "iterations. This proves they work; the numbers are not timings.")
        out.append("")
    out.append("Produced by `bench/compare.sh`. Commands:")
    out.append("")
    out.append("```")
    out.extend(read(os.path.join(args.work, "commands.txt")).rstrip().splitlines())
    out.append("```")
    out.append("")
    out.append("```")
    out.extend(read(os.path.join(args.work, "env.txt")).rstrip().splitlines())
    out.append("```")
    out.append("")
    settings = set().union(*(side.settings for side in sides.values()))
    if not args.quick and len(settings) == 1:
        reps, target = settings.pop()
        out.append("Each program prints, per op, the median over %s timed rounds of the time "
                   "per operation (each round calibrated to about %s ms). Runs alternate "
                   "Shoal, OSHMEM, Shoal, OSHMEM, ... %d times; a cell is the median of those "
                   "%d runs. ratio = OSHMEM / Shoal: above 1 means Shoal is faster. PE 0 "
                   "measures against PE 1; 2 PEs unless the npes column says otherwise. The "
                   "machine is a shared 2-core VM, so differences under ~20%% are noise."
                   % (reps, target, args.k, args.k))
        out.append("")

    for bench, prog in BENCHES:
        keys = []
        for side in (shoal, osh):
            for key in side.order:
                if key[0] == bench and key not in keys:
                    keys.append(key)
        if not keys:
            keys_note = "no output from either side"
        scale = 1e-3 if bench == "job_wall" else 1.0
        unit = "ms" if bench == "job_wall" else "µs"
        out.append("## " + TITLES[bench])
        out.append("")
        head = ["op", "size", "npes", "Shoal " + unit, "OSHMEM " + unit, "ratio"]
        if bench == "bw_put":
            head += ["Shoal MB/s", "OSHMEM MB/s"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join("---" if i < 1 else "---:" for i in range(len(head))) + "|")
        if not keys:
            out.append("| " + " | ".join([keys_note] + [""] * (len(head) - 1)) + " |")
        for key in keys:
            a, b = shoal.median(key), osh.median(key)
            ratio = "%.2f" % (b / a) if a and b else "—"
            row = [key[1], str(key[2]), str(key[3]),
                   shoal.cell(key, prog, scale), osh.cell(key, prog, scale), ratio]
            if bench == "bw_put":
                row += ["%.0f" % (key[2] / a) if a else "—",
                        "%.0f" % (key[2] / b) if b else "—"]
            out.append("| " + " | ".join(row) + " |")
        out.append("")

    # One entry per distinct problem; the runs it happened in are listed.
    problems, seen = [], {}
    for side in sides.values():
        for prog in PROGRAMS:
            if side.build[prog] != "ok":
                problems.append(["- %s %s: %s" % (SIDE_NAMES[side.name], prog,
                                                  side.build[prog])])
        for (prog, npes), runs in sorted(side.runs.items()):
            for rep, rc, err in runs:
                checks = [l for l in err.splitlines() if l.startswith("bench: ")]
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
    problems = text
    if problems:
        out.append("## Failures and wrong results")
        out.append("")
        out.extend(problems)
        out.append("")

    with open(args.out, "w") as f:
        f.write("\n".join(out))
    raw_path = re.sub(r"\.md$", "", args.out) + ".raw.txt"
    with open(raw_path, "w") as f:
        for side in sides.values():
            f.write("\n".join(side.raw) + "\n")

    # Shoal failing is the caller's business (CI runs the quick mode).
    bad = [p for p in problems if p.startswith("- Shoal")]
    if bad:
        sys.stderr.write("Shoal problems:\n" + "\n".join(bad) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
