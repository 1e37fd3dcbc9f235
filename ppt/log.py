"""PPT's messages: the ``ppt`` logger.

Notes such as which network model ran, where a job's ranks were placed or
where samples were written go to the standard :mod:`logging` logger named
``ppt`` (INFO for notes, WARNING for warnings), never straight to stderr.  The
``ppt`` command prints them as bare lines on stderr (:func:`to_stderr`);
a program using PPT as a library chooses for itself, e.g.::

    import logging
    logging.getLogger("ppt").setLevel(logging.ERROR)     # silence notes and warnings

With no handler configured, Python shows the warnings on stderr and drops the
notes (:func:`to_stderr` shows them as the command does).
"""
from __future__ import annotations

import logging
import sys

from ppt.terminal import fit_terminal

#: The logger every PPT message goes through.
logger = logging.getLogger("ppt")


class _StderrLines(logging.Handler):
    """Each record as one bare line on the *current* ``sys.stderr`` (so redirections made after
    the handler was added, e.g. on simulation ranks that print nothing, still apply), wrapped to the
    width of a terminal (:func:`fit_terminal`)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr
            stream.write(fit_terminal(self.format(record), stream) + "\n")
        except Exception:  # noqa: BLE001  (logging's own contract: report, never raise)
            self.handleError(record)


def to_stderr() -> None:
    """Print PPT's notes and warnings as bare lines on stderr, as the ``ppt`` command does.

    Idempotent: calling it again adds no second handler."""
    if not any(isinstance(handler, _StderrLines) for handler in logger.handlers):
        logger.addHandler(_StderrLines())
    logger.setLevel(logging.INFO)

