"""The terminal's width, and text fitted to it: what human-readable output and stderr notes wrap to."""
from __future__ import annotations

import io
import os
import shutil
import textwrap


def terminal_width() -> int:
    """Columns a human-readable result may use: the terminal's (``$COLUMNS`` first), 80 when there is
    none (output to a pipe or a file), never fewer than 40."""
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def fit_terminal(text: str, stream) -> str:
    """``text`` wrapped at spaces to :func:`terminal_width` when ``stream`` is a terminal, the further
    lines of each of its lines indented by two; unchanged for a pipe or a file, where a message stays one
    line that a log can be searched by."""
    if not is_terminal(stream):
        return text
    width = terminal_width()
    return "\n".join("\n".join(textwrap.wrap(line, width, subsequent_indent="  ", break_long_words=False,
                                             break_on_hyphens=False)) or line for line in text.split("\n"))


def bar_columns(stream) -> int:
    """Columns a progress bar (tqdm) draws its line in on ``stream``: one less than its terminal's width
    (the last column would wrap the line), or than :func:`terminal_width` for a stream without one."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        columns = 0
    if columns <= 0:                  # no terminal, or one that does not say its size
        columns = terminal_width()
    return columns - 1
