"""PPT from Python: build a machine, then run a model, an mpi4py program, a trace or a traffic pattern on it.

The notebook-friendly entry point, equivalent to the ``ppt`` command line
(``ppt run``, ``ppt exec``, ``ppt replay``, ``ppt traffic``) and running the
same code::

    import ppt.api

    edison = ppt.api.machine("edison", set={"network.routing": "ugal"}, network="packet", seed=0)

    def main(mpi):                                     # every rank runs it, as in 'ppt run'
        mpi.compute([("fALU", 1_000_000)])
        mpi.COMM_WORLD.allreduce(1.0, op=mpi.SUM, nbytes=8)

    result = edison.run(main, ranks=48, ranks_per_node=24)
    result.predicted_s                                 # seconds
    result.to_dict()                                   # what 'ppt run --json' prints
    result.to_pandas()                                 # one row per rank (needs pandas)

    edison.exec("prog.py", ranks=4, args=["--steps", "10"])     # an unmodified mpi4py program
    edison.replay("traces/npb_ft_W_n4", ranks_per_node=1)       # an SST-DUMPI trace set
    edison.traffic(pattern="ur", load=0.5, warmup=1e-6, time=2e-6)

Errors are :class:`~ppt.errors.PPTError` (one line, as the command prints
them).  Notes such as the placement of ranks go to the ``ppt`` logger
(:mod:`ppt.log`); times are in seconds and sizes in bytes throughout.
"""
from __future__ import annotations

import contextlib
import copy
import json
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter

from ppt.errors import PPTError

__all__ = ["machine", "Machine", "Result"]


def machine(system: str, set: dict | None = None, *, network: str = "packet", seed: int = 0) -> "Machine":
    """A simulated machine from a system preset.

    Args:
        system: a preset name (see ``ppt systems``) or the path of a ``.json`` preset file.
        set: preset fields to override, by dotted key, e.g. ``{"network.routing": "ugal",
            "topology.g": 9, "network.fail_links": "5%"}`` (as ``--set KEY=VALUE``; a misspelled
            key is an error naming the nearest valid one).
        network: the network model: ``"packet"`` (packet level), ``"flow"`` (max-min fair
            sharing of links and NICs) or ``"analytic"`` (contention-free).
        seed: random seed (random mappings, failure draws, adaptive routing, traffic).
    """
    from ppt.cli.common import read_system
    from ppt.machine import Machine as Model
    _expect("system", system, (str, Path), "a preset name or a .json path")
    _expect("set", set, (dict, type(None)), "a dict of dotted key -> value, e.g. {'network.routing': 'ugal'}")
    _expect("network", network, (str,), "'packet', 'flow' or 'analytic'")
    _expect("seed", seed, (int,), "a whole number")
    overrides = [f"{key}={value if isinstance(value, str) else json.dumps(value)}"
                 for key, value in (set or {}).items()]
    preset = read_system(str(system), overrides)
    return Machine(Model(preset, network_kind=network, seed=seed))


def _expect(name: str, value, kinds: tuple, what: str) -> None:
    """PPTError (one line) unless ``value`` of argument ``name`` is one of ``kinds`` (a bool is no number)."""
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise PPTError(f"{name} must be {what}, not {type(value).__name__} {value!r}")


class Machine:
    """A system preset assembled into a network and a node model, ready to run jobs on.

    Build one with :func:`machine`.  Every run gets a fresh network, so one
    machine can run many jobs, one after the other.
    """

    def __init__(self, model):
        #: The :class:`ppt.machine.Machine` behind it (preset, topology, node model).
        self.model = model

    @property
    def name(self) -> str:
        """The preset's name."""
        return self.model.name

    @property
    def preset(self) -> dict:
        """The preset as a dict, with the overrides applied."""
        return self.model.preset

    @property
    def network(self) -> str:
        """The network model: ``packet``, ``flow`` or ``analytic``."""
        return self.model.network_kind

    @property
    def cores_per_node(self) -> int:
        """Cores of one node: the default ranks per node."""
        return self.model.cores_per_node

    @property
    def num_nodes(self) -> int:
        """Nodes of the machine (builds the topology)."""
        return self.model.num_nodes

    def __repr__(self) -> str:
        return f"<ppt machine {self.name!r}, {self.network} network, seed {self.model.seed}>"

    # -- jobs ------------------------------------------------------------------------------------
    def _job(self, ranks: int, ranks_per_node, mapping: str, algorithms, threads_per_rank: int = 1):
        from ppt.mpi import MPIJob
        if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
            raise PPTError(f"ranks must be a whole number of at least 1, got {ranks!r}")
        return MPIJob.on_machine(self.model, ranks, ranks_per_node, mapping, self.model.seed,
                                 dict(algorithms or {}), threads_per_rank=threads_per_rank)

    def run(self, main: Callable | str | Path, ranks: int, *, ranks_per_node: int | None = None,
            mapping: str = "linear", algorithms: dict | None = None, argv: Sequence[str] = (),
            threads_per_rank: int = 1,
            sample_every: float | None = None, samples: str | None = None) -> "Result":
        """Run a model on ``ranks`` simulated ranks, as ``ppt run`` does.

        Args:
            main: the function every rank runs, ``main(mpi)`` (see :mod:`ppt.mpi.surface.api`), or the path
                of a script defining it.
            ranks: number of MPI ranks.
            ranks_per_node: ranks placed on each node (default: one per core).
            mapping: ``linear``, ``round-robin``, ``random`` (uses the machine's seed) or a file
                listing one node per rank.
            algorithms: collective algorithms by collective, e.g. ``{"allreduce": "ring"}``.
            argv: arguments the model sees as ``mpi.argv`` (a list of strings).
            threads_per_rank: cores each rank computes on (a tasklist is split over them).
            sample_every: record per-port and per-NIC time series every this many simulated
                seconds (packet network), into ``samples`` (default ``samples.npz``).
            samples: the ``.npz`` file of the time series (read it with ``ppt plot``).

        Returns:
            A :class:`Result` of kind ``run``: ``predicted_s``, ``per_rank``, ``calls``,
            ``network``; ``returns`` holds every rank's return value.
        """
        from ppt.cli.common import report_placement
        if isinstance(main, (str, Path)):
            from ppt.scripts import load_main
            main = load_main(str(main))
        if not callable(main):
            raise PPTError(f"main must be a function main(mpi) or a script's path, got {main!r}")
        began = perf_counter()
        job = self._job(ranks, ranks_per_node, mapping, algorithms, threads_per_rank)
        with self._sampling(sample_every, samples) as job.sampler:
            result = job.run(main, argv=[str(a) for a in argv])
        report_placement(job)
        return Result("run", {**result.as_json(), "provenance": self._provenance("run", began)},
                      returns=result.returns)

    def exec(self, program: str | Path, ranks: int, *, args: Sequence = (), ranks_per_node: int | None = None,
             mapping: str = "linear", algorithms: dict | None = None, compute: str = "measured",
             compute_scale: float = 1.0, output_dir: str | None = None) -> "Result":
        """Run an unmodified mpi4py program on ``ranks`` simulated ranks, as ``ppt exec`` does.

        Every rank runs ``program`` as ``__main__`` with ``args`` as its ``sys.argv[1:]``; what a rank
        prints appears on this process's stdout and stderr, as under ``mpiexec`` (or in
        ``output_dir/rank.R.out`` and ``rank.R.err``).

        Args:
            program: the program's path.
            ranks: number of MPI ranks (``mpiexec -n``).
            args: the program's own arguments (strings, or values turned into strings).
            ranks_per_node: ranks placed on each node (default: one per core).
            mapping: rank-to-node mapping, as for :meth:`run`.
            algorithms: collective algorithms by collective, as for :meth:`run`.
            compute: ``measured`` (each rank's CPU time between MPI calls becomes compute time,
                times ``compute_scale``) or ``none`` (only ``ppt.hint.compute`` annotations).
            compute_scale: simulated seconds per second of this host's CPU time.
            output_dir: a folder for each rank's ``rank.R.out`` and ``rank.R.err``.

        Returns:
            A :class:`Result` of kind ``exec`` (the fields of :meth:`run`, with ``program``,
            ``program_args``, ``compute``, ``compute_scale``, ``exit_status``, the status mpiexec
            would exit with: the bitwise OR of the ranks' statuses, 1 for a rank that raised, N
            for one that called ``sys.exit(N)``, and ``rank_exit_statuses``, the non-zero ones).

        Raises:
            ppt.exec.program.ProgramExit: ranks were left blocked after another exited with a
                non-zero status.
            ppt.mpi.errors.AbortCalled: a rank called ``MPI_Abort``.
        """
        from ppt.cli.common import report_placement
        from ppt.exec.runner import ExecOptions, exec_program
        began = perf_counter()
        program_args = tuple(str(a) for a in args)
        options = ExecOptions(str(program), program_args, compute, compute_scale, output_dir)
        job = self._job(ranks, ranks_per_node, mapping, algorithms)
        outcome = exec_program(job, options)
        result = outcome.result
        report_placement(job)
        return Result("exec", {**result.as_json(), "program": str(program), "program_args": list(program_args),
                               "compute": compute, "compute_scale": compute_scale, **outcome.summary(),
                               "provenance": self._provenance("exec", began)}, returns=result.returns)

    def replay(self, trace: str, *, ranks_per_node: int | None = None, mapping: str = "linear",
               compute_scale: float = 1.0, compute_clock: str = "auto", keep_startup: bool = False,
               skip_unsupported: bool = False, sample_every: float | None = None,
               samples: str | None = None) -> "Result":
        """Replay a trace, one simulated rank per traced rank, as ``ppt replay`` does.

        Args:
            trace: a trace in any format ``ppt replay`` reads (a DUMPI set's folder, ``.meta`` file or
                file prefix, an op-stream folder, ...), or a sample as ``sample:NAME`` (``ppt samples``).
            ranks_per_node: ranks placed on each node (default: one per core).
            mapping: rank-to-node mapping, as for :meth:`run`.
            compute_scale: multiplies the recorded gaps between calls (0: communication only).
            compute_clock: ``auto``, ``wall`` or ``cpu``: the clock the gaps are read on
                (:func:`ppt.traces.replay.choose_clock`).
            keep_startup: replay the time before each rank's ``MPI_Init`` ended as compute.
            skip_unsupported: leave out calls replay does not support instead of refusing the trace.
            sample_every: sampling interval of the network's time series, seconds (as for :meth:`run`).
            samples: the ``.npz`` file of the time series.

        Returns:
            A :class:`Result` of kind ``replay`` (the summary of :func:`ppt.traces.replay.replay`:
            ``predicted_s``, ``trace_s``, ``per_rank``, ``calls``, the compute clock, ...).
        """
        from ppt.cli.common import report_placement
        from ppt.log import logger
        from ppt.traces.formats import open_trace
        from ppt.traces.replay import replay
        began = perf_counter()
        trace_set = open_trace(str(trace))
        job = self._job(trace_set.num_ranks, ranks_per_node, mapping, None)
        with self._sampling(sample_every, samples) as job.sampler:
            summary = replay(trace_set, job, compute_scale, skip_unsupported, None, keep_startup, compute_clock)
        logger.info(summary["compute_clock_reason"])
        report_placement(job)
        return Result("replay", {**summary, "provenance": self._provenance("replay", began)})

    def traffic(self, pattern: str = "ur", load: float = 0.5, *, routing: str | None = None,
                warmup: float = 20e-6, time: float = 100e-6, process: str = "exponential", windows: int = 10,
                early_stop: bool = True, latency_factor: float = 2.0, converge: float | None = None,
                sample_every: float | None = None, samples: str | None = None) -> "Result":
        """Synthetic traffic on the packet network: accepted load and latency, as ``ppt traffic`` does.

        Args:
            pattern: ``ur``, ``nn``, ``bitcomp``, ``transpose``, ``tornado`` or ``wc``.
            load: offered load, a fraction of each node's injection bandwidth in (0, 1].
            routing: routing algorithm (default: the preset's).
            warmup: seconds simulated before measuring.
            time: the measured window, seconds.
            process: ``exponential`` or ``bernoulli`` injection.
            windows: sub-windows of the measured window, checked for saturation.
            early_stop: stop once saturated (or converged, with ``converge``).
            latency_factor: saturated when window latency keeps rising to this times the first's.
            converge: stop once accepted load and latency are known to within this fraction.
            sample_every: sampling interval of the network's time series, seconds (as for :meth:`run`).
            samples: the ``.npz`` file of the time series.

        Returns:
            A :class:`Result` of kind ``traffic`` (``accepted_fraction``, ``mean_latency_s``,
            ``saturated``, ``link_classes``, ...); under ``mpiexec`` simulation ranks other than 0
            get an empty result.
        """
        from ppt.cli.network.traffic import SPEED_FIELDS, check_measurement
        from ppt.drivers.traffic import run_traffic
        for name, value in (("load", load), ("warmup", warmup), ("time", time), ("latency_factor", latency_factor)):
            _expect(name, value, (int, float), "a number")
        _expect("windows", windows, (int,), "a whole number")
        _expect("converge", converge, (int, float, type(None)), "a fraction or None")
        began = perf_counter()
        check_measurement(types.SimpleNamespace(latency_factor=latency_factor, converge=converge, windows=windows,
                                                early_stop=early_stop))
        with self._sampling(sample_every, samples) as sampler:
            result = run_traffic(self.model, pattern, load, routing, warmup, time, process, None,
                                 sampler=sampler, windows=windows, early_stop=early_stop,
                                 latency_factor=latency_factor, precision=converge)
        if result is None:                      # a simulation rank other than 0 under mpiexec
            return Result("traffic", {})
        for key in SPEED_FIELDS:                # the simulator's speed, left out as the command leaves it out
            result.pop(key, None)
        return Result("traffic", {**result, "provenance": self._provenance("traffic", began, "packet", routing)})

    def _provenance(self, method: str, began: float, network: str | None = None, routing: str | None = None) -> dict:
        """The ``provenance`` object the command's ``--json`` gives (see :mod:`ppt.provenance`), its
        ``command`` naming the method called and ``wall_s`` the time since ``began``."""
        from ppt.provenance import preset_sha256, version
        preset = self.preset
        return {"version": version(), "system": self.name, "preset_sha256": preset_sha256(preset),
                "network": network or self.network,
                "routing": routing or self.model.network_settings.routing,
                "seed": self.model.seed, "command": f"ppt.api Machine.{method}",
                "wall_s": perf_counter() - began}

    def _sampling(self, sample_every, samples):
        """The sampler context of the command line (:func:`ppt.cli.common.sampling`), or none."""
        if sample_every is None and samples is None:
            return contextlib.nullcontext()
        from ppt.cli.common import sampling
        options = types.SimpleNamespace(sample_every=sample_every, samples=samples, sample_level=None)
        return sampling(options, self.name)


class Result:
    """The outcome of one run: the fields ``ppt ... --json`` prints, in :attr:`data`.

    Fields read as items (``result["calls"]``); ``predicted_s`` is also an attribute.
    """

    def __init__(self, kind: str, data: dict, returns: list | None = None):
        #: ``run``, ``exec``, ``replay`` or ``traffic``.
        self.kind = kind
        #: The result's fields (JSON-ready).
        self.data = data
        #: Every rank's return value of ``main``, by world rank (runs only).
        self.returns = returns

    @property
    def predicted_s(self) -> float | None:
        """Predicted run time, seconds (None for traffic)."""
        return self.data.get("predicted_s")

    def __getitem__(self, key: str):
        return self.data[key]

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def keys(self):
        """The result's field names."""
        return self.data.keys()

    def __repr__(self) -> str:
        if self.predicted_s is not None:
            return f"<ppt {self.kind} result: {self.data.get('ranks')} ranks, predicted {self.predicted_s:.6g} s>"
        if "accepted_fraction" in self.data:
            return (f"<ppt traffic result: accepted {self.data['accepted_fraction']:.4g}, "
                    f"mean latency {self.data['mean_latency_s']:.4g} s>")
        return f"<ppt {self.kind} result>"

    def to_dict(self) -> dict:
        """A deep copy of the fields: what ``--json`` prints for the same run, with a ``provenance``
        object (PPT's version, the preset's hash, network, routing, seed, wall time) whose ``command``
        names the method called."""
        return copy.deepcopy(self.data)

    def to_pandas(self):
        """A :class:`pandas.DataFrame`: one row per rank for runs, programs and replays (a rank's
        calls as ``calls.MPI_...`` columns); one row of the scalar fields for traffic.

        Needs pandas (``pip install pandas``).
        """
        pandas = _pandas()
        if "per_rank" in self.data:
            return pandas.json_normalize(self.data["per_rank"])
        return pandas.json_normalize([{k: v for k, v in self.data.items() if not isinstance(v, (list, dict))}])


def _pandas():
    """The pandas module, or a one-line ImportError saying how to install it."""
    try:
        import pandas
    except ImportError:
        raise ImportError("Result.to_pandas() needs pandas, which is not installed: pip install pandas") from None
    return pandas
