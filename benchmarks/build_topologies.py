"""Build time and peak memory of each Slim Fly preset.

Each preset is built in its own Python process so the peak resident set size
(``getrusage(RUSAGE_SELF).ru_maxrss``) belongs to that preset alone; the RSS
after the imports is printed too, so the construction's own share is visible.

    python benchmarks/build_topologies.py [preset ...]
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

PRESETS = ("slimfly-3k", "slimfly-74k", "slimfly-1m")


def peak_rss_MB() -> float:
    """Peak resident set size of this process (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(name: str) -> dict:
    """Build preset ``name`` here and report its figures (run in a child process)."""
    from ppt.hardware.systems import load_system
    from ppt.interconnects.topologies.registry import build_topology, load_all
    load_all()                                 # imports precede the memory baseline

    cfg = load_system(name)
    base = peak_rss_MB()
    start = time.perf_counter()
    topo = build_topology(cfg["topology"])
    build_s = time.perf_counter() - start
    return {"preset": name, "nodes": int(topo.num_nodes), "routers": int(topo.num_routers),
            "links": topo.num_links(), "build_s": build_s, "rss_after_imports_MB": base,
            "peak_rss_MB": peak_rss_MB()}


def main(names: list[str]) -> None:
    print(f"{'preset':<13}{'nodes':>11}{'routers':>9}{'links':>10}{'build s':>9}"
          f"{'imports MB':>12}{'peak MB':>9}")
    for name in names:
        out = subprocess.run([sys.executable, __file__, "--child", name],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out)
        print(f"{r['preset']:<13}{r['nodes']:>11,}{r['routers']:>9,}{r['links']:>10,}"
              f"{r['build_s']:>9.2f}{r['rss_after_imports_MB']:>12.0f}{r['peak_rss_MB']:>9.0f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(measure(sys.argv[2])))
    else:
        main(sys.argv[1:] or list(PRESETS))
