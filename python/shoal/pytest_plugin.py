"""pytest plugin: run a test file on N PEs and report failures from any PE.

    /usr/bin/python3 -m pytest -p shoal.pytest_plugin --shoal-npes 4 test_x.py

starts ``shoalrun -n 4 --timeout T`` with the same pytest command on every PE
(already inside a job, e.g. under mpirun, it just runs). After each test's
setup and call, the PEs agree on the outcome: a test that failed on any PE
fails on every PE, with the failing PEs named, so the PEs stay in step and
the job's exit status is the test run's. A test that hangs on some PEs (a
collective that one PE never reached) is ended by the timeout, which names
the PEs still running.

The PEs run with ``--capture=sys`` unless the command line chooses a capture
mode (``-s``, ``--capture``): pytest's default capture of file descriptors
would swallow what the library itself writes to stderr, such as the error
line of a PE that the library ends, since such a PE never reaches the end
of its test to print it.
"""
import os
import subprocess
import sys

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("shoal")
    group.addoption("--shoal-npes", type=int, default=0,
                    help="run the tests on this many PEs under shoalrun")
    group.addoption("--shoal-timeout", type=int, default=300,
                    help="seconds before shoalrun ends a hung test job")


def _in_job():
    return any(v in os.environ for v in
               ("SHOAL_LAUNCHER_FD", "PMIX_RANK", "SHOAL_RANK", "SHOAL_STORE"))


def _strip_npes(args):
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "--shoal-npes":
            skip = True
        elif not a.startswith("--shoal-npes="):
            out.append(a)
    return out


def _shoalrun():
    if os.environ.get("SHOALRUN"):
        return os.environ["SHOALRUN"]
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    try:
        from _paths import SHOALRUN
    finally:
        sys.path.pop(0)
    return SHOALRUN


def _launch(config):
    npes = config.getoption("shoal_npes")
    cmd = [_shoalrun(), "-n", str(npes), "--timeout", str(config.getoption("shoal_timeout")),
           "-t", sys.executable, "-m", "pytest"] + _strip_npes(list(config.invocation_params.args))
    at = cmd.index("pytest") + 1
    if "shoal.pytest_plugin" not in " ".join(cmd):
        cmd[at:at] = ["-p", "shoal.pytest_plugin"]
    if not any(a == "-s" or a.startswith("--capture") for a in config.invocation_params.args):
        cmd[at:at] = ["--capture=sys"]
    return subprocess.call(cmd)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    if not config.getoption("shoal_npes") or _in_job():
        return None
    return _launch(config)


_flags = None
_calls = 0


def _agree(failed):
    """Every PE's failed flag, in PE order (collective over TEAM_WORLD).

    Two destination arrays alternate by call: a PE may enter the next
    fcollect (and write into its peers' dest) while a slower peer is still
    reading the last one's result, but never two calls ahead."""
    global _flags, _calls
    import numpy as np
    import shoal
    if _flags is None:
        _flags = (shoal.zeros(1, np.int32),
                  (shoal.zeros(shoal.n_pes(), np.int32), shoal.zeros(shoal.n_pes(), np.int32)))
    src, dests = _flags
    dest = dests[_calls % 2]
    _calls += 1
    src[0] = 1 if failed else 0
    shoal.fcollect(dest, src)
    return [pe for pe in range(shoal.n_pes()) if dest[pe]]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when not in ("setup", "call") or "shoal" not in sys.modules:
        return
    failing = _agree(rep.failed)
    import shoal
    me = shoal.my_pe()
    if failing and not rep.failed:
        rep.outcome = "failed"
        rep.longrepr = f"failed on PE(s) {failing} (passed on PE {me})"
    elif failing:
        rep.sections.append(("shoal", f"failed on PE(s) {failing}"))
