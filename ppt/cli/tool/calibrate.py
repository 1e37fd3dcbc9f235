"""``ppt calibrate``: measure this host with real MPI and write the ``host`` system preset.

Measures (``ppt.hardware.calibrate``) the on-node MPI ping-pong under
``mpiexec -n 2``, the memory copy bandwidth, the cores and the processor;
fits the preset's MPI and node-memory parameters (``ppt.hardware.hostpreset``)
and writes two files: the system preset (default ``host.json`` in the user's
preset folder, ``$PPT_HOME/systems`` or ``~/.config/ppt/systems``, where
``--system host`` finds it) and its processor preset beside it
(``host.processor.json``).  Both are written to temporary files first and
renamed into place, so an interrupted or failed run leaves no partial preset.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from ppt.cli.output import add_json_flag, emit

#: rms relative error of the ping-pong fit above which the measurement is called disturbed (a quiet
#: run of this 2-core host fits to 3-7 %, one under a load average of 7 to 54 %).
NOISY_FIT = 0.25

HELP = "measure this host (MPI ping-pong, memory copy, cores) and write the 'host' system preset"


def add_arguments(parser) -> None:
    parser.add_argument("--out", default=None, metavar="FILE.json",
                        help="where to write the preset (default: host.json in $PPT_HOME/systems or "
                             "~/.config/ppt/systems, where '--system host' finds it); its processor preset "
                             "goes beside it as FILE.processor.json")
    parser.add_argument("--quick", action="store_true",
                        help="fewer sizes and repeats (a few seconds, for tests; noisier)")
    add_json_flag(parser)


def run(args) -> int:
    from ppt.errors import PPTError
    from ppt.hardware import calibrate, hostpreset
    from ppt.hardware.systems import user_systems_dir
    started = time.perf_counter()
    target = Path(args.out) if args.out else user_systems_dir() / "host.json"
    if target.suffix != ".json":
        raise PPTError(f"--out {args.out}: give a file name ending in .json (--system loads .json presets)")
    if not args.out:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PPTError(f"cannot create the preset folder {target.parent}: {exc.strerror or exc}") from None
    _probe_writable(target, "--out" if args.out else "preset folder")
    processor_file = target.with_name(f"{target.stem}.processor.json")

    plan = calibrate.Plan(args.quick)
    info = calibrate.host_info()
    _say(f"host: {info['processor_name']}, {info['cores']} cores")
    mpiexec = calibrate.find_mpiexec()
    _say(f"MPI ping-pong: {len(plan.sizes)} sizes x {plan.rounds} rounds under '{Path(mpiexec).name} -n 2' ...")
    pingpong = calibrate.pingpong(plan, mpiexec)
    _say(f"memory copy: {plan.copy_B >> 20} MiB arrays, {plan.copy_repeats} repeats, 1 and {info['cores']} cores ...")
    copy = calibrate.memory_copy(plan, info["cores"])
    rows = pingpong["results"]
    try:
        fit = hostpreset.fit_pingpong([r["bytes"] for r in rows], [r["min_s"] for r in rows])
    except ValueError as exc:
        raise PPTError(f"the ping-pong times could not be fitted: {exc}") from None

    command = " ".join(["ppt calibrate", *(["--quick"] if args.quick else []),
                        *(["--out", target.name] if args.out else [])])
    version = _version()
    preset = hostpreset.build(info, pingpong, copy, fit, processor_file.name, command=command, version=version)
    date = preset["calibration"]["date"]
    processor = hostpreset.processor(info, copy, fit, date[:10])
    from ppt import provenance
    from ppt.hardware import hostcalls
    from ppt.hardware.systems import load_system
    _say("each call against the preset's model ...")
    calls = hostcalls.with_call_costs(pingpong["calls"], _modelled_s(preset, processor, target, processor_file))
    preset["mpi"]["call_overhead_s"] = hostcalls.call_overheads(calls)
    preset["calibration"]["calls"] = pingpong["calls"] = calls
    _write_both(target, preset, processor_file, processor)
    _say(f"wrote {target} and {processor_file.name} in {time.perf_counter() - started:.1f} s")
    provenance.note_machine(load_system(str(target)), None, None)   # --json's provenance: the preset written
    warnings = []
    load = info["load_average_1min"]
    if load is not None and load > info["cores"] - 0.5:
        warnings.append(f"the load average was {load:.2f} on {info['cores']} cores: other processes were "
                        f"running, so the measured times include waits for a core")
    if fit["rms_relative_error"] > NOISY_FIT:
        warnings.append(f"the fit misses the measured times by {100 * fit['rms_relative_error']:.0f} % (rms): "
                        f"the measurement was disturbed; rerun 'ppt calibrate' on a quieter machine")
    for text in warnings:
        print(f"calibrate: warning: {text}", file=sys.stderr)

    from ppt.hardware.segments import segment_of
    found = fit["segments"]
    table = [[r["bytes"], r["min_s"] * 1e6, r["median_s"] * 1e6, r["model_s"] * 1e6,
              100.0 * (r["model_s"] / r["min_s"] - 1.0), segment_of(found, r["bytes"]) + 1,
              "" if r["bytes"] <= fit["sizes_up_to_B"] else "not fitted"]
             for r in preset["calibration"]["pingpong"]]
    result = {"version": version, "system": "host", "command": "calibrate", "preset": str(target), "warnings": warnings,
              "processor_preset": str(processor_file), "host": preset["calibration"]["host"],
              "pingpong": preset["calibration"]["pingpong"], "calls": pingpong["calls"], "memory_copy": copy, "fit": fit,
              "preset_fields": {"mpi": preset["mpi"], "network.shm_latency_s": preset["network"]["shm_latency_s"],
                                "memory.copy_bandwidth_Bps": 2.0 * fit["bandwidth_Bps"], "node.cores": info["cores"]}}
    if not args.json:
        print(f"host: {info['processor_name']}, {info['cores']} cores; preset {target}")
        print(f"memory copy (STREAM Copy, best of {copy['repeats']}): 1 core {copy['core_copy_bandwidth_Bps'] / 1e9:.3g} GB/s, "
              f"{copy['processes']} cores {copy['node_copy_bandwidth_Bps'] / 1e9:.3g} GB/s")
        _print_wrapped(f"fit: latency {fit['latency_s'] * 1e6:.3g} us (copy {fit['shm_latency_s'] * 1e6:.3g} us + "
                       f"overheads {fit['overhead_s'] * 1e6:.3g} us), bandwidth {fit['bandwidth_Bps'] / 1e9:.3g} GB/s, "
                       f"eager up to {fit['eager_threshold_B']} B, rms error {100 * fit['rms_relative_error']:.1f} % "
                       f"(sizes up to {fit['sizes_up_to_B']} B)")
        print(f"segments found in the measured curve (rms error {100 * fit['segments_rms_relative_error']:.1f} %):")
        for number, segment in enumerate(found, 1):
            _print_wrapped(_segment_line(number, segment), "  ")
        print()
        _print_calls(pingpong["calls"])
    emit(args, result, ["bytes", "min_us", "median_us", "model_us", "model_err_%", "segment", "note"], table,
         title=None if args.json else "MPI ping-pong, one-way time, 2 ranks on this host (model: the preset's fit)")
    return 0


def _print_calls(calls: list[dict]) -> None:
    """The call kinds' times, what the model predicts for the buffer calls and what is left as each call's
    overhead, and what mpi4py's object layer adds to the lowercase ones."""
    from ppt.cli.output import format_table

    def us(row, key):
        return row[key] * 1e6 if key in row else ""
    rows = [[c["kind"], c["per"], us(c, "min_s"), us(c, "median_s"), us(c, "model_s"), us(c, "call_overhead_s"),
             us(c, "object_overhead_s")] for c in calls]
    print("mpi4py calls, 8 bytes or a float, 2 ranks (model_us: the preset's prediction;")
    print("call_us: the rest, charged per call; object_us: a lowercase call over its twin)")
    print(format_table(["call", "per", "min_us", "median_us", "model_us", "call_us", "object_us"], rows))
    print()


def _print_wrapped(text: str, indent: str = "") -> None:
    """``text`` in lines of at most 80 columns, the first indented by ``indent``, the rest by two more."""
    import textwrap
    print(textwrap.fill(text, 80, initial_indent=indent, subsequent_indent=indent + "  "))


def _segment_line(number: int, segment: dict) -> str:
    """One segment of the measured curve: its sizes, line, and both fits' rms errors."""
    bandwidth = segment["bandwidth_Bps"]
    rate = f"{bandwidth / 1e9:.3g} GB/s" if bandwidth else "no size term"
    preset = (f"preset {100 * segment['preset_rms_relative_error']:.1f} %" if segment["in_preset"]
              else f"preset {100 * segment['preset_rms_relative_error']:.1f} % (not fitted: one bandwidth only)")
    return (f"{number}: {segment['from_B']}-{segment['to_B']} B, "
            f"{segment['latency_s'] * 1e6:.3g} us + {rate}; rms error: line {100 * segment['rms_relative_error']:.1f} %, "
            f"{preset}")


def _say(text: str) -> None:
    if not os.environ.get("PPT_QUIET"):
        print(f"calibrate: {text}", file=sys.stderr, flush=True)


def _version() -> str:
    from ppt.provenance import version
    return version()


def _probe_writable(target: Path, option: str) -> None:
    """PPTError now, before measuring, unless a file can be created beside ``target``."""
    from ppt.errors import PPTError
    if target.is_dir():
        raise PPTError(f"{option} {target}: is a folder; give a file name such as {target / 'host.json'}")
    folder = target.parent
    if not folder.is_dir():
        raise PPTError(f"{option} {target}: folder {folder} does not exist; create it or choose another path")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{target.name}.", suffix=".probe"):
            pass
    except OSError as exc:
        raise PPTError(f"{option} {target}: cannot write there ({exc.strerror or exc}); choose a writable path") from None


def _modelled_s(preset: dict, processor: dict, target: Path, processor_file: Path) -> dict:
    """What ``preset`` (not written yet, with no call overheads) predicts for each call the calibration timed,
    s per call by MPI call, on the network kind ``ppt exec`` runs; its files are written to a scratch folder
    only, to be loaded as ``--system`` loads them."""
    from ppt.hardware.callmodel import modelled_s
    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    from ppt.mpi import MPIJob
    with tempfile.TemporaryDirectory() as scratch:
        system_file = Path(scratch) / target.name
        _write_both(system_file, preset, Path(scratch) / processor_file.name, processor)
        return modelled_s(MPIJob.on_machine(Machine(load_system(str(system_file)), "packet"), 2))


def _write_both(target: Path, preset: dict, processor_file: Path, processor: dict) -> None:
    """Write both presets through temporary files renamed into place (the processor first: the system
    preset names it), so no partial file is ever left at either name."""
    import json
    from ppt.errors import PPTError
    temps = []
    try:
        for path, data in ((processor_file, processor), (target, preset)):
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            temps.append(temp)
            with os.fdopen(fd, "w") as fh:
                json.dump(data, fh, indent=2)
                fh.write("\n")
        os.replace(temps[0], processor_file)
        os.replace(temps[1], target)
        temps.clear()
    except OSError as exc:
        raise PPTError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        for temp in temps:
            try:
                os.unlink(temp)
            except OSError:
                pass
