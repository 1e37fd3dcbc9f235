"""``mpi.object_overhead_s``: a top-level lowercase call owes mpi4py's object-layer cost, an uppercase one does not;
``mpi.call_overhead_s``: every top-level call of a kind owes its own.

On the analytic network without other overheads a ping-pong's time is closed form, so a cost of ``X``
seconds per ``send`` adds exactly ``2 N X`` to ``N`` round trips.
"""
import copy
import textwrap

import pytest

from ppt.exec.runner import ExecOptions, exec_program
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob

ROUND_TRIPS = 5
X = 2.0 ** -18                  # about 3.8 us, a binary fraction so the sums are exact

PINGPONG = """
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    peer = 1 - comm.Get_rank()
    for _ in range({n}):
        if comm.Get_rank() == 0:
            {send}
            {recv}
        else:
            {recv}
            {send}
"""
LOWER = {"send": "comm.send(0.5, peer, 7)", "recv": "comm.recv(source=peer, tag=7)"}
NONBLOCKING = {"send": "comm.isend(0.5, peer, 7).wait()", "recv": "comm.irecv(source=peer, tag=7).wait()"}
UPPER = {"send": "comm.Send(buf, peer, 7)", "recv": "comm.Recv(buf, peer, 7)"}
COLLECTIVES = """
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    for _ in range({n}):
        comm.allreduce(0.5)
        comm.bcast(0.5, 0)
"""
UPPER_COLLECTIVES = """
    import numpy
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    one, two = numpy.ones(1), numpy.ones(1)
    for _ in range({n}):
        comm.Allreduce(one, two)
        comm.Bcast(one, 0)
"""


def predicted_s(tmp_path, source, costs=None, key="object_overhead_s"):
    """Predicted time of ``source`` on 2 ranks of edison's analytic network, with ``mpi.key`` = ``costs`` (None:
    the key absent)."""
    preset = copy.deepcopy(load_system("edison"))
    if costs is not None:
        preset.setdefault("mpi", {})[key] = costs
    program = tmp_path / "prog.py"
    program.write_text(textwrap.dedent(source))
    job = MPIJob.on_machine(Machine(preset, network_kind="analytic"), 2, 1)
    return exec_program(job, ExecOptions(str(program), compute="none")).result.predicted_s


def pingpong(calls, n=ROUND_TRIPS, upper=False):
    source = PINGPONG.format(n=n, **calls)
    if upper:
        source = source.replace("peer = ", "buf = bytearray(8)\n    peer = ")
    return source


def test_each_lowercase_send_adds_its_cost(tmp_path):
    base = predicted_s(tmp_path, pingpong(LOWER))
    assert predicted_s(tmp_path, pingpong(LOWER), {"send": X}) - base == pytest.approx(2 * ROUND_TRIPS * X,
                                                                                      rel=1e-9)


def test_a_receive_owes_its_cost_once_the_message_is_in(tmp_path):
    base = predicted_s(tmp_path, pingpong(LOWER))
    assert predicted_s(tmp_path, pingpong(LOWER), {"recv": X}) - base == pytest.approx(2 * ROUND_TRIPS * X,
                                                                                      rel=1e-9)


def test_nonblocking_lowercase_calls_owe_theirs(tmp_path):
    base = predicted_s(tmp_path, pingpong(NONBLOCKING))
    both = predicted_s(tmp_path, pingpong(NONBLOCKING), {"isend": X, "irecv": 2 * X})
    assert both - base == pytest.approx(2 * ROUND_TRIPS * 3 * X, rel=1e-9)


def test_lowercase_collectives_owe_theirs(tmp_path):
    source = COLLECTIVES.format(n=ROUND_TRIPS)
    base = predicted_s(tmp_path, source)
    assert predicted_s(tmp_path, source, {"allreduce": X, "bcast": 2 * X}) - base == \
        pytest.approx(ROUND_TRIPS * 3 * X, rel=1e-9)


def test_uppercase_calls_owe_nothing(tmp_path):
    """Send and Recv run the lowercase code inside them: it is not a top-level lowercase call."""
    every = {"send": X, "recv": X, "isend": X, "irecv": X}
    assert predicted_s(tmp_path, pingpong(UPPER, upper=True), every) == \
        predicted_s(tmp_path, pingpong(UPPER, upper=True))
    upper = UPPER_COLLECTIVES.format(n=ROUND_TRIPS)
    assert predicted_s(tmp_path, upper, {"allreduce": X, "bcast": X}) == predicted_s(tmp_path, upper)


def test_no_setting_and_no_cost_predict_the_same(tmp_path):
    base = predicted_s(tmp_path, pingpong(LOWER))
    assert predicted_s(tmp_path, pingpong(LOWER), {}) == base
    assert predicted_s(tmp_path, pingpong(LOWER), {"send": 0}) == base


def test_a_model_owes_no_object_cost():
    """A model's lowercase calls are PPT's own API, not mpi4py's pickling layer: the same preset with costs
    predicts the same for a model program (as ``ppt pingpong`` runs)."""
    def model(mpi):
        comm = mpi.COMM_WORLD
        peer = 1 - comm.rank
        for _ in range(ROUND_TRIPS):
            if comm.rank == 0:
                comm.send(None, peer, 7, nbytes=8)
                comm.recv(source=peer, tag=7)
            else:
                comm.recv(source=peer, tag=7)
                comm.send(None, peer, 7, nbytes=8)

    def model_s(costs):
        preset = copy.deepcopy(load_system("edison"))
        if costs is not None:
            preset.setdefault("mpi", {})["object_overhead_s"] = costs
        return MPIJob.on_machine(Machine(preset, network_kind="analytic"), 2, 1).run(model).predicted_s

    assert model_s({"send": X, "recv": X}) == model_s(None)


def test_each_top_level_call_owes_its_call_cost_and_a_lowercase_one_its_object_cost_too(tmp_path):
    upper, lower = UPPER_COLLECTIVES.format(n=ROUND_TRIPS), COLLECTIVES.format(n=ROUND_TRIPS)
    costs = {"MPI_Allreduce": X, "MPI_Bcast": 2 * X, "MPI_Barrier": 4 * X}
    assert predicted_s(tmp_path, upper, costs, "call_overhead_s") - predicted_s(tmp_path, upper) == \
        pytest.approx(ROUND_TRIPS * 3 * X, rel=1e-9)
    preset = copy.deepcopy(load_system("edison"))
    preset["mpi"] = dict(preset.get("mpi", {}), call_overhead_s=costs, object_overhead_s={"allreduce": X})
    program = tmp_path / "prog.py"
    program.write_text(textwrap.dedent(lower))
    job = MPIJob.on_machine(Machine(preset, network_kind="analytic"), 2, 1)
    both = exec_program(job, ExecOptions(str(program), compute="none")).result.predicted_s
    assert both - predicted_s(tmp_path, lower) == pytest.approx(ROUND_TRIPS * 4 * X, rel=1e-9)


def test_a_call_cost_of_an_unknown_call_is_refused(tmp_path):
    from ppt.errors import ConfigError
    with pytest.raises(ConfigError, match="mpi.call_overhead_s names 'MPI_Barier', not one of MPI_Sendrecv"):
        predicted_s(tmp_path, COLLECTIVES.format(n=1), {"MPI_Barier": X}, "call_overhead_s")
