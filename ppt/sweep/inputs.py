"""What decides a sweep point's result besides its command line, for its cache key: PPT's version, the
hash of the preset as the point resolves it, and the content of every file the point reads (its script,
program, trace set, job list and the scripts and traces of its jobs, mapping and failure files).

A stored point whose inputs differ (an edited script, a changed preset file, another PPT version) is
not the same point, so a rerun computes it again instead of returning the old numbers.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from ppt.errors import ConfigError
from ppt.provenance import preset_sha256, version

#: Read files in blocks of this many bytes (trace files can be large).
BLOCK_B = 1 << 20


def file_sha256(path: str, what: str) -> str:
    """SHA-256 of the file ``path``; a missing or unreadable file is a one-line ConfigError naming ``what``.
    A file is read once while its size and modification time stay the same (the points of a sweep share
    their trace or script)."""
    file = Path(path)
    if file.is_dir():
        raise ConfigError(f"{what} {path}: is a folder, not a file")
    try:
        stat = file.stat()
    except OSError:
        return _sha256(path, what)              # says why in its own words
    return _cached_sha256(str(file.resolve()), stat.st_size, stat.st_mtime_ns, what)


def forget_hashes() -> None:
    """Read every file again from now on (a sweep starts with fresh hashes: a file edited within one
    modification-time tick, to the same size, is not mistaken for the old one across sweeps)."""
    _cached_sha256.cache_clear()


@functools.lru_cache(maxsize=4096)
def _cached_sha256(path: str, size: int, mtime_ns: int, what: str) -> str:
    return _sha256(path, what)


def _sha256(path: str, what: str) -> str:
    file = Path(path)
    digest = hashlib.sha256()
    try:
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(BLOCK_B), b""):
                digest.update(block)
    except FileNotFoundError:
        raise ConfigError(f"{what} {path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{what} {path}: cannot be read: {exc.strerror or exc}") from None
    return digest.hexdigest()


def files_of(command: str, args) -> dict[str, str]:
    """The files a point of ``command`` (parsed arguments ``args``) reads, as {role: path}."""
    files = {}
    if command == "run" and getattr(args, "script", None):
        files["script"] = args.script
    if command == "exec" and getattr(args, "program", None):
        files["program"] = args.program
    if getattr(args, "job_list", None):
        files["job_list"] = args.job_list
    mapping = getattr(args, "mapping", None)
    if mapping and mapping not in ("linear", "round-robin", "random"):
        files["mapping"] = mapping
    if getattr(args, "fail_file", None):
        files["fail_file"] = args.fail_file
    return files


def trace_files(trace: str) -> list[str]:
    """The files of trace ``trace``: a DUMPI set's .meta file and one .bin per rank; of another format
    (an op-stream folder, a ``sample:NAME``, ...) the file, or every file in its folder."""
    from ppt.traces.bundled import resolve
    from ppt.traces.formats import format_of
    path = resolve(trace)
    if format_of(path).name == "dumpi":
        from ppt.traces.readers.dumpi import TraceSet
        traces = TraceSet(path)
        return [traces.meta_path, *traces.rank_files]
    if Path(path).is_dir():
        return sorted(str(f) for f in Path(path).iterdir() if f.is_file() and not f.name.startswith("."))
    return [path]


def inputs_of(command: str, args, preset: dict | None) -> dict:
    """The inputs of one point: ``version``, ``preset_sha256`` and ``files`` ({role or path: sha256})."""
    hashed = {role: file_sha256(path, "--" + role.replace("_", "-") if role in ("job_list", "mapping", "fail_file")
                                else role)
              for role, path in files_of(command, args).items()}
    if command == "replay" and getattr(args, "trace", None):
        for path in trace_files(args.trace):
            hashed[f"trace {Path(path).name}"] = file_sha256(path, "trace file")
    if getattr(args, "job_list", None):            # the scripts and traces its jobs run
        from ppt.jobs.joblist import read_job_list
        for job in read_job_list(args.job_list).jobs:
            if job.options.get("script"):
                hashed[f"job {job.name} script"] = file_sha256(job.options["script"], f"job {job.name} script")
            if job.options.get("trace"):
                for path in trace_files(job.options["trace"]):
                    hashed[f"job {job.name} trace {Path(path).name}"] = file_sha256(path, "trace file")
    return {"version": version(), "preset_sha256": preset_sha256(preset) if preset is not None else None,
            "files": hashed}
