"""``ppt exec``: a rank's ``time`` and ``datetime`` tell its simulated time, as SMPI's clocks do for C.

The programs annotate their compute time (``--compute none``), so every
reading has a closed form: the annotated seconds, the slept seconds and
nothing else.
"""
import datetime as real_datetime
import time as real_time

import pytest

from test_exec import exec_in_process, lines_of, write

READINGS = """
    import sys
    import time
    import datetime
    from time import perf_counter, perf_counter_ns
    from datetime import datetime as dt
    from mpi4py import MPI
    from ppt import hint

    clocks = [time.time, time.perf_counter, time.monotonic, time.process_time, time.thread_time]
    start = [clock() for clock in clocks]
    start_ns, start_dt = perf_counter_ns(), dt.now()
    hint.compute(0.25)                          # compute time
    time.sleep(0.5 * (MPI.COMM_WORLD.rank + 1))   # idle time
    print(*[repr(clock() - first) for clock, first in zip(clocks, start)], perf_counter_ns() - start_ns,
          (dt.now() - start_dt).total_seconds(), repr(MPI.Wtime()))
    print(sys.modules["time"].perf_counter is not time.perf_counter, type(dt.now()) is dt)
"""


def test_every_clock_of_a_rank_reads_its_simulated_time(tmp_path, capsys):
    program = write(tmp_path, "prog.py", READINGS)
    outcome = exec_in_process(program)
    out = capsys.readouterr().out
    for rank in range(2):
        elapsed_s = 0.25 + 0.5 * (rank + 1)
        readings, checks = lines_of(out, rank)
        *seconds, ns, delta, wtime = readings.split()
        assert [float(s) for s in seconds] == pytest.approx([elapsed_s] * 5, abs=1e-9)
        assert int(ns) == round(elapsed_s * 1e9) and float(delta) == pytest.approx(elapsed_s, abs=1e-6)
        assert float(wtime) == pytest.approx(elapsed_s, abs=1e-9)
        assert checks == "True True"          # the process's own time module keeps the host's clocks
    per_rank = outcome.result.per_rank
    assert [entry["compute_s"] for entry in per_rank] == [0.25, 0.25]      # a sleep is not compute
    assert outcome.result.predicted_s == pytest.approx(1.25, abs=1e-9)


def test_wall_clocks_start_at_the_hosts_time_when_the_run_began(tmp_path, capsys):
    program = write(tmp_path, "prog.py", """
        import time, datetime
        from mpi4py import MPI
        time.sleep(3600)
        print(repr(time.time()), time.localtime().tm_hour == datetime.datetime.now().hour,
              datetime.date.today() == datetime.datetime.now().date(), time.strftime("%Y") == str(time.gmtime().tm_year))
    """)
    before = real_time.time()
    exec_in_process(program, ranks=1)
    after = real_time.time()
    wall, *checks = lines_of(capsys.readouterr().out, 0)[0].split()
    assert before + 3600 <= float(wall) <= after + 3600
    assert checks == ["True", "True", "True"]


def test_a_datetime_of_a_rank_travels_in_a_message_as_pythons_own(tmp_path, capsys):
    program = write(tmp_path, "prog.py", """
        from datetime import datetime, date
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.send((datetime(2020, 1, 2, 3, 4, 5), date(2021, 6, 7)), dest=1)
        else:
            got = comm.recv(source=0)
            print(repr(got), isinstance(got[0], datetime))
    """)
    exec_in_process(program)
    assert lines_of(capsys.readouterr().out, 1) == [
        f"({real_datetime.datetime(2020, 1, 2, 3, 4, 5)!r}, {real_datetime.date(2021, 6, 7)!r}) True"]


@pytest.mark.parametrize("call, error", [
    ("time.sleep(-1)", "ValueError: sleep length must be non-negative"),
    ("time.sleep('1')", "TypeError: 'str' object cannot be interpreted as an integer"),
    ("time.sleep(float('nan'))", "ValueError: Invalid value NaN (not a number)"),
])
def test_a_bad_sleep_raises_what_python_raises(tmp_path, capfd, call, error):
    program = write(tmp_path, "prog.py", f"import time\nfrom mpi4py import MPI\n{call}\n")
    assert exec_in_process(program, ranks=1).status == 1
    assert capfd.readouterr().err.splitlines()[-1] == f"[0] {error}"
    with pytest.raises(Exception, match=error.split(": ", 1)[1].replace("(", r"\(").replace(")", r"\)")):
        eval(call, {"time": real_time})
