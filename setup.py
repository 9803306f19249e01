"""Only here to hand the cffi module to setuptools; all metadata lives in pyproject.toml."""

from setuptools import setup

setup(cffi_modules=["provider/build_ffi.py:ffibuilder"])
