"""The README's five-minute tour, timed line by line, as a user would run it.

Reads the ``sh`` block under "## A five-minute tour" of README.md (so the
benchmark follows the README when it changes) and runs every line with
``bash -c`` in a fresh temporary folder, ``ppt`` first on the ``PATH`` as
``source .venv/bin/activate`` puts it.  The folder holds links to the
checkout's ``examples`` and ``traces`` (the lines name them relative to the
checkout) and is the run's ``PPT_HOME`` and cache, so ``ppt calibrate``
writes its ``host`` preset there, where the later ``ppt validate`` finds it,
and never into the user's own preset folder.  ``./cg`` for ``ppt record`` is
compiled first as docs/guide/record.md says (``mpicc -O2 -o cg
traces/samples/programs/cg.c``), timed apart from the tour.

Prints an 80-column table: each line (shortened), its wall time (the least
of ``--repeats`` runs, each repeat a whole tour in a new folder, since sweeps
with ``--out`` would reuse the points of the one before), its CPU time (user +
sys of the process and everything it waited for, of that same run), its exit
status and the warnings it wrote on stderr.  Then, for every line that chose
its network itself (``--network auto``: stderr names the choice, the traffic
and the estimated wall time of the packet network), the estimate against the
run's CPU time, and its packet-hop term against the CPU time beyond the same
line run again with ``--network analytic`` (which leaves out the packets
only: start-up, building the machine and the MPI layer are in both).  The
estimate is a one-core time, so CPU time is its measure; a run over several
processes (``ppt snap``'s core counts) takes less wall time.  ``--main`` also
runs the README's main command (the ``ppt snap`` strong-scaling run of "Two
commands", about a minute).

    python benchmarks/readme_tour.py [--repeats N] [--main] [--only WORD] [--json]

Time it with ``PYTHONDONTWRITEBYTECODE`` unset, as on a user's machine.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Width of the printed tables, columns.
WIDTH = 80
#: A tour line that runs longer than this is stopped and reported with exit status "timeout", s.
TIMEOUT_S = 900.0
#: A stderr line is a warning when it matches this.
WARNING = re.compile(r"\bwarn(ing)?\b", re.IGNORECASE)
#: The note of a command that chose its network (ppt.cli.common.pick_network): its estimate.
ESTIMATE = re.compile(r"network: (packet|flow) network: .*?about ([0-9.e+-]+) packet-hops.*?"
                      r"estimated ([0-9.e+-]+) s")


def tour_lines(readme: Path) -> list[str]:
    """The commands of the README's tour block, comments dropped."""
    text = readme.read_text(encoding="utf-8")
    match = re.search(r"^## A five-minute tour\n(.*?)^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    if not match:
        raise SystemExit(f"{readme.name}: no ```sh block under '## A five-minute tour'")
    return [without_comment(line) for line in match.group(2).splitlines() if line.strip()]


def main_command(readme: Path) -> str:
    """The README's main command: the ``ppt`` part of the first ``sh`` block of "## Two commands"."""
    text = readme.read_text(encoding="utf-8")
    match = re.search(r"^## Two commands\n.*?^```sh\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    if not match:
        raise SystemExit(f"{readme.name}: no ```sh block under '## Two commands'")
    for part in match.group(1).split("&&"):
        part = part.strip()
        if re.match(r"(\S*/)?ppt\s", part):
            return re.sub(r"^\S*/ppt", "ppt", part)
    raise SystemExit(f"{readme.name}: no ppt command in the first block of '## Two commands'")


def without_comment(line: str) -> str:
    """``line`` without its trailing ``# comment`` (a ``#`` after a blank, outside quotes)."""
    for match in re.finditer(r"\s#", line):
        before = line[:match.start()]
        if before.count("'") % 2 == 0 and before.count('"') % 2 == 0:
            return before.rstrip()
    return line.rstrip()


def prepare(folder: Path, env: dict) -> list[dict]:
    """Links to the checkout's ``examples`` and ``traces`` in ``folder``, and ``./cg`` compiled as
    docs/guide/record.md says; the preparation steps with their times."""
    for name in ("examples", "traces"):
        (folder / name).symlink_to(ROOT / name)
    steps = []
    mpicc = shutil.which("mpicc", path=env["PATH"])
    if mpicc:
        steps.append(run_line("mpicc -O2 -o cg traces/samples/programs/cg.c", folder, env))
    return steps


def skip_reason(line: str, folder: Path) -> str | None:
    """Why ``line`` cannot run in ``folder`` (None: it can)."""
    if re.search(r"\s\./cg\b", line) and not (folder / "cg").exists():
        return "no ./cg: mpicc missing or failed (docs/guide/record.md)"
    return None


def run_line(line: str, folder: Path, env: dict) -> dict:
    """Run ``line`` with bash in ``folder``: wall and CPU time, exit status, warnings and estimate."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        done = subprocess.run(["bash", "-c", line], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                              timeout=TIMEOUT_S)
        status, stderr = str(done.returncode), done.stderr
    except subprocess.TimeoutExpired as exc:
        status, stderr = "timeout", (exc.stderr or b"").decode(errors="replace") if isinstance(exc.stderr, bytes) \
            else (exc.stderr or "")
    wall_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    warnings = [text.strip() for text in stderr.splitlines() if WARNING.search(text)]
    estimate = ESTIMATE.search(stderr)
    row = {"command": line, "wall_s": wall_s, "cpu_s": cpu_s, "status": status, "warnings": warnings}
    if estimate:
        row["network"], row["estimate_s"] = estimate.group(1), float(estimate.group(3))
        row["packet_hops"] = float(estimate.group(2))
    if status != "0":
        row["stderr_tail"] = stderr.strip().splitlines()[-3:]
    return row


def environment(folder: Path) -> dict:
    """The user's environment with the checkout's virtualenv activated, ``folder`` as PPT_HOME and cache."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONDONTWRITEBYTECODE", "COLUMNS")}
    venv = Path(sys.prefix)
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PPT_HOME=str(folder / "ppt-home"), XDG_CACHE_HOME=str(folder / "cache"))
    return env


def run_tour(lines: list[str], main: str | None) -> tuple[list[dict], list[dict]]:
    """One whole tour in a new folder: (preparation steps, a row per line)."""
    with tempfile.TemporaryDirectory(prefix="ppt-tour-") as name:
        folder = Path(name)
        env = environment(folder)
        steps = prepare(folder, env)
        rows = []
        for line in ([main] if main else []) + lines:
            reason = skip_reason(line, folder)
            row = {"command": line, "status": "skipped", "reason": reason} if reason else run_line(line, folder, env)
            rows.append(row)
            print(f"  {row['status']:>7} {row.get('wall_s', 0):7.1f} s  {line[:60]}", file=sys.stderr, flush=True)
        for row in rows:
            if "estimate_s" in row:          # the same line on the analytic network: all but the packets
                analytic = run_line(with_network(row["command"], "analytic"), folder, env)
                row["analytic_wall_s"], row["analytic_cpu_s"] = analytic["wall_s"], analytic["cpu_s"]
        return steps, rows


def with_network(line: str, kind: str) -> str:
    """``line`` with ``--network kind`` (in place of any it gives)."""
    line = re.sub(r"\s--network[ =]\S+", "", line)
    return f"{line} --network {kind}"


def best_of(runs: list[list[dict]]) -> list[dict]:
    """Per line, the run with the least wall time (skipped lines as they are)."""
    best = []
    for rows in zip(*runs):
        timed = [row for row in rows if "wall_s" in row]
        best.append(min(timed, key=lambda row: row["wall_s"]) if timed else rows[0])
    return best


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns, the cut marked with '..'."""
    return text if len(text) <= width else text[:width - 2] + ".."


#: Short names of the warnings the tour's commands give, by a phrase of theirs.
WARNING_NAMES = (("warm-up", "warm-up short"), ("load average", "host busy"), ("other processes", "host busy"),
                 ("fit misses", "noisy fit"))


def short_warning(warnings: list[str]) -> str:
    """The warnings in a few words each ("warm-up short" for the traffic warning), once each."""
    words = []
    for text in warnings:
        name = next((short for phrase, short in WARNING_NAMES if phrase in text), None)
        name = name or " ".join(text.split(": ", 1)[-1].split()[:3])
        if name not in words:
            words.append(name)
    return ", ".join(words)


#: Columns of the tour table: command, then wall, CPU and exit status; the warnings get the rest.
COMMAND_W, NUMBER_W, STATUS_W = 37, 7, 7


def table(rows: list[dict]) -> str:
    """The 80-column table of the tour: command, wall, CPU, exit status, warnings."""
    warn_w = WIDTH - COMMAND_W - 2 * NUMBER_W - STATUS_W - 4
    lines = [f"{'command':<{COMMAND_W}} {'wall s':>{NUMBER_W}} {'cpu s':>{NUMBER_W}} {'exit':>{STATUS_W}} warnings",
             "-" * WIDTH]
    for row in rows:
        command = shorten(row["command"].removeprefix("ppt "), COMMAND_W)
        if row["status"] == "skipped":
            lines.append(f"{command:<{COMMAND_W}} {'':>{NUMBER_W}} {'':>{NUMBER_W}} {'skipped':>{STATUS_W}} "
                         f"{shorten(row['reason'], warn_w)}")
            continue
        lines.append(f"{command:<{COMMAND_W}} {row['wall_s']:{NUMBER_W}.1f} {row['cpu_s']:{NUMBER_W}.1f} "
                     f"{row['status']:>{STATUS_W}} {shorten(short_warning(row['warnings']), warn_w)}".rstrip())
    timed = [row for row in rows if "wall_s" in row]
    lines += ["-" * WIDTH, f"{'total (' + str(len(timed)) + ' lines run)':<{COMMAND_W}} "
              f"{sum(r['wall_s'] for r in timed):{NUMBER_W}.1f} {sum(r['cpu_s'] for r in timed):{NUMBER_W}.1f}"]
    return "\n".join(lines)


def estimate_table(rows: list[dict]) -> str:
    """``--network auto``'s estimate against the CPU time of each line that chose its network: the whole
    estimate against the whole run, and its packet-hop term against the run's CPU time beyond the same
    line on the analytic network (start-up, building the machine and the MPI layer: the rest)."""
    from ppt.drivers.autochoice import PACKET_HOPS_PER_S
    chosen = [row for row in rows if "estimate_s" in row]
    if not chosen:
        return "no line chose its network (--network auto)"
    cmd_w = WIDTH - 6 * 9
    lines = ["--network auto: the estimate against the run's CPU time (user + sys), s",
             f"{'command':<{cmd_w}} {'estimate':>8} {'cpu':>8} {'ratio':>8} {'hops':>8} {'cpu-anal':>8} "
             f"{'ratio':>8}", "-" * WIDTH]
    for row in chosen:
        hops_s = row["packet_hops"] / PACKET_HOPS_PER_S
        beyond_s = row["cpu_s"] - row.get("analytic_cpu_s", 0.0)
        lines.append(f"{shorten(row['command'].removeprefix('ppt '), cmd_w):<{cmd_w}} {row['estimate_s']:8.3g} "
                     f"{row['cpu_s']:8.3g} {row['estimate_s'] / row['cpu_s']:8.2f} {hops_s:8.3g} {beyond_s:8.3g} "
                     + (f"{hops_s / beyond_s:8.2f}" if beyond_s > 0 else f"{'-':>8}"))
    lines.append("hops: the estimate's packet-hop term; cpu-anal: CPU beyond the --network analytic run")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1, help="whole tours run; each line's least wall time is "
                                                               "kept (default 1)")
    parser.add_argument("--main", action="store_true", help="also run the README's main command (ppt snap, "
                                                            "about a minute)")
    parser.add_argument("--only", default=None, metavar="WORD",
                        help="run only the lines containing WORD (and the lines before them that make a "
                             "file they read are not run: use for single lines that read none)")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    lines = tour_lines(args.readme)
    if args.only:
        lines = [line for line in lines if args.only in line]
    main_line = main_command(args.readme) if args.main else None
    runs, steps = [], []
    for repeat in range(args.repeats):
        print(f"tour {repeat + 1}/{args.repeats}:", file=sys.stderr, flush=True)
        steps, rows = run_tour(lines, main_line)
        runs.append(rows)
    rows = best_of(runs)
    timed = [row for row in rows if "wall_s" in row]
    summary = {"rows": rows, "preparation": steps, "repeats": args.repeats,
               "total_wall_s": sum(r["wall_s"] for r in timed), "total_cpu_s": sum(r["cpu_s"] for r in timed),
               "cpus": len(os.sched_getaffinity(0)), "load_average": os.getloadavg()}
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    print(table(rows))
    for step in steps:
        print(f"preparation: {step['command']}: {step['wall_s']:.1f} s wall, exit {step['status']}")
    print(f"{summary['cpus']} CPUs, load average {summary['load_average'][0]:.1f} at the end\n")
    print(estimate_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
