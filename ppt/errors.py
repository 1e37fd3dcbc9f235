"""User-facing errors.

A :class:`PPTError` carries a one-line message that says what is wrong and how
to fix it; the command line prints it without a traceback and exits non-zero.
"""


class PPTError(Exception):
    """An error caused by the user's input or model, reported in one line."""


class ConfigError(PPTError):
    """A preset, topology parameter or option is missing or impossible."""


class SimulationError(PPTError):
    """A model broke an engine rule (event in the past, unknown service, ...)."""


class DeadlockError(PPTError):
    """Simulated ranks are blocked forever; the message names them and their calls."""


class TraceError(PPTError):
    """A trace set is missing, truncated or malformed."""
