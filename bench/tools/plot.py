#!/usr/bin/env python3
"""plot.py: PNG plots of a compare.sh run, drawn by gnuplot.

Reads the tagged raw file summarize.py wrote (so an old run can be plotted
again) and writes, next to it:
  <prefix>-latency.png      put + quiet and get latency vs size, heap and
                            globals, Shoal and OSHMEM, with the memcpy limit
  <prefix>-bandwidth.png    nbi put and get bandwidth vs size, with memcpy's
  <prefix>-collectives.png  each collective vs size at 2 PEs: Shoal's team
                            and active-set forms, OSHMEM's active-set form,
                            and the limit; -collectives-np<N>.png for other
                            PE counts (no limit there)
Every point is the median over the run's K runs, as in the tables.
Standard library only; needs gnuplot on the PATH.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import COLL_OPS, COLLECTIVES, Limits, Side, sides_from_raw  # noqa: E402

SHOAL, OSHMEM, LIMIT = "#1f6fb4", "#d9541e", "#444444"
STYLE = {  # (colour, dash type, point type)
    ("shoal", "heap"): (SHOAL, 1, 7), ("shoal", "global"): (SHOAL, 2, 5),
    ("oshmem", "heap"): (OSHMEM, 1, 9), ("oshmem", "global"): (OSHMEM, 2, 11),
    ("shoal", "team"): (SHOAL, 1, 7), ("shoal", "active"): (SHOAL, 2, 5),
    ("oshmem", "active"): (OSHMEM, 1, 9), ("limit", ""): (LIMIT, 3, 0),
}
NAMES = {"shoal": "Shoal", "oshmem": "OSHMEM"}


class Plot:
    """One PNG of one or more panels; series are written as data files."""

    def __init__(self, tmp, path, rows, cols, title):
        self.tmp = tempfile.mkdtemp(dir=tmp)  # each plot's data files apart
        self.path, self.rows, self.cols = path, rows, cols
        self.title = title
        self.panels = []
        self.nfiles = 0

    def panel(self, title, ylabel, logy=True):
        self.panels.append({"title": title, "ylabel": ylabel, "logy": logy, "series": []})

    def series(self, label, style, points):
        points = sorted(p for p in points if p[1] is not None and p[1] > 0)
        if not points:
            return
        self.nfiles += 1
        fname = os.path.join(self.tmp, "s%d.dat" % self.nfiles)
        with open(fname, "w") as f:
            for x, y in points:
                f.write("%d %.6g\n" % (x, y))
        self.panels[-1]["series"].append((fname, label, style, points))

    def xtics(self):
        """Tics at powers of 4 (16 when the range is wide), named in B, KiB, MiB."""
        xs = [x for p in self.panels for _, _, _, pts in p["series"] for x, _ in pts]
        if not xs:
            return "set xtics"
        lo, hi = min(xs), max(xs)
        step = 16 if hi / max(lo, 1) > 1 << 16 else 4
        tics, x = [], 1
        while x <= hi:
            if x >= lo:
                tics.append('"%s" %d' % (size_label(x), x))
            x *= step
        return "set xtics (%s)" % ", ".join(tics)

    def script(self, terminal):
        if not any(p["series"] for p in self.panels):
            return None
        w, h = 560 * self.cols, 420 * self.rows + 40
        s = ["set terminal %s noenhanced size %d,%d font ',10'" % (terminal, w, h),
             "set output '%s'" % self.path,
             "set multiplot layout %d,%d title '%s' font ',12'" % (self.rows, self.cols,
                                                                  self.title),
             "set logscale x 2", "set grid", "set key top left opaque font ',9'",
             "set xlabel 'bytes'", self.xtics()]
        for p in self.panels:
            s.append("set title '%s'" % p["title"])
            s.append("set ylabel '%s'" % p["ylabel"])
            s.append("set logscale y" if p["logy"] else "unset logscale y")
            plots = []
            for fname, label, (colour, dash, pt), _ in p["series"]:
                how = "lines" if pt == 0 else "linespoints pt %d ps 0.8" % pt
                plots.append("'%s' using 1:2 with %s lw 2 dt %d lc rgb '%s' title '%s'" % (
                    fname, how, dash, colour, label))
            s.append("plot " + ", \\\n     ".join(plots) if plots else
                     "set key off; plot 1/0 title ''")
        s.append("unset multiplot")
        return "\n".join(s) + "\n"


def size_label(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def curve(side, bench, op, mem, npes, scale=None):
    """[(size, value)] of one op; scale(size, usec) turns µs into another unit."""
    pts = []
    for key in side.order:
        if key[0] == bench and key[1] == op and key[2] == mem and key[4] == npes:
            v = side.median(key)
            if v is not None:
                pts.append((key[3], scale(key[3], v) if scale else v))
    return pts


def latency_plot(plot, sides, lim):
    for op, limit_op, title in (("putmem_quiet", "memcpy_fence", "shmem_putmem + shmem_quiet"),
                                ("getmem", "memcpy", "shmem_getmem")):
        plot.panel(title, "µs per op")
        for side in ("shoal", "oshmem"):
            for mem in ("heap", "global"):
                if side in sides:
                    plot.series("%s %s" % (NAMES[side], mem), STYLE[(side, mem)],
                                curve(sides[side], "lat_rma", op, mem, 2))
        sizes = sorted({k[3] for s in sides.values() for k in s.order
                        if k[0] == "lat_rma" and k[1] == op})
        plot.series("limit: %s" % limit_op.replace("_", " + "), STYLE[("limit", "")],
                    [(n, lim.get(limit_op, n)) for n in sizes])


def bandwidth_plot(plot, sides, lim):
    mbps = lambda size, usec: size / usec  # bytes per µs is MB/s
    for op, title in (("putmem_nbi", "window of shmem_putmem_nbi + shmem_quiet"),
                      ("getmem_nbi", "window of shmem_getmem_nbi + shmem_quiet")):
        plot.panel(title, "MB/s (10^6 B/s)")
        for side in ("shoal", "oshmem"):
            if side in sides:
                plot.series(NAMES[side], STYLE[(side, "heap")],
                            curve(sides[side], "bw_rma", op, "heap", 2, mbps))
        sizes = sorted({k[3] for s in sides.values() for k in s.order
                        if k[0] == "bw_rma" and k[1] == op})
        plot.series("limit: memcpy", STYLE[("limit", "")],
                    [(n, n / lim.get("memcpy", n)) for n in sizes if lim.get("memcpy", n)])


def coll_plot(plot, sides, lim, npes):
    names = {v: k for k, v in COLL_OPS.items()}
    for coll in COLLECTIVES:
        plot.panel(coll, "µs per call")
        for side, form in (("shoal", "team"), ("shoal", "active"), ("oshmem", "active")):
            if side in sides:
                label = "%s %s" % (NAMES[side], "team" if form == "team" else "active-set")
                plot.series(label, STYLE[(side, form)],
                            curve(sides[side], "lat_coll", names[(coll, form)], "", npes))
        if npes == 2:
            sizes = sorted({k[3] for s in sides.values() for k in s.order
                            if k[0] == "lat_coll" and COLL_OPS.get(k[1], ("",))[0] == coll})
            key = lambda n: ("lat_coll", names[(coll, "active")], "", n, npes)
            plot.series("limit", STYLE[("limit", "")],
                        [(n, lim.for_key(key(n))) for n in sizes])


def terminal():
    out = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" if "pngcairo" in out.stdout + out.stderr else "png"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True, help="the .raw.txt summarize.py wrote")
    ap.add_argument("--prefix", required=True, help="output path without -latency.png")
    args = ap.parse_args()
    if not shutil.which("gnuplot"):
        sys.stderr.write("plot.py: gnuplot not found\n")
        return 1

    sides = sides_from_raw(args.raw)
    lim = Limits(sides.get("limit", Side(None, "limit")))
    data = {k: v for k, v in sides.items() if k in ("shoal", "oshmem")}
    coll_npes = sorted({k[4] for s in data.values() for k in s.order if k[0] == "lat_coll"})
    term = terminal()
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        p = Plot(tmp, args.prefix + "-latency.png", 1, 2, "RMA latency, 2 PEs (log-log)")
        latency_plot(p, data, lim)
        plots.append(p)
        p = Plot(tmp, args.prefix + "-bandwidth.png", 1, 2, "Bandwidth, 2 PEs")
        bandwidth_plot(p, data, lim)
        plots.append(p)
        for npes in coll_npes:
            suffix = "" if npes == 2 else "-np%d" % npes
            p = Plot(tmp, args.prefix + "-collectives%s.png" % suffix, 2, 3,
                     "Collectives, %d PEs (size = bytes each PE contributes; log-log)" % npes)
            coll_plot(p, data, lim, npes)
            plots.append(p)
        for p in plots:
            script = p.script(term)
            if script is None:
                continue
            gp = os.path.join(tmp, "plot.gp")
            with open(gp, "w") as f:
                f.write(script)
            r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
            if r.returncode != 0:
                sys.stderr.write("plot.py: gnuplot failed on %s:\n%s" % (p.path, r.stderr))
                status = 1
            else:
                print("wrote %s" % p.path)
    return status


if __name__ == "__main__":
    sys.exit(main())
