"""Four compiled parts, built at install time: the packet core and the MPI engine, each its own
extension by cffi (interconnects/core/build.py, ppt/mpi/engine/core/build.py; the engine calls the
packet core through a table of its functions bound at import), the point-to-point surface of the
simulated MPI by Cython (ppt/mpi/surface/core/fast.pyx), which calls that engine through pointers
bound at import, and the heap of a rank of its own that `ppt exec` gives numpy (ppt/exec/rankheap.c,
against numpy's allocator interface)."""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

SURFACE = Extension("ppt.mpi.surface.core.fast", ["ppt/mpi/surface/core/fast.pyx"],
                    include_dirs=["ppt/mpi/engine/core"], extra_compile_args=["-O2"])

RANK_HEAP = Extension("ppt.exec._rankheap", ["ppt/exec/rankheap.c"], include_dirs=[numpy.get_include()],
                      extra_compile_args=["-O2"])

setup(cffi_modules=["interconnects/core/build.py:ffibuilder", "ppt/mpi/engine/core/build.py:ffibuilder"],
      ext_modules=cythonize([SURFACE], compiler_directives={"language_level": 3}) + [RANK_HEAP])
