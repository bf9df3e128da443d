"""``python -m shoal.run -n 4 prog.py [args]``: start a Python program on
several PEs with shoalrun, using this very interpreter (``sys.executable``,
so a venv's) on every PE.

Options before the program go to shoalrun, including ones this module does not
know (give an unknown option that takes a value as ``--name=value``). The
program is a script, ``-m module`` or ``-c code``, as for ``python``;
``--`` ends the options. shoalrun is found, in this order, from the
``SHOALRUN`` variable, from where the package was built (shoal/_paths.py: the
build tree's or the installation's bin/), then on ``PATH``.
"""
import os
import shutil
import sys

# shoalrun's options that take a value as the next argument (tools/shoalrun/
# options.c); --mca takes two.
_VALUED = {"-n", "-np", "--npes", "-N", "--npernode", "-H", "--host", "--hostfile",
           "--launch-agent", "--map-by", "--bind-to", "-x", "--timeout"}
_USAGE = """usage: python -m shoal.run [shoalrun options] (prog.py | -m module | -c code) [args]

Runs the program on every PE with this interpreter ({python}) under shoalrun
({shoalrun}). Examples:
  python -m shoal.run -n 4 prog.py
  python -m shoal.run -n 2 --timeout 60 -m pytest -p shoal.pytest_plugin tests/
"""


def find_shoalrun():
    """The shoalrun to use, or None."""
    env = os.environ.get("SHOALRUN")
    if env:
        return env
    try:
        from . import _paths
        if os.access(_paths.SHOALRUN, os.X_OK):
            return _paths.SHOALRUN
    except ImportError:
        pass
    return shutil.which("shoalrun")


def split_args(args):
    """(shoalrun options, python arguments): the program and what follows it."""
    opts = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return opts, args[i + 1:]
        if arg in ("-m", "-c"):
            return opts, args[i:]
        if arg in _VALUED:
            opts += args[i:i + 2]
            i += 2
            continue
        if arg in ("--mca", "-mca"):
            opts += args[i:i + 3]
            i += 3
            continue
        if arg.startswith("-") and arg != "-":
            opts.append(arg)
            i += 1
            continue
        return opts, args[i:]
    return opts, []


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    shoalrun = find_shoalrun()
    opts, program = split_args(args)
    wants_help = any(a in ("-h", "--help") for a in opts)
    if shoalrun is None:
        print("shoal.run: no shoalrun found: set SHOALRUN, put Shoal's bin/ on PATH, or "
              "reinstall the package against an installed libshoal", file=sys.stderr)
        return 2
    if wants_help or (not program and not any(a in ("-V", "--version") for a in opts)):
        print(_USAGE.format(python=sys.executable, shoalrun=shoalrun),
              file=sys.stdout if wants_help else sys.stderr)
        sys.stdout.flush()
        if wants_help:
            print("shoalrun's own options:", flush=True)
            os.execv(shoalrun, [shoalrun, "--help"])
        print("(python -m shoal.run --help adds shoalrun's options)", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(shoalrun, [shoalrun, *opts, sys.executable, *program])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
