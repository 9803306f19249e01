"""Only here to hand the cffi module to setuptools (all metadata lives in pyproject.toml) and to compile the
C sources of that one extension in parallel, one job per CPU (setuptools compiles an extension's sources one
after another; its --parallel option only runs whole extensions side by side)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext


def _jobs() -> int:
    env = os.environ.get("ONEMODEL_BUILD_JOBS")
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS
        return max(1, os.cpu_count() or 1)


class ParallelBuildExt(build_ext):
    """build_ext whose compiler runs each source file as its own job (gcc/clang are separate processes)."""

    def build_extension(self, ext: Any) -> None:
        compiler = self.compiler
        serial = compiler.compile
        jobs = _jobs()

        def compile_parallel(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
            if jobs == 1 or len(sources) < 2:
                return serial(sources, *args, **kwargs)
            with ThreadPoolExecutor(jobs) as pool:
                parts = list(pool.map(lambda s: serial([s], *args, **kwargs), sources))
            return [obj for objs in parts for obj in objs]

        compiler.compile = compile_parallel  # type: ignore[method-assign]
        try:
            super().build_extension(ext)
        finally:
            compiler.compile = serial  # type: ignore[method-assign]


# cffi builds _native as a limited-API module (_native.abi3.so, no Python symbols beyond the stable ABI), so
# one wheel per platform serves every CPython 3.9+: tag it abi3, not the building interpreter's cp3X.
setup(
    cffi_modules=["provider/build_ffi.py:ffibuilder"],
    cmdclass={"build_ext": ParallelBuildExt},
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)
