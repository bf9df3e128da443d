#!/usr/bin/env python3
"""Checks what trace_prog left behind (the numbers mirror trace_prog.c).

usage: check_trace.py trace DIR NPES [HOSTS]  trace.json in DIR (HOSTS: pretend hosts,
                                               PE p on host p % HOSTS)
       check_trace.py hang DIR NPES       trace.json merged after a hang (trace_hang_prog.c)
       check_trace.py profile CSV NPES OUT  the CSV and PE 0's printed table
"""
import csv
import json
import os
import sys

NPUT, PUT_BYTES = 10, 64
NGET, GET_BYTES = 5, 32
NAMO, AMO_BYTES = 4, 8
NSIG, SIG_BYTES = 3, 16
HIDDEN_BYTES = 1000
NBARRIER = 2 + NSIG
NALLOC = 2
NCOLL = NBARRIER + 2  # + shmem_team_split_strided and shmem_team_sync
# shmem_quiet and shmem_fence: traced where they reach the network (on one
# host each is a fence instruction, kept free of tracing)
HOSTS = int(os.environ.get("SHOAL_TEST_HOSTS", "1"))
NORDER = 1 if HOSTS > 1 else 0  # calls of each

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def check_contents(xs, npes, hosts):
    """Names, teams, symbols, user ranges and network events."""
    for pe in range(npes):
        mine = [e for e in xs if e["pid"] == pe]
        for e in mine:
            if e["name"] == "shmem_barrier_all" and (
                    e["args"].get("team") != "SHMEM_TEAM_WORLD"
                    or e["args"].get("team_npes") != npes):
                fail(f"PE {pe}: barrier without its team: {e}")
            if e["name"] in ("shmem_malloc", "shmem_free") and \
                    e["args"].get("team") != "SHMEM_TEAM_WORLD":
                fail(f"PE {pe}: {e['name']} without its team: {e}")
            if e["name"] == "shmem_team_split_strided" and \
                    e["args"].get("team") != "SHMEM_TEAM_WORLD":
                fail(f"PE {pe}: the split names no parent team: {e}")
            if e["name"] == "shmem_team_sync" and (
                    not e["args"].get("team", "").startswith("team ")
                    or e["args"].get("team_npes") != npes):
                fail(f"PE {pe}: team_sync on {e['args'].get('team')!r} of "
                     f"{e['args'].get('team_npes')} PEs, expected a split team of {npes}")
            if e["name"] == "shmem_signal_wait_until" and e["args"].get("addr") != "sig":
                fail(f"PE {pe}: the wait's address is {e['args'].get('addr')!r}, expected 'sig'")
            if e["name"] in ("shmem_long_atomic_fetch_add", "shmem_long_atomic_inc") and \
                    e["args"].get("addr") != "counter":
                fail(f"PE {pe}: {e['name']} at {e['args'].get('addr')!r}, expected 'counter'")
            if e["name"] == "shmem_putmem_signal" and \
                    e["args"].get("addr") != "sig":
                fail(f"PE {pe}: the put-with-signal names signal {e['args'].get('addr')!r}")
        ranges = {e["name"]: e for e in mine if e["cat"] == "user range"}
        if sorted(ranges) != ["compute", "step 1"]:
            fail(f"PE {pe}: user ranges {sorted(ranges)}, expected ['compute', 'step 1']")
            continue
        r = ranges["compute"]
        inside = [e for e in mine if e["name"].startswith("shmem_long_atomic")
                  and r["ts"] <= e["ts"] and e["ts"] + e["dur"] <= r["ts"] + r["dur"] + 0.001]
        if len(inside) != NAMO:
            fail(f"PE {pe}: {len(inside)} AMOs inside the range 'compute', expected {NAMO}")
        r = ranges["step 1"]
        inside = sorted(e["name"] for e in mine if e["cat"] == "quiet/fence"
                        and r["ts"] <= e["ts"] and e["ts"] + e["dur"] <= r["ts"] + r["dur"] + 0.001)
        if inside != (["shmem_fence", "shmem_quiet"] if NORDER else []):
            fail(f"PE {pe}: {inside} inside the range 'step 1' on {hosts} host(s)")
        net = [e for e in mine if e["cat"] == "network"]
        right = (pe + 1) % npes
        crosses = hosts > 1 and right % hosts != pe % hosts
        if crosses and not any(e["name"] == "net put" and e["args"]["peer"] == right
                               for e in net):
            fail(f"PE {pe}: no 'net put' event to PE {right} on another host")
        if not crosses and hosts == 1 and net:
            fail(f"PE {pe}: network events on one host: {net[:2]}")


def check_clocks(doc, npes, hosts):
    """Each PE's clock offset to PE 0's: measured (a round trip) for the PEs
    on other hosts than PE 0's, zero on PE 0's host."""
    offs = doc["otherData"].get("clock_offset_ns")
    rtts = doc["otherData"].get("clock_rtt_ns")
    if offs is None or rtts is None or len(offs) != npes or len(rtts) != npes:
        fail(f"no clock offsets per PE: {doc['otherData']}")
        return
    for pe in range(npes):
        other_host = hosts > 1 and pe % hosts != 0
        if other_host and not 0 < rtts[pe] < 10**9:
            fail(f"PE {pe}: clock round trip {rtts[pe]} ns; expected a measured one")
        if other_host and abs(offs[pe]) > rtts[pe]:
            # one clock on one machine: the estimate is within half a round trip
            fail(f"PE {pe}: offset {offs[pe]} ns beyond its round trip {rtts[pe]} ns")
        if not other_host and (offs[pe] != 0 or rtts[pe] != 0):
            fail(f"PE {pe}: offset {offs[pe]} / {rtts[pe]} ns on PE 0's host")
    print(f"clocks: offsets {offs} ns, round trips {rtts} ns")


def check_trace(tdir, npes, hosts=1):
    with open(f"{tdir}/trace.json") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}
    for pe in range(npes):
        if names.get(pe) != f"PE {pe}":
            fail(f"track {pe} is named {names.get(pe)!r}, expected 'PE {pe}'")
    if sorted(names) != list(range(npes)):
        fail(f"tracks {sorted(names)}, expected 0..{npes - 1}")
    expect = {  # routine: (calls, bytes each, peer offset or None)
        "shmem_putmem": (NPUT, PUT_BYTES, 1),
        "shmem_getmem": (NGET, GET_BYTES, 1),
        "shmem_long_atomic_fetch_add": (NAMO - 1, AMO_BYTES, 1),
        "shmem_long_atomic_inc": (1, AMO_BYTES, 1),
        "shmem_putmem_signal": (NSIG, SIG_BYTES, 1),
        "shmem_signal_wait_until": (NSIG, 0, None),
        "shmem_barrier_all": (NBARRIER, 0, None),
        "shmem_malloc": (1, 0, None),
        "shmem_free": (1, 0, None),
        "shmem_quiet": (NORDER, 0, None),
        "shmem_fence": (NORDER, 0, None),
        "shmem_team_split_strided": (1, 0, None),
        "shmem_team_sync": (1, 0, None),
    }
    # Network events and user ranges are checked by check_contents.
    xs = [e for e in events if e.get("ph") == "X"
          and e.get("cat") not in ("network", "user range")]
    for pe in range(npes):
        mine = [e for e in xs if e["pid"] == pe]
        right = (pe + 1) % npes
        for fn, (calls, nbytes, off) in expect.items():
            got = [e for e in mine if e["name"] == fn]
            if len(got) != calls:
                fail(f"PE {pe}: {len(got)} {fn} events, expected {calls}")
            for e in got:
                if e["args"]["bytes"] != nbytes:
                    fail(f"PE {pe}: {fn} with {e['args']['bytes']} bytes, expected {nbytes}")
                if off is not None and e["args"]["peer"] != right:
                    fail(f"PE {pe}: {fn} to PE {e['args']['peer']}, expected {right}")
        hidden = [e for e in mine if e["args"].get("bytes") == HIDDEN_BYTES]
        if hidden:
            fail(f"PE {pe}: {len(hidden)} events from the shmem_pcontrol(0) region")
        unknown = sorted({e["name"] for e in mine} - set(expect))
        if unknown:
            fail(f"PE {pe}: unexpected routines {unknown}")
        ts = [e["ts"] for e in mine]
        if ts != sorted(ts):
            fail(f"PE {pe}: timestamps are not monotonic on its track")
        for e in mine:
            if e["dur"] < 0 or e["ts"] < 0:
                fail(f"PE {pe}: negative time in {e}")
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f"}
    if set(starts) != set(ends):
        fail(f"flow ids without both ends: {set(starts) ^ set(ends)}")
    per_pe = [0] * npes
    for fid, s in starts.items():
        f = ends.get(fid)
        if f is None:
            continue
        if f["pid"] != (s["pid"] + 1) % npes:
            fail(f"flow {fid} from PE {s['pid']} to PE {f['pid']}, expected its right neighbour")
        per_pe[s["pid"]] += 1
        # Each end lies inside a slice of the right kind on its track.
        src = [e for e in xs if e["pid"] == s["pid"] and e["name"] == "shmem_putmem_signal"
               and e["ts"] <= s["ts"] <= e["ts"] + e["dur"]]
        dst = [e for e in xs if e["pid"] == f["pid"] and e["name"] == "shmem_signal_wait_until"
               and e["ts"] <= f["ts"] <= e["ts"] + e["dur"]]
        if not src or not dst:
            fail(f"flow {fid} does not join a put-with-signal to a wait: {s} {f}")
    for pe in range(npes):
        if per_pe[pe] < NSIG:
            fail(f"PE {pe}: {per_pe[pe]} flows from its put-with-signals, expected {NSIG}")
    dropped = doc["otherData"]["dropped"]
    if dropped != [0] * npes:
        fail(f"dropped records {dropped}")
    check_contents([e for e in events if e.get("ph") == "X"], npes, hosts)
    check_clocks(doc, npes, hosts)
    print(f"trace: {len(xs)} events, {len(starts)} flows, {npes} tracks")


def expected_matrix(npes):
    m = [[0] * npes for _ in range(npes)]
    for i in range(npes):
        r = (i + 1) % npes
        m[i][r] += NPUT * PUT_BYTES + NSIG * SIG_BYTES + NAMO * AMO_BYTES
        m[r][i] += NGET * GET_BYTES  # the data of i's gets moves from r to i
    return m


def check_profile(path, npes, out):
    with open(path) as f:
        text = f.read()
    head, pes_table, tail = text.split("\n\n")
    fam = {r["family"]: r for r in csv.DictReader(head.splitlines())}
    want = {
        "put": (NPUT, NPUT * PUT_BYTES), "get": (NGET, NGET * GET_BYTES),
        "amo": (NAMO, NAMO * AMO_BYTES), "signal": (NSIG, NSIG * SIG_BYTES),
        "wait": (NSIG, 0), "barrier/collective": (NCOLL, 0), "alloc": (NALLOC, 0),
        "quiet/fence": (2 * NORDER, 0),
    }
    pes = list(csv.DictReader(pes_table.strip().splitlines()))
    if [int(r["pe"]) for r in pes] != list(range(npes)):
        fail(f"profile PE rows {[r['pe'] for r in pes]}")
    for r in pes:
        wall = int(r["wall_ns"])
        parts = int(r["compute_ns"]) + int(r["communication_ns"]) + int(r["waiting_ns"])
        if wall <= 0 or parts != wall:
            fail(f"profile PE {r['pe']}: shares {parts} ns of a {wall} ns wall time")
        # the barriers, the allocations and the split (of the world team)
        if int(r["world_collective_calls"]) != NBARRIER + NALLOC + 1:
            fail(f"profile PE {r['pe']}: {r['world_collective_calls']} world collectives, "
                 f"expected {NBARRIER + NALLOC + 1}")
    lag = [int(r["pe"]) for r in pes if r["laggard"] == "1"]
    if len(lag) != (1 if npes > 1 else 0):
        fail(f"profile: laggards {lag}")
    for name, (calls, nbytes) in want.items():
        row = fam.get(name)
        if row is None:
            fail(f"profile has no row {name}")
            continue
        if int(row["calls"]) != calls * npes or int(row["bytes"]) != nbytes * npes:
            fail(f"profile {name}: {row['calls']} calls, {row['bytes']} bytes; expected "
                 f"{calls * npes}, {nbytes * npes}")
        if calls == 0:
            if int(row["max_pe"]) != -1 or int(row["max_ns_per_pe"]) != 0:
                fail(f"profile {name}: no calls but {row}")
            continue
        if not 0 <= int(row["max_pe"]) < npes:
            fail(f"profile {name}: max on PE {row['max_pe']}")
        # time per PE: a mean over PEs, so no more than the longest PE's wall time
        longest = max(int(r["wall_ns"]) for r in pes) if pes else 0
        if not int(row["mean_ns_per_pe"]) <= int(row["max_ns_per_pe"]) <= longest:
            fail(f"profile {name}: mean {row['mean_ns_per_pe']} max {row['max_ns_per_pe']} ns "
                 f"per PE, longest wall {longest} ns")
    m = [[0] * npes for _ in range(npes)]
    for r in csv.DictReader(tail.strip().splitlines()):
        m[int(r["from_pe"])][int(r["to_pe"])] = int(r["bytes"])
    if m != expected_matrix(npes):
        fail(f"traffic matrix {m}, expected {expected_matrix(npes)}")
    with open(out) as f:
        printed = f.read()
    for needle in ["Shoal profile:", "mean ms/PE", "Laggard:", "Each PE's wall time",
                   "Traffic in bytes"]:
        if needle not in printed:
            fail(f"PE 0's output lacks {needle!r}")
    line = [l for l in printed.splitlines() if l.startswith("put ")]
    if not line or int(line[0].split()[1]) != NPUT * npes:
        fail(f"printed put row {line}")
    print(f"profile: {len(fam)} families, {npes}x{npes} matrix match")


HANG_NPUT, HANG_PUT_BYTES = 5, 48  # trace_hang_prog.c


def check_hang(tdir, npes):
    """trace.json that shoal-trace merge built from a job ended by its
    timeout (trace_hang_prog.c): every PE's calls up to the hang, the last PE
    unfinished, a flow from each put-with-signal to the wait it released."""
    with open(f"{tdir}/trace.json") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e["name"] == "process_name"}
    if names != {pe: f"PE {pe}" for pe in range(npes)}:
        fail(f"tracks {names}")
    expect = {  # routine: (calls, bytes each, to the right neighbour)
        "shmem_putmem": (HANG_NPUT, HANG_PUT_BYTES, True),
        "shmem_barrier_all": (2, 0, False),
        "shmem_putmem_signal": (1, HANG_PUT_BYTES, True),
        "shmem_signal_wait_until": (1, 0, False),
    }
    xs = [e for e in events if e.get("ph") == "X"]
    for pe in range(npes):
        mine = [e for e in xs if e["pid"] == pe]
        for fn, (calls, nbytes, right) in expect.items():
            got = [e for e in mine if e["name"] == fn]
            if len(got) != calls:
                fail(f"PE {pe}: {len(got)} {fn} events, expected {calls}")
            for e in got:
                if e["args"]["bytes"] != nbytes:
                    fail(f"PE {pe}: {fn} with {e['args']['bytes']} bytes, expected {nbytes}")
                if right and e["args"]["peer"] != (pe + 1) % npes:
                    fail(f"PE {pe}: {fn} to PE {e['args']['peer']}")
        unknown = sorted({e["name"] for e in mine} - set(expect))
        if unknown:
            fail(f"PE {pe}: unexpected routines {unknown}")
        waits = [e for e in mine if e["name"] == "shmem_signal_wait_until"]
        if waits and waits[0]["args"].get("addr") != "sig":
            fail(f"PE {pe}: the wait's address is {waits[0]['args'].get('addr')!r}, "
                 "expected the global's name 'sig'")
    unfinished = doc["otherData"].get("unfinished")
    if unfinished != [npes - 1]:
        fail(f"unfinished PEs {unfinished}, expected [{npes - 1}] (the PE that hung)")
    flows = [e for e in events if e.get("ph") == "s"]
    if len(flows) != npes:
        fail(f"{len(flows)} flows, expected one per PE ({npes})")
    print(f"hang: {len(xs)} events, {len(flows)} flows, {npes} tracks, unfinished {unfinished}")


if sys.argv[1] == "trace":
    check_trace(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 1)
elif sys.argv[1] == "hang":
    check_hang(sys.argv[2], int(sys.argv[3]))
else:
    check_profile(sys.argv[2], int(sys.argv[3]), sys.argv[4])
sys.exit(1 if failures else 0)
