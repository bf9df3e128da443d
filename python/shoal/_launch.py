"""What ``python -m shoal.run`` and ``python -m shoal`` need before the
package is imported.

Running a submodule with ``-m`` imports the package first, and importing
``shoal`` normally initializes the library (the C extension ``shoal._core``
calls ``shmem_init_thread``). The launcher process is no PE: it must not join
or start a job, and it execs shoalrun. So while runpy is importing the package
for one of those two modules, ``shoal._core`` is a placeholder whose names all
raise, and the package's definitions load without touching the library.
"""
import sys
import types

LAUNCHER_MODULES = ("shoal.run", "shoal", "shoal.__main__")


def runpy_target():
    """The module ``python -m`` is starting, while it imports that module's
    packages; None otherwise. (sys.argv[0] is "-m" only during that import.)"""
    if sys.argv[:1] != ["-m"]:
        return None
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_run_module_as_main" and "runpy" in code.co_filename:
            return frame.f_locals.get("mod_name")
        frame = frame.f_back
    return None


class _NotLoaded(types.ModuleType):
    """Stands in for shoal._core in the launcher process."""

    __all__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unavailable(name)


class _Unavailable:
    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"shoal.{self._name}: the library is not initialized in the "
                           "launcher process (python -m shoal.run starts the PEs)")


def install_placeholder_if_launching(package):
    """Called first by shoal/__init__.py: True (and the placeholder installed)
    when this process is `python -m shoal.run` or `python -m shoal`."""
    if runpy_target() not in LAUNCHER_MODULES:
        return False
    sys.modules[package + "._core"] = _NotLoaded(package + "._core")
    return True


def load_core(package):
    """The real shoal._core, loaded in place of the placeholder (``python -m
    shoal`` reports the library it loads; this initializes it)."""
    import importlib
    name = package + "._core"
    if isinstance(sys.modules.get(name), _NotLoaded):
        del sys.modules[name]
    core = importlib.import_module(name)
    pkg = sys.modules[package]
    pkg._core = core
    return core
