"""Rank 0 replaces, sets and deletes attributes of standard modules; rank 1 still sees the originals, and
MPI still pickles with the real pickle."""
import json
import json.decoder
import math
import pickle

from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.rank == 0:
    json.dumps = lambda *args, **kwargs: "patched"
    math.pi = 3
    del math.e
    setattr(json, "loads", len)
    json.decoder.scanstring = None
    pickle.dumps = pickle.loads = None
    comm.send({"sent": [1, 2]}, dest=1)
else:
    print(comm.rank, "received", comm.recv(source=0))
comm.Barrier()
print(comm.rank, json.dumps([1]), math.pi, hasattr(math, "e"), json.loads("[1]"),
      json.decoder.scanstring is None, pickle.dumps is None, json.JSONDecoder().decode('{"b": 1}'))
