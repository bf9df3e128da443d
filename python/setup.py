"""Builds the ``shoal`` package (the C extension ``shoal._core`` plus the pure
Python modules) for the running interpreter, against a libshoal that is
already built: ``pip install --no-build-isolation ./python``.

Which libshoal, in this order (docs/python.md, "Installing with pip"):

1. ``SHOAL_BUILD_DIR``: a CMake build tree of Shoal (headers from its source
   tree, libshoal.so and shoalrun from the build tree);
2. ``SHOAL_PREFIX``: an installation prefix (``cmake --install --prefix``);
3. ``pkg-config shoal`` (set ``PKG_CONFIG_PATH`` for a prefix of your own);
4. ``../build``, the build tree next to this folder in a checkout.

The extension gets an rpath to the library's folder, so it loads that
libshoal without ``LD_LIBRARY_PATH``. The version is the library's (CMake's
project VERSION, read from the build tree's cache or from pkg-config), and is
written with the launcher's path into ``shoal/_paths.py``.
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class ShoalNotFound(SystemExit):
    pass


def _fail(msg):
    raise ShoalNotFound(
        "shoal: " + msg + "\nPoint the build at a libshoal: SHOAL_BUILD_DIR=<Shoal's CMake build "
        "tree>, SHOAL_PREFIX=<install prefix>, or PKG_CONFIG_PATH so that `pkg-config shoal` "
        "finds it (docs/python.md, \"Installing with pip\")."
    )


def _cmake_cache(build_dir):
    """The entries of a CMake build tree's CMakeCache.txt that we need."""
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if not os.path.isfile(cache):
        _fail(f"{build_dir} is not a CMake build tree (no CMakeCache.txt)")
    values = {}
    with open(cache) as f:
        for line in f:
            if "=" not in line or line.startswith(("#", "//")):
                continue
            key, value = line.rstrip("\n").split("=", 1)
            values[key.split(":", 1)[0]] = value
    return values


def _from_build_tree(build_dir):
    build_dir = os.path.abspath(build_dir)
    cache = _cmake_cache(build_dir)
    src = cache.get("Shoal_SOURCE_DIR") or cache.get("CMAKE_HOME_DIRECTORY")
    version = cache.get("CMAKE_PROJECT_VERSION")
    lib = os.path.join(build_dir, "libshoal.so")
    if not (src and version):
        _fail(f"{build_dir}/CMakeCache.txt names no Shoal source tree or version")
    if not os.path.exists(lib):
        _fail(f"{lib} is missing: build the library first (./scripts/build.sh)")
    return {
        "version": version,
        "include_dirs": [os.path.join(src, "include")],
        "library_dirs": [build_dir],
        "libraries": ["shoal"],
        "shoalrun": os.path.join(build_dir, "tools", "shoalrun"),
        "origin": f"build tree {build_dir}",
    }


def _pkg_config(args, env=None):
    out = subprocess.run(["pkg-config", *args, "shoal"], check=True, capture_output=True,
                         text=True, env=env)
    return out.stdout.strip()


def _from_pkg_config(env=None):
    if shutil.which("pkg-config") is None:
        return None
    try:
        version = _pkg_config(["--modversion"], env)
        cflags = shlex.split(_pkg_config(["--cflags-only-I"], env))
        libs = shlex.split(_pkg_config(["--libs"], env))
        prefix = _pkg_config(["--variable=prefix"], env)
    except subprocess.CalledProcessError:
        return None
    lib_dirs = [a[2:] for a in libs if a.startswith("-L")]
    return {
        "version": version,
        "include_dirs": [a[2:] for a in cflags if a.startswith("-I")],
        "library_dirs": [os.path.realpath(d) for d in lib_dirs],
        "libraries": [a[2:] for a in libs if a.startswith("-l")],
        "shoalrun": os.path.join(os.path.realpath(prefix), "bin", "shoalrun"),
        "origin": f"pkg-config ({os.path.realpath(prefix)})",
    }


def _from_prefix(prefix):
    pcs = glob.glob(os.path.join(prefix, "lib*", "pkgconfig", "shoal.pc")) + glob.glob(
        os.path.join(prefix, "lib", "*", "pkgconfig", "shoal.pc"))
    if not pcs:
        _fail(f"no lib*/pkgconfig/shoal.pc under SHOAL_PREFIX={prefix}")
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
    found = _from_pkg_config(env)
    if found is None:
        _fail(f"pkg-config cannot read {pcs[0]}")
    return found


def find_shoal():
    if os.environ.get("SHOAL_BUILD_DIR"):
        return _from_build_tree(os.environ["SHOAL_BUILD_DIR"])
    if os.environ.get("SHOAL_PREFIX"):
        return _from_prefix(os.environ["SHOAL_PREFIX"])
    found = _from_pkg_config()
    if found is not None:
        return found
    in_tree = os.path.join(HERE, os.pardir, "build")
    if os.path.isfile(os.path.join(in_tree, "CMakeCache.txt")):
        return _from_build_tree(in_tree)
    _fail("no libshoal found (SHOAL_BUILD_DIR and SHOAL_PREFIX unset, `pkg-config shoal` "
          "fails, no ../build)")


def numpy_include():
    try:
        import numpy
    except ImportError:
        _fail(f"NumPy is not importable by {sys.executable} (Debian: apt install python3-numpy; "
              "a venv: python3 -m venv --system-site-packages)")
    return numpy.get_include()


SHOAL = find_shoal()


class BuildPyWithPaths(build_py):
    """Writes shoal/_paths.py: the library's version and where its shoalrun is
    (the launcher shoal.run and the pytest plugin read it)."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "shoal", "_paths.py")
        self.mkpath(os.path.dirname(target))
        with open(target, "w") as f:
            f.write(f"# Written by setup.py from {SHOAL['origin']}.\n")
            f.write(f"VERSION = {SHOAL['version']!r}\n")
            f.write(f"SHOALRUN = {SHOAL['shoalrun']!r}\n")


core = Extension(
    "shoal._core",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "src", "*.c"))),
    include_dirs=SHOAL["include_dirs"] + [numpy_include()],
    library_dirs=SHOAL["library_dirs"],
    libraries=SHOAL["libraries"],
    runtime_library_dirs=SHOAL["library_dirs"],
    define_macros=[("_GNU_SOURCE", None)],
    extra_compile_args=["-std=gnu11", "-fvisibility=hidden"],
)

setup(
    version=SHOAL["version"],
    packages=["shoal"],
    package_dir={"shoal": "shoal"},
    package_data={"shoal": ["*.pyi", "py.typed"]},
    ext_modules=[core],
    cmdclass={"build_py": BuildPyWithPaths},
)
