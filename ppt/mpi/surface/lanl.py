"""LANL PPT style functions (``mpi_send``, ``mpi_recv``, ...) over the simulated MPI.

Names, argument orders and return shapes follow the ``mpi_*`` API of LANL's
PPT (github.com/lanl/PPT, code/middleware/mpi/mpi.py) so its application
scripts port with few edits: a message "type" is the tag (any value; None
matches any), ``from_rank=None`` receives from any rank, receives return
``{"from_rank", "type", "data", "data_size"}``, ``mpi_cart_shift`` gives
None at non-periodic edges and ``mpi_cart_create`` defaults to periodic
dimensions.  Sizes are bytes.  A LANL style main ``app(mpi_comm_world, *args)``
runs as an MPIJob main through :func:`lanl_main`.
"""
from __future__ import annotations

from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED
from ppt.mpi.surface.core.requests import Status

#: LANL PPT's default item size for collectives, bytes.
DEFAULT_DATA_B = 4


def lanl_main(app):
    """An MPIJob main running the LANL style ``app(mpi_comm_world, *args)``."""
    def main(mpi, *args):
        return app(mpi.COMM_WORLD, *args)
    main.__name__ = getattr(app, "__name__", "main")
    return main


def _source(from_rank):
    return ANY_SOURCE if from_rank is None else from_rank


def _tag(msg_type):
    return ANY_TAG if msg_type is None else msg_type


def _received(value, status) -> dict:
    return {"from_rank": status.source, "type": status.tag, "data": value, "data_size": status.bytes}


def mpi_comm_rank(comm) -> int:
    return comm.rank


def mpi_comm_size(comm) -> int:
    return comm.size


def mpi_finalize(comm) -> None:
    """Nothing to do: a rank ends when its main function returns."""


def mpi_wtime(comm) -> float:
    return comm._rank.clock_s()


def mpi_ext_host(comm) -> int:
    """The node the rank runs on."""
    return comm._rank.node


def mpi_ext_sleep(time_s: float, comm) -> None:
    comm._rank.api.sleep(time_s)


def mpi_ext_compute(work, comm) -> float:
    """Compute a tasklist (or seconds) on this rank's core."""
    return comm._rank.api.compute(work)


def mpi_send(to_rank, data, sz, comm, type="default") -> bool:
    comm.send(data, to_rank, type, nbytes=sz)
    return True


def mpi_isend(to_rank, data, sz, comm, type="default"):
    return comm.isend(data, to_rank, type, nbytes=sz)


def mpi_recv(comm, from_rank=None, type=None) -> dict:
    status = Status()
    value = comm.recv(_source(from_rank), _tag(type), status)
    return _received(value, status)


def mpi_irecv(comm, from_rank=None, type=None):
    return comm.irecv(_source(from_rank), _tag(type))


def mpi_wait(req):
    """The received message as a dict for receives; None for sends."""
    status = Status()
    value = req.wait(status)
    return None if req.is_send else _received(value, status)


def mpi_waitall(reqs) -> None:
    if reqs:
        reqs[0]._rank.api.waitall(reqs)


def mpi_test(req) -> bool:
    return req.done


def mpi_sendrecv(to_rank, data, sz, from_rank, comm, send_type="default", recv_type="default"):
    status = Status()
    value = comm.sendrecv(data, PROC_NULL if to_rank is None else to_rank, send_type,
                          PROC_NULL if from_rank is None else from_rank, _tag(recv_type), sz, status)
    return None if from_rank is None else _received(value, status)


def mpi_barrier(comm) -> None:
    comm.barrier()


def mpi_bcast(root, data, comm, data_size=DEFAULT_DATA_B):
    return comm.bcast(data, root, nbytes=data_size)


def mpi_reduce(root, data, comm, data_size=DEFAULT_DATA_B, op="sum"):
    return comm.reduce(data, op, root, nbytes=data_size)


def mpi_allreduce(data, comm, data_size=DEFAULT_DATA_B, op="sum"):
    return comm.allreduce(data, op, nbytes=data_size)


def mpi_gather(root, data, comm, data_size=DEFAULT_DATA_B):
    return comm.gather(data, root, nbytes=data_size)


def mpi_allgather(data, comm, data_size=DEFAULT_DATA_B):
    return comm.allgather(data, nbytes=data_size)


def mpi_scatter(root, data, comm, data_size=DEFAULT_DATA_B):
    return comm.scatter(data if comm.rank == root else None, root, nbytes=data_size)


def mpi_alltoall(data, comm, data_size=DEFAULT_DATA_B):
    return comm.alltoall(data, nbytes=data_size)


def mpi_alltoallv(data, comm, data_sizes=None):
    return comm.alltoallv(data, nbytes=list(data_sizes) if data_sizes is not None else DEFAULT_DATA_B)


def mpi_comm_split(comm, color, key):
    return comm.split(UNDEFINED if isinstance(color, str) and color.lower() == "mpi_undefined" else color, key)


def mpi_comm_dup(comm):
    return comm.dup()


def mpi_comm_free(comm) -> None:
    comm.free()


def mpi_comm_group(comm):
    return comm.group


def mpi_group_size(group) -> int:
    return group.size


def mpi_group_rank(group):
    """Rank in the group, None outside it."""
    rank = group.rank
    return None if rank == UNDEFINED else rank


def mpi_group_free(group) -> None:
    group.free()


def mpi_group_incl(group, ranks):
    return group.incl(ranks)


def mpi_group_excl(group, ranks):
    return group.excl(ranks)


def mpi_comm_create(comm, group):
    return comm.create(group)


def mpi_comm_create_group(comm, group, tag=None):
    return comm.create(group)


def mpi_cart_create(comm, dims, periodic=None):
    return comm.cart_create(dims, periodic if periodic is not None else [True] * len(dims))


def mpi_cart_coords(comm, rank) -> tuple:
    return comm.cart_coords(rank)


def mpi_cart_rank(comm, coords) -> int:
    return comm.cart_rank(coords)


def mpi_cart_shift(comm, shiftdim, disp):
    """``(source, dest)`` with None off a non-periodic edge."""
    return tuple(None if r == PROC_NULL else r for r in comm.cart_shift(shiftdim, disp))
