"""Running a sweep's points: each a ``ppt COMMAND ... --json`` in its own process, ``jobs`` at a time.

A point runs exactly as the single command would (same arguments, same
seed), so its result is the command's JSON output and does not depend on
how many points run at once or in what order they finish.  Points already in
the store are not run again.  A failing point stops the sweep with the
point's own one-line error; the points finished before it stay stored.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

from ppt.errors import PPTError
from ppt.sweep.grid import Point


class PointFailed(PPTError):
    """A point's command exited with an error (its message says which point and why)."""


class Runner:
    """Runs points in child processes, ``jobs`` at a time, skipping those ``store`` holds.

    ``progress`` (optional) has ``start(total, done)``, ``advance(point, result)`` and ``close()``.
    """

    def __init__(self, jobs: int = 1, store=None, progress=None):
        self.jobs = jobs
        self.store = store
        self.progress = progress
        self._children: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stopping = False

    def run(self, points: list[Point]) -> list[dict]:
        """The result of every point, in the order of ``points``."""
        results: list[dict | None] = [self.store.load(p) if self.store else None for p in points]
        todo = [i for i, r in enumerate(results) if r is None]
        if self.progress:
            self.progress.start(len(points), done=len(points) - len(todo))
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = {pool.submit(self._run_point, points[i]): i for i in todo}
            try:
                finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
                for future in finished:
                    future.result()                   # re-raise the first failure
            except BaseException:
                self._stop(pool)
                raise
            for future, i in futures.items():
                results[i] = future.result()
        if self.progress:
            self.progress.close()
        return results

    def _run_point(self, point: Point) -> dict:
        env = {**os.environ, "PPT_QUIET": "1"}
        argv = [sys.executable, "-m", "ppt.cli.main", point.argv[0], "--json", *point.argv[1:]]   # before any '--'
        with self._lock:
            if self._stopping:
                raise PointFailed("sweep stopped")
            child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            self._children.add(child)
        try:
            out, err = child.communicate()
        finally:
            with self._lock:
                self._children.discard(child)
        if child.returncode != 0:
            lines = [line for line in err.splitlines() if line.strip()]
            reason = lines[-1].removeprefix("ppt: error: ") if lines else f"exit status {child.returncode}"
            raise PointFailed(f"sweep point {point.label()}: {reason}")
        result = json.loads(out.strip().splitlines()[-1])
        if self.store:
            self.store.save(point, result)
        if self.progress:
            self.progress.advance(point, result)
        return result

    def _stop(self, pool) -> None:
        """Cancel points not started and end the ones running (the processes this runner started)."""
        pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._stopping = True
            for child in self._children:
                child.terminate()
