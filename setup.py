# Builds the C runtime's cffi extension (lp.runtime._lprt) alongside the pure-Python packages.
from setuptools import setup

setup(cffi_modules=["runtime/build_lprt.py:ffibuilder"])
