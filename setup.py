"""The compiled packet core is built by cffi at install time (see interconnects/core/build.py)."""
from setuptools import setup

setup(cffi_modules=["interconnects/core/build.py:ffibuilder"])
