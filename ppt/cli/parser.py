"""The parser of the ``ppt`` command line: one subcommand per module listed in COMMANDS.

Each subcommand module, ``ppt.cli.ROOM.NAME``, defines ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``.  The parser's errors are
one line (a :class:`~ppt.errors.PPTError`), and a value that starts with a
minus sign and reads as a number is a value, not an option.
"""
from __future__ import annotations

import argparse
import importlib
import re

from ppt.errors import PPTError

#: Every command, in the order of ``ppt --help``, and its room: the subpackage of ``ppt.cli`` holding its
#: module (of the command's name, ``_`` for ``-``).
COMMANDS = {"systems": "tool", "describe": "tool", "topology": "network", "bench": "tool", "run": "predict",
            "exec": "predict", "pingpong": "network", "latency_survey": "network", "traffic": "network",
            "snap": "predict", "app": "predict", "replay": "traces", "record": "traces", "samples": "traces",
            "trace_info": "traces", "convert": "traces", "sweep": "predict", "scale": "predict",
            "plot": "network", "calibrate": "tool", "validate": "predict"}


#: A value that starts with a minus sign: a number (``-1``, ``-1e-6``, ``-inf``), a share (``-5%``) or a
#: list of them (``-0.1,0.5``).
_NUMBER = r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?%?"
NEGATIVE_VALUE = re.compile(rf"^-{_NUMBER}(,-?{_NUMBER})*$|^-(inf|nan)$", re.I)


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error instead of usage + error, and negative numbers (``-1``, ``-1e-6``)
    read as values, so an option's own check rejects them in words."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_VALUE

    def error(self, message):
        raise PPTError(f"{message} (see '{self.prog} --help')")


def options_among(args, prog: str, add_options, appended: tuple = ()) -> argparse.Namespace:
    """A wrapping command's options (``add_options(parser, defaults=False)`` declares them) read where they
    stand among the wrapped command line ``args.args`` too, up to its ``--`` (the rest is a program's): each
    given there replaces the value read before it, or extends it for the list options ``appended``;
    ``args.args`` keeps only the wrapped command's own tokens.  Returns ``args``."""
    inner = Parser(prog=prog, allow_abbrev=False, add_help=False)
    add_options(inner, defaults=False)
    tokens = list(args.args)
    cut = tokens.index("--") if "--" in tokens else len(tokens)
    after, base = inner.parse_known_args(tokens[:cut])
    for name, value in vars(after).items():
        if name in appended:
            setattr(args, name, getattr(args, name) + value)
        elif value is not None:
            setattr(args, name, value)
    args.args = base + tokens[cut:]
    return args


class _Version(argparse.Action):
    """``--version``: prints PPT's version, read only when asked (reading it costs tens of ms at start-up)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "show PPT's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from ppt.provenance import version
        print(f"ppt {version()}")
        parser.exit()


def named_command(argv) -> str | None:
    """The command ``argv`` names (its first token, ``-`` read as ``_``) when it is one of :data:`COMMANDS`."""
    first = argv[0].replace("-", "_") if argv else None
    return first if first in COMMANDS else None


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The ``ppt`` parser.  Given the command line ``argv`` whose first token names a command, only that
    command's module is imported and its subparser built (the others cost a tenth of a second at start-up
    and would parse nothing); else every command's, as ``ppt --help`` lists them."""
    parser = Parser(prog="ppt", description="PPT: performance prediction of MPI applications "
                    "on packet-level models of supercomputer interconnects.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    only = named_command(argv) if argv is not None else None
    for name, room in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(f"ppt.cli.{room}.{name}")
        cmd = sub.add_parser(name.replace("_", "-"), help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser
