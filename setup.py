"""The compiled packet core is built by cffi at install time (see interconnects/csrc/build.py)."""
from setuptools import setup

setup(cffi_modules=["interconnects/csrc/build.py:ffibuilder"])
