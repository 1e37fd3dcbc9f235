"""Where a rank's prints go: whole lines on a shared stream, or files of the rank's own.

While a program runs, ``sys.stdout`` and ``sys.stderr`` are :class:`RankStream`
objects: text written from a rank's greenlet goes to that rank's sink, and
text written by PPT itself (progress, warnings) to the real stream.  Sinks:

* :class:`LineSink`: a rank's lines as ``mpiexec`` relays them, each written
  once complete (so lines of different ranks never mix), unprefixed or
  prefixed ``[R] `` as ``mpiexec -prepend-rank`` (MPICH) does;
* :class:`FileSink`: ``DIR/rank.R.out`` and ``DIR/rank.R.err``, as
  ``mpiexec -outfile-pattern DIR/rank.%r.out -errfile-pattern DIR/rank.%r.err``
  would, buffered and appended in blocks.
"""
from __future__ import annotations

import codecs
import io
import os

from ppt.exec.current import current_run
from ppt.exec.sysview import own_stream

#: Bytes a file sink buffers before it appends them to its file.
FILE_BUFFER_B = 1 << 16


class LineSink:
    """Whole lines of one rank, each after ``prefix`` (``''`` or ``'[R] '``), on ``target`` (a text stream)."""

    __slots__ = ("prefix", "target", "pending")

    def __init__(self, prefix: str, target):
        self.prefix = prefix
        self.target = target
        self.pending = ""

    def write(self, text: str) -> None:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        if lines:
            prefix = self.prefix
            self.target.write("".join(f"{prefix}{line}\n" for line in lines))

    def flush(self) -> None:
        self.target.flush()

    def close(self) -> None:
        """Write a last line left without a newline: as it is (mpiexec relays the bytes), or ended, when
        prefixed, so the next rank's line keeps its prefix at a line's start."""
        if self.pending:
            self.target.write(f"{self.prefix}{self.pending}\n" if self.prefix else self.pending)
            self.pending = ""


class FileSink:
    """One rank's stream in a file of its own (created on the first write)."""

    __slots__ = ("path", "chunks", "size", "opened")

    def __init__(self, path: str):
        self.path = path
        self.chunks: list[str] = []
        self.size = 0
        self.opened = False

    def write(self, text: str) -> None:
        self.chunks.append(text)
        self.size += len(text)
        if self.size >= FILE_BUFFER_B:
            self.flush()

    def flush(self) -> None:
        if self.chunks:
            with open(self.path, "a" if self.opened else "w") as file:
                file.write("".join(self.chunks))
            self.opened = True
            self.chunks.clear()
            self.size = 0

    def close(self) -> None:
        self.flush()


def sinks(rank: int, output_dir: str | None, prepend_rank: bool, out, err) -> tuple:
    """``(stdout sink, stderr sink)`` of ``rank``: files in ``output_dir``, else its lines on streams ``out``
    and ``err``, prefixed ``[rank] `` if ``prepend_rank``."""
    if output_dir is not None:
        base = os.path.join(output_dir, f"rank.{rank}")
        return FileSink(base + ".out"), FileSink(base + ".err")
    prefix = f"[{rank}] " if prepend_rank else ""
    return LineSink(prefix, out), LineSink(prefix, err)


class RankStream(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` while a program runs: a rank's text to its sink, PPT's to ``real``;
    its ``buffer`` takes bytes (UTF-8) the same way."""

    def __init__(self, real, which: int):
        self.real = real
        self.which = which       # 0: stdout, 1: stderr
        self._buffer = RankBytes(self)

    @property
    def buffer(self) -> "RankBytes":
        return self._buffer

    def write(self, text: str) -> int:
        run = current_run()
        if run is None:
            return self.real.write(text)
        own = own_stream(run.modules["sys"], self.which, self)
        if own is not None:                     # the rank set its sys.stdout / sys.stderr
            return own.write(text)
        if not run.stopped:
            run.sinks[self.which].write(text)
        return len(text)

    def flush(self) -> None:
        run = current_run()
        if run is None:
            self.real.flush()
        elif (own := own_stream(run.modules["sys"], self.which, self)) is not None:
            own.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self):
        return getattr(self.real, "encoding", "utf-8")


class RankBytes(io.RawIOBase):
    """``sys.stdout.buffer`` of a :class:`RankStream`: bytes a rank writes, decoded as UTF-8 (a character
    split between writes waits for its end) and written to the rank's stream; outside ranks, to the real
    stream's buffer."""

    def __init__(self, stream: RankStream):
        super().__init__()
        self.stream = stream
        self.decoders: dict = {}

    def write(self, data) -> int:
        data = bytes(data)
        run = current_run()
        if run is None:
            return self.stream.real.buffer.write(data)
        decoder = self.decoders.get(run)
        if decoder is None:
            decoder = self.decoders[run] = codecs.getincrementaldecoder("utf-8")("replace")
        self.stream.write(decoder.decode(data))
        return len(data)

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        self.stream.flush()
