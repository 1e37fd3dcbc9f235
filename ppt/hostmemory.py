"""The memory this host has left for a new allocation, for the guards that refuse a run before it
starts rather than let it die of a MemoryError minutes in."""
from __future__ import annotations

from ppt.errors import ConfigError


def available_bytes() -> int:
    """Memory available to a new allocation (``MemAvailable`` of /proc/meminfo), bytes; 0 if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def check_fits(need_B: float, what: str, remedy: str, error=ConfigError) -> None:
    """Raise ``error`` (one line: ``what`` needs about so many GiB, only so many are available; ``remedy``)
    if ``need_B`` bytes exceed the memory available; nothing if the host does not say."""
    available = available_bytes()
    if available and need_B > available:
        raise error(f"{what} needs about {need_B / 2**30:,.1f} GiB of memory, but only {available / 2**30:,.1f} GiB "
                    f"is available; {remedy}")
