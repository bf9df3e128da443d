#!/usr/bin/env python3
"""Writes the seed corpus of the store's fuzz target (corpus/store_decode).

Each seed is a script for fuzz/store_decode.c: byte 0 is the mode and the job
size (bit 7: launcher mode as under shoalrun, job size 1 + byte % 4; else the
config store, job size byte % 5), then records [op][len][bytes] (op & 3:
connection, op >> 2: 0 feed, 1 close, 2 let time pass, 3 reopen). The seeds
walk a whole job (join, put/get, barrier, events, abort, a PE that dies, the
join timeout), the same under shoalrun (connection k bound to rank k: a PE
claiming another rank, PEs that leave, waits for a PE that is gone), and a few
broken frames, so the fuzzer starts from every state of the store.
Run it again after changing the protocol: python3 fuzz/make_seeds.py
"""
import os
import struct

(HELLO, WELCOME, REFUSE, PUT, GET, VALUE, BARRIER, BARRIER_DONE, EVENT, ABORT, ALLGATHER,
 GATHERED) = range(1, 13)


def frame(mtype, body=b"", reserved=0):
    return struct.pack(">IHH", len(body), mtype, reserved) + body


def s16(b):
    return struct.pack(">H", len(b)) + b


def b32(b):
    return struct.pack(">I", len(b)) + b


def hello(rank, npes, host=b"hostA|boot|net"):
    return frame(HELLO, struct.pack(">III", rank, npes, 1000 + rank) + s16(host))


def put(key, value):
    return frame(PUT, s16(key) + b32(value))


def get(pe, key):
    return frame(GET, struct.pack(">I", pe) + s16(key))


def allgather(key, value):
    return frame(ALLGATHER, s16(key) + b32(value))


def event(e):
    return frame(EVENT, struct.pack(">I", e))


def abort(status, origin, msg=b""):
    return frame(ABORT, struct.pack(">iI", status, origin) + s16(msg))


def feed(conn, data):
    out = b""
    while True:  # records carry at most 255 bytes
        chunk, data = data[:255], data[255:]
        out += bytes([conn, len(chunk)]) + chunk
        if not data:
            return out


def close(conn):
    return bytes([4 | conn, 0])


def wait(tenths):
    return bytes([8, 1, tenths])


def reopen(conn):
    return bytes([12 | conn, 0])


def job(npes):
    return b"".join(feed(r, hello(r, npes, b"host%d" % (r % 2))) for r in range(npes))


def launcher(npes):
    """Byte 0 of a launcher-mode script (npes from 1 to 4)."""
    return bytes([0x80 | (npes - 1)])


seeds = {
    "join4": bytes([4]) + job(4),
    "join_from_first_hello": bytes([0]) + job(3),
    "put_get": bytes([2]) + job(2) + feed(0, get(1, b"addr")) + feed(1, put(b"addr", b"x" * 40))
    + feed(1, get(0, b"none")) + feed(0, put(b"none", b"")),
    "barrier": bytes([3]) + job(3) + b"".join(feed(r, frame(BARRIER)) for r in range(3)),
    "events_and_exit": bytes([2]) + job(2) + feed(0, event(1)) + feed(1, event(1))
    + feed(0, event(2)) + feed(1, event(2)) + close(0) + close(1),
    "pe_dies": bytes([3]) + job(3) + feed(0, event(1)) + close(2),
    "abort": bytes([2]) + job(2) + feed(1, abort(7, 1, b"bye")),
    "rank_taken": bytes([4]) + feed(0, hello(1, 4)) + feed(1, hello(1, 4)) + feed(2, hello(2, 3)),
    "join_timeout": bytes([4]) + feed(0, hello(0, 4)) + wait(20),
    "rejoin": bytes([2]) + feed(0, hello(1, 2)) + close(0) + reopen(0) + feed(0, hello(1, 2)),
    "split_frames": bytes([2]) + b"".join(feed(0, hello(0, 2)[i:i + 3]) for i in range(0, 24, 3)),
    "bad_reserved": bytes([1]) + feed(0, frame(BARRIER, reserved=1)),
    "bad_type": bytes([1]) + feed(0, frame(77)),
    "oversize": bytes([1]) + feed(0, struct.pack(">IHH", 0x7FFFFFFF, PUT, 0)),
    "trailing": bytes([1]) + feed(0, hello(0, 1) + frame(BARRIER, b"xx")),
    "second_request": bytes([2]) + job(2) + feed(0, frame(BARRIER) + frame(BARRIER)),
    "value_from_client": bytes([1]) + job(1) + feed(0, frame(VALUE, b32(b"v"))),
    "single_frame_welcome": frame(WELCOME, struct.pack(">II", 0, 1) + s16(b"job")),
    "single_frame_refuse": frame(REFUSE, struct.pack(">I", 2) + s16(b"taken")),
    "allgather": bytes([3]) + job(3) + b"".join(feed(r, allgather(b"ag", b"v" * r)) for r in range(3))
    + b"".join(feed(r, allgather(b"ag2", b"")) for r in range(3)),
    "allgather_key_mismatch": bytes([2]) + job(2) + feed(0, allgather(b"a", b"1"))
    + feed(1, allgather(b"b", b"2")),
    "allgather_pe_dies": bytes([3]) + job(3) + feed(0, allgather(b"ag", b"x")) + close(1),
    "allgather_then_barrier": bytes([2]) + job(2) + feed(0, allgather(b"ag", b"x") + frame(BARRIER)),
    "gathered_from_client": bytes([1]) + job(1) + feed(0, frame(GATHERED, struct.pack(">I", 1) + b32(b"v"))),
    "single_frame_gathered": frame(GATHERED, struct.pack(">I", 2) + b32(b"ab") + b32(b"")),
    # Under shoalrun (launcher mode).
    "launcher_job": launcher(3) + job(3) + feed(0, put(b"k", b"v")) + feed(2, get(0, b"k"))
    + b"".join(feed(r, allgather(b"seg", b"s" * r)) for r in range(3))
    + b"".join(feed(r, frame(BARRIER)) for r in range(3))
    + b"".join(feed(r, event(1) + event(2)) for r in range(3)) + close(0) + close(1) + close(2),
    "launcher_claims_other_rank": launcher(2) + feed(1, hello(0, 2)) + feed(0, hello(0, 2)),
    "launcher_leaves_early": launcher(3) + job(3) + feed(0, event(1)) + close(1)
    + feed(0, frame(BARRIER)) + feed(2, get(1, b"never")),
    "launcher_never_joins": launcher(3) + feed(0, hello(0, 3)) + feed(0, allgather(b"ag", b"x"))
    + close(2),
    "launcher_abort": launcher(2) + job(2) + feed(1, abort(5, 1, b"bye")) + feed(0, frame(BARRIER)),
    "launcher_allgather_mismatch": launcher(2) + job(2) + feed(0, allgather(b"first", b"1"))
    + feed(1, allgather(b"second", b"2")),
    "launcher_finalized_then_barrier": launcher(2) + job(2) + feed(1, event(1) + event(2)) + close(1)
    + feed(0, frame(BARRIER)) + reopen(1) + feed(1, hello(1, 2)),
    "launcher_bad_frame": launcher(1) + job(1) + feed(0, frame(77)),
    "launcher_wait_time": launcher(2) + feed(0, hello(0, 2)) + wait(200),
}

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus", "store_decode")
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"wrote {len(seeds)} seeds to {out}")
