"""A rank's memory on the MPI engine: state shared by the whole job is kept once, not per rank."""
from mpi_helpers import run
from ppt.mpi.engine.replay import Engine


def test_a_collective_on_comm_world_keeps_one_member_array_for_the_whole_job(monkeypatch):
    # each rank's COMM_WORLD is its own range of the world ranks: an array per rank would be P x P int32s
    arrays = set()
    keep = Engine.members_array

    def counted(engine, members, base=0):
        found = keep(engine, members, base)
        arrays.add(id(found[1]))                # the C array
        return found
    monkeypatch.setattr(Engine, "members_array", counted)
    result = run(64, lambda mpi: mpi.COMM_WORLD.allreduce(mpi.COMM_WORLD.rank, op=mpi.SUM, nbytes=8))
    assert result.returns == [64 * 63 // 2] * 64
    assert len(arrays) == 1
