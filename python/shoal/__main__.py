"""``python -m shoal``: prints the package's version and what it runs on: the
libshoal it loads (path, vendor string, OpenSHMEM version), the launcher, and
the library's build info (UCX, PMIx, CUDA, TLS) as ``shoal-info`` reports it.

Loading the library initializes it, here as a job of one PE (or as each PE,
under shoalrun).
"""
import os
import subprocess
import sys

from . import _launch, run


def _loaded_library():
    """The path of the libshoal this process mapped, from /proc/self/maps."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split(None, 5)[-1].strip()
                if os.path.basename(path).startswith("libshoal.so"):
                    return path
    except OSError:
        pass
    return "(unknown: /proc/self/maps unreadable)"


def _build_info(shoalrun):
    """shoal-info's "Build:" block (versions, transports, bootstraps, CUDA),
    from the shoal-info next to shoalrun; a line saying why when absent."""
    if shoalrun is None:
        return ["  (no shoalrun, so no shoal-info, found)"]
    info = os.path.join(os.path.dirname(shoalrun), "shoal-info")
    try:
        out = subprocess.run([info], capture_output=True, text=True, timeout=60).stdout
    except OSError as e:
        return [f"  ({info}: {e.strerror})"]
    lines, inside = [], False
    for line in out.splitlines():
        if line.startswith("Build:"):
            inside = True
        elif inside and not line.startswith(" "):
            break
        if inside:
            lines.append(line)
    return lines or [f"  ({info} printed no build information)"]


def main():
    import numpy

    import shoal
    core = _launch.load_core("shoal")
    major, minor, vendor = core.info()
    shoalrun = run.find_shoalrun()
    print(f"shoal {shoal.__version__}")
    print(f"  library: {_loaded_library()} ({vendor}, OpenSHMEM {major}.{minor})")
    print(f"  extension: {core.__file__}")
    print(f"  python: {sys.executable} {sys.version.split()[0]}, NumPy {numpy.__version__}")
    print(f"  launcher: {shoalrun or '(no shoalrun found: set SHOALRUN or PATH)'}")
    for line in _build_info(shoalrun):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
