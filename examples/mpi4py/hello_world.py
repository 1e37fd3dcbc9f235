"""Hello world: each rank says who it is and on which node.

Shows ``COMM_WORLD.Get_rank()``/``Get_size()`` and ``MPI.Get_processor_name()``
(the host's name under mpiexec, the simulated node's, ``nid00000``-style,
under ``ppt exec``).  The node's name differs between a real run and a
simulated one, so the tests compare the lines with the name masked.

Run it::

    mpiexec -n 3 python examples/mpi4py/hello_world.py
    ppt exec examples/mpi4py/hello_world.py -n 3 --system edison
"""
from mpi4py import MPI

comm = MPI.COMM_WORLD
print(f"Hello from rank {comm.Get_rank()} of {comm.Get_size()} on {MPI.Get_processor_name()}.")
