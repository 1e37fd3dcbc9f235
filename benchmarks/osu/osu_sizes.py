"""The message sizes and iteration counts of the OSU-style programs beside this file."""

#: Sizes above this run a tenth of the iterations (the OSU suite's large-message threshold), bytes.
LARGE_B = 8192


def sizes(smallest: int = 0, largest: int = 4 << 20) -> list[int]:
    """0 (if ``smallest`` is 0), then the powers of two from ``max(smallest, 1)`` up to ``largest``, bytes."""
    found = [0] if smallest == 0 else []
    size = max(smallest, 1)
    while size <= largest:
        found.append(size)
        size *= 2
    return found


def iterations(base: int, nbytes: int) -> tuple[int, int]:
    """``(timed, warm-up)`` iterations at ``nbytes``: ``base`` up to :data:`LARGE_B`, a tenth above; a
    tenth of those (at least one) as warm-up."""
    timed = base if nbytes <= LARGE_B else max(1, base // 10)
    return timed, max(1, timed // 10)
