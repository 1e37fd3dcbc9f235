"""GOAL text schedules (LogGOPSim, Schedgen, ATLAHS) read into the op-stream form.

GOAL ("Group Operation Assembly Language", T. Hoefler, C. Siebert, A.
Lumsdaine, "Group Operation Assembly Language - A Flexible Way to Express
Collective Communication", ICPP 2009) describes each rank as a dependency
graph of ``send``, ``recv`` and ``calc`` operations.  The grammar read here is
that of LogGOPSim's ``txt2bin`` scanner (``src/LogGOPSim/txt2bin.re`` in
https://github.com/spcl/LogGOPSim)::

    num_ranks 4                       // how many ranks the schedule has
    rank 0 {                          // one block per rank
    l1: send 8b to 1 tag 0            // bytes end in 'b'; tag optional (0)
    l2: recv 8b from 1 tag 0 cpu 0 nic 0
    l3: calc 100                      // nanoseconds of local work (cpu N optional)
    l2 requires l1                    // l2 starts once l1 has completed
    l3 irequires l2                   // l3 starts once l2 has started
    }

A statement ends at the end of its line.  Labels (``[a-zA-Z][a-zA-Z0-9_]*``)
are optional and belong to their rank's block.  ``recv ... from -1`` receives
from any source, ``tag -1`` matches any tag.  Comments: ``//`` to the end of
the line and ``/* ... */``.  Times are nanoseconds, LogGOPSim's unit.

Mapping to the op stream (see docs/goal.md).  A rank's graph is walked in a
topological order that respects every ``requires`` and ``irequires`` edge:
among the ready operations, those that need no wait first, in the order
written; else the first written, after its wait.  Each send
and receive becomes an ISEND or IRECV with its own request id; a ``calc`` is
compute of the rank's CPU, so it becomes the gap before the next op; an
operation that ``requires`` sends or receives not yet waited for is preceded
by a WAIT (one request) or WAITALL (several, in the order of the ``requires``
lines).  ``irequires`` needs only that its dependency started, which the
sequential order guarantees.  Requests never waited for are waited for at the
rank's end (a GOAL schedule ends when all its operations have).  The ``cpu``
and ``nic`` numbers are read and ignored: every rank runs on one CPU and NIC.

Errors are one line, ``file:line:column: what is wrong``
(:class:`GoalSyntaxError`).  Speed: a rank block is read in one pass per statement form
(:meth:`_Parser.block`); the tokens read what that pass declines, and report the errors.
"""
from __future__ import annotations

import heapq
import os
import re

from ppt.engine.core import young_garbage_only
from ppt.errors import TraceError
from ppt.oprecord import ANY_SOURCE, ANY_TAG, COMM_WORLD, PROC_NULL, Op
from ppt.traces.opstream import MemoryTrace

#: Words that start a statement, so no label may be one (as in LogGOPSim's scanner, other keywords such as
#: ``tag`` or ``b`` may be labels).
KEYWORDS = frozenset({"num_ranks", "rank", "send", "recv", "calc"})
#: Call names the ops of a GOAL schedule carry.
ISEND_CALL, IRECV_CALL, WAIT_CALL, WAITALL_CALL = "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall"
#: Marks a rank's start (its first op: replay drops the gap before a stream's first op) and carries a
#: rank's last calc when nothing follows it.
START_CALL, END_CALL = "GOAL_start", "GOAL_end"
#: Largest tag the op stream holds (int32); LogGOPSim's tags are uint32 with -1 (all ones) for any tag.
MAX_TAG = 2**31 - 1

_SEND, _RECV, _CALC = 0, 1, 2
_ISEND, _IRECV, _WAIT, _WAITALL = int(Op.ISEND), int(Op.IRECV), int(Op.WAIT), int(Op.WAITALL)
_OPS = {"send": _SEND, "recv": _RECV, "calc": _CALC}

_TOKEN = re.compile(r"""
    (?P<ws>[ \t]+)
  | (?P<nl>\r?\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*)
  | (?P<int>-?[0-9]+)
  | (?P<word>[A-Za-z][A-Za-z0-9_]*)
  | (?P<punct>[:{}])
""", re.VERBOSE)


#: Whole statements of the common forms, read in one match (anything else, and every error, goes through
#: the tokens): a send or receive, a calc, a dependency, each to the end of its line.
_LABEL = r"[A-Za-z][A-Za-z0-9_]*"
_END = r"[ \t]*(?://[^\n]*)?(?:\r?\n|\Z)"
_FAST_MSG = re.compile(rf"(?:({_LABEL})[ \t]*:[ \t]*)?(send|recv)[ \t]+([0-9]+)[ \t]*b[ \t]+(to|from)[ \t]+(-1|[0-9]+)"
                       rf"(?:[ \t]+tag[ \t]+(-1|[0-9]+))?(?:[ \t]+cpu[ \t]+([0-9]+))?(?:[ \t]+nic[ \t]+([0-9]+))?{_END}")
_FAST_CALC = re.compile(rf"(?:({_LABEL})[ \t]*:[ \t]*)?calc[ \t]+([0-9]+)(?:[ \t]+cpu[ \t]+([0-9]+))?{_END}")
_FAST_DEP = re.compile(rf"({_LABEL})[ \t]+(i?requires)[ \t]+({_LABEL}){_END}")
_MAX_AMOUNT = 2**63 - 1
_BLANKS = re.compile(r"[ \t]*")
#: A whole block's operations and dependencies, each in one pass (:meth:`_Parser.block`): a line holding a
#: send or receive or a calc, or one holding a dependency, with an optional line comment.
_BLOCK_OPERATION = re.compile(
    rf"^[ \t]*(?:({_LABEL})[ \t]*:[ \t]*)?(?:(send|recv)[ \t]+([0-9]+)[ \t]*b[ \t]+(to|from)[ \t]+(-1|[0-9]+)"
    rf"(?:[ \t]+tag[ \t]+(-1|[0-9]+))?(?:[ \t]+cpu[ \t]+([0-9]+))?(?:[ \t]+nic[ \t]+([0-9]+))?"
    rf"|calc[ \t]+([0-9]+)(?:[ \t]+cpu[ \t]+([0-9]+))?)[ \t]*(?://[^\n]*)?\r?$", re.M)
_BLOCK_DEPENDENCY = re.compile(rf"^[ \t]*({_LABEL})[ \t]+(i?requires)[ \t]+({_LABEL})[ \t]*(?://[^\n]*)?\r?$", re.M)
#: Lines with nothing to read: blank, or a line comment alone.
_EMPTY_LINE = re.compile(r"^[ \t]*(?://[^\n]*)?\r?$", re.M)

#: Blanks and comments before a file's first word, and that word for a GOAL schedule (content detection).
_SKIP = re.compile(r"\s+|//[^\n]*(\n|$)|/\*.*?\*/", re.S)
_NUM_RANKS = re.compile(r"num_ranks\b")


class GoalSyntaxError(TraceError):
    """A GOAL schedule that cannot be read: ``file:line:column: what is wrong``."""


def is_goal(path) -> bool:
    """Whether ``path`` is a GOAL text file: a ``.goal`` name, or a text file whose first token after
    comments is ``num_ranks``."""
    path = os.fspath(path)
    if path.endswith(".goal") and not os.path.isdir(path):
        return True
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    if b"\0" in head:
        return False
    text = head.decode("utf-8", "replace")
    pos = 0
    while True:
        m = _SKIP.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
    return _NUM_RANKS.match(text, pos) is not None


class _Tokens:
    """The tokens of a GOAL text, made as they are read: ``(kind, text, line, column)``; kinds ``int``,
    ``word``, ``:``, ``{``, ``}``, ``nl`` and ``eof``.  Comments and blanks are dropped (a block comment's
    newlines are not statement ends)."""

    def __init__(self, text: str, where: str):
        self.text, self.where = text, where
        self.jump(0, 1, 0)

    def error(self, line, col, what) -> GoalSyntaxError:
        return GoalSyntaxError(f"{self.where}:{line}:{col}: {what}")

    def jump(self, pos: int, line: int, line_start: int) -> None:
        """Go on scanning at ``pos`` (on line ``line``, which starts at ``line_start``)."""
        self._tokens = self._scan(pos, line, line_start)
        self._next = next(self._tokens)

    def _scan(self, pos, line, line_start):
        text, match = self.text, _TOKEN.match
        end = len(text)
        while pos < end:
            m = match(text, pos)
            if m is None:
                raise self.error(line, pos - line_start + 1, f"unexpected character {text[pos]!r}")
            kind = m.lastgroup
            if kind == "nl":
                yield ("nl", "\n", line, pos - line_start + 1, pos)
                line += 1
                line_start = m.end()
            elif kind == "bcomment":
                close = text.find("*/", m.end())
                if close < 0:
                    raise self.error(line, pos - line_start + 1, "comment '/*' is never closed with '*/'")
                newlines = text.count("\n", pos, close)
                if newlines:
                    line += newlines
                    line_start = text.rfind("\n", pos, close) + 1
                pos = close + 2
                continue
            elif kind == "punct":
                yield (m.group(), m.group(), line, pos - line_start + 1, pos)
            elif kind != "ws" and kind != "lcomment":
                yield (kind, m.group(), line, pos - line_start + 1, pos)
            pos = m.end()
        while True:
            yield ("eof", "", line, pos - line_start + 1, pos)

    def peek(self):
        return self._next

    def next(self):
        tok = self._next
        self._next = next(self._tokens)
        return tok


def _describe(tok) -> str:
    kind, text = tok[0], tok[1]
    if kind == "nl":
        return "the end of the line"
    if kind == "eof":
        return "the end of the file"
    return repr(text)


class _Rank:
    """One rank's block while it is read: its operations and dependency lines."""

    __slots__ = ("rank", "line", "col", "ops", "labels", "deps", "resources")

    def __init__(self, rank, line, col):
        self.rank, self.line, self.col = rank, line, col
        self.ops = []           # (kind, amount, peer, tag, line, col, label)
        self.labels = {}        # label -> op index
        self.deps = []          # (label, dep label, irequires, line, col of label, col of dep label)
        self.resources = 0      # operations naming a cpu or nic other than 0


class GoalTrace(MemoryTrace):
    """A GOAL schedule read into the op-stream form (no CPU clock: gaps are GOAL's calc times).

    ``resources``: how many operations named a ``cpu`` or ``nic`` other than 0 (read, not modelled).
    """

    def __init__(self, path, num_ranks: int):
        super().__init__(os.fspath(path), num_ranks, cpu_times=False)
        self.resources = 0

    @property
    def name(self) -> str:
        return os.path.splitext(os.path.basename(self.meta_path))[0]


class _Parser:
    def __init__(self, text: str, where: str, path):
        self.t = _Tokens(text, where)
        self.where = where
        self.path = path
        self.num_ranks = None
        self.trace = None
        self.seen = {}          # rank -> (line, col) of its block

    def error(self, tok, what) -> GoalSyntaxError:
        return self.t.error(tok[2], tok[3], what)

    def expect_int(self, what: str, lo: int = 0, hi: int | None = None, allow_any=False) -> int:
        tok = self.t.next()
        if tok[0] != "int":
            raise self.error(tok, f"expected {what}, found {_describe(tok)}")
        value = int(tok[1])
        if value == -1 and allow_any:
            return -1
        if value < lo or hi is not None and value > hi:
            bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            wild = " or -1 (any)" if allow_any else ""
            raise self.error(tok, f"{what} {value} is out of range ({bound}{wild})")
        return value

    def end_of_statement(self, expected: str):
        tok = self.t.peek()
        if tok[0] == "nl":
            self.t.next()
            return
        if tok[0] == "eof":
            return
        raise self.error(tok, f"expected {expected} or the end of the line, found {_describe(tok)}")

    def parse(self) -> GoalTrace:
        t = self.t
        block = None
        fast = self.fast
        while True:
            if block is not None and t.peek()[0] == "word":
                if not block.ops and not block.deps and self.block(block, t.peek()):
                    block = None
                    continue
                if fast(block, t.peek()):
                    continue
            tok = t.next()
            kind, text = tok[0], tok[1]
            if kind == "nl":
                continue
            if kind == "eof":
                if block is not None:
                    raise self.error(tok, f"the block of rank {block.rank} (line {block.line}) is not closed: "
                                          "missing '}'")
                break
            if kind == "}":
                if block is None:
                    raise self.error(tok, "'}' without an open 'rank N {' block")
                self.finish(block)
                block = None
                continue
            if kind != "word":
                raise self.error(tok, f"expected 'num_ranks', 'rank', an operation or a label, found {_describe(tok)}")
            if text == "num_ranks":
                if self.num_ranks is not None:
                    raise self.error(tok, "'num_ranks' given twice")
                if block is not None:
                    raise self.error(tok, "'num_ranks' inside a rank block")
                self.num_ranks = self.expect_int("the number of ranks", 1, 2**31 - 1)
                self.trace = GoalTrace(self.path, self.num_ranks)
                continue
            if text == "rank":
                if block is not None:
                    raise self.error(tok, f"'rank' inside the block of rank {block.rank}: close it with '}}' first")
                if self.num_ranks is None:
                    raise self.error(tok, "'rank' before 'num_ranks N': the schedule must start with the number of "
                                          "ranks")
                num = t.peek()
                rank = self.expect_int("a rank number", 0, self.num_ranks - 1)
                if rank in self.seen:
                    raise self.error(num, f"rank {rank} has a second block (the first is at line {self.seen[rank][0]})")
                self.seen[rank] = (num[2], num[3])
                brace = t.next()
                if brace[0] != "{":
                    raise self.error(brace, f"expected '{{' after 'rank {rank}', found {_describe(brace)}")
                block = _Rank(rank, tok[2], tok[3])
                continue
            # an operation, a labelled operation or a dependency line
            label = None
            if text not in _OPS:
                if text in KEYWORDS:
                    raise self.error(tok, f"unexpected {text!r}: expected 'num_ranks', 'rank', an operation "
                                          "(send, recv, calc) or a label")
                after = t.next()
                if after[0] == ":":
                    label = tok
                    tok = t.next()
                    if tok[0] != "word" or tok[1] not in _OPS:
                        if tok[0] == "word" and tok[1] not in KEYWORDS:
                            raise self.error(tok, f"unknown operation {tok[1]!r} (expected send, recv or calc)")
                        raise self.error(tok, f"expected an operation (send, recv or calc) after label "
                                              f"{label[1]!r}, found {_describe(tok)}")
                elif after[0] == "word" and after[1] in ("requires", "irequires"):
                    dep = t.next()
                    if dep[0] != "word" or dep[1] in KEYWORDS:
                        raise self.error(dep, f"expected a label after {after[1]!r}, found {_describe(dep)}")
                    self.end_of_statement("nothing more")
                    if block is None:
                        raise self.error(tok, "dependency outside a rank block: open one with 'rank N {'")
                    block.deps.append((tok[1], dep[1], after[1] == "irequires", tok[2], tok[3], dep[3]))
                    continue
                else:
                    if after[0] == "word" and after[1] not in KEYWORDS or after[0] in ("nl", "eof", "int"):
                        raise self.error(tok, f"unknown operation {text!r} (expected send, recv or calc, a label "
                                              "followed by ':', or a dependency 'a requires b')")
                    raise self.error(after, f"expected ':', 'requires' or 'irequires' after {text!r}, found "
                                            f"{_describe(after)}")
            if block is None:
                raise self.error(tok, f"{tok[1]!r} outside a rank block: open one with 'rank N {{'")
            self.operation(block, tok, label)
        if self.num_ranks is None:
            raise GoalSyntaxError(f"{self.where}:1:1: no 'num_ranks N' line: this is not a GOAL schedule")
        return self.trace

    def block(self, block: _Rank, tok) -> bool:
        """Read a whole rank block, from its first statement (word ``tok``) to its '}', in one pass of
        :data:`_BLOCK_OPERATION` and one of :data:`_BLOCK_DEPENDENCY`, and finish it; False, with nothing read, if any line is not a valid
        statement of the common forms, a block comment is in it, or finishing it fails (the tokens then
        read the block again, and report every error with its line and column)."""
        text, pos = self.t.text, tok[4]
        end = text.find("}", pos)
        if end < 0:
            return False
        body = text[pos:end]
        last_line = body.rfind("\n")
        if "/*" in body or last_line < 0 or body[last_line + 1:].strip():
            return False
        found = _BLOCK_OPERATION.findall(body)
        linked = _BLOCK_DEPENDENCY.findall(body)
        if len(found) + len(linked) + len(_EMPTY_LINE.findall(body)) != body.count("\n") + 1:
            return False
        if not KEYWORDS.isdisjoint([name for name, _, _ in linked]) or not KEYWORDS.isdisjoint(
                [on for _, _, on in linked]):
            return False
        deps = [(name, on, dep == "irequires", None, None, None) for name, dep, on in linked]
        ops, labels, resources = [], {}, 0
        num_ranks, append = self.num_ranks, ops.append
        for label, op, size, direction, peer, tag, cpu, nic, calc, calc_cpu in found:
            if label:
                if label in KEYWORDS or label in labels:
                    return False
                labels[label] = len(ops)
            else:
                label = None
            if op:
                amount, peer = int(size), int(peer)
                tag = int(tag) if tag else 0
                if op == "send":
                    if direction != "to" or peer < 0 or tag < 0:
                        return False
                    kind = _SEND
                elif direction != "from":
                    return False
                else:
                    kind = _RECV
                if amount > _MAX_AMOUNT or peer >= num_ranks or tag > MAX_TAG:
                    return False
                if cpu or nic:
                    if int(cpu or 0) > 255 or int(nic or 0) > 255:
                        return False
                    resources += int(cpu or 0) > 0 or int(nic or 0) > 0
                append((kind, amount, peer, tag, None, None, label))
            else:
                amount = int(calc)
                if amount > _MAX_AMOUNT:
                    return False
                if calc_cpu:
                    if int(calc_cpu) > 255:
                        return False
                    resources += int(calc_cpu) > 0
                append((_CALC, amount, -1, 0, None, None, label))
        read = _Rank(block.rank, block.line, block.col)
        read.ops, read.labels, read.deps, read.resources = ops, labels, deps, resources
        try:
            self.finish(read)
        except GoalSyntaxError:
            return False
        line = tok[2] + body.count("\n")
        self.t.jump(end + 1, line, pos + last_line + 1)
        return True

    def fast(self, block: _Rank, tok) -> bool:
        """Read statements of the common forms, from word ``tok`` on, each in one match, as long as they
        come; False if the first is not one (the tokens then read it, and report every error)."""
        t = self.t
        text = t.text
        pos, line, col = tok[4], tok[2], tok[3]
        line_start = pos - col + 1
        read = 0
        one = self._fast_one
        while True:
            m = one(block, text, pos, line, col)
            if m is None:
                break
            read += 1
            pos = m.end()
            if text[pos - 1:pos] != "\n":
                break                           # the end of the file
            line += 1
            line_start = pos
            pos = _BLANKS.match(text, pos).end()
            col = pos - line_start + 1
        if read:
            t.jump(pos, line, line_start)
        return read > 0

    def _fast_one(self, block: _Rank, text: str, pos: int, line: int, col: int):
        """The match of a valid common statement at ``pos`` (recorded in ``block``), else None."""
        m = _FAST_MSG.match(text, pos)
        if m is not None:
            label, op, size, direction, peer, tag, cpu, nic = m.groups()
            if (op == "send") != (direction == "to") or label in KEYWORDS:
                return None
            amount, peer = int(size), int(peer)
            tag = int(tag) if tag is not None else 0
            cpu = int(cpu) if cpu is not None else 0
            nic = int(nic) if nic is not None else 0
            if (amount > _MAX_AMOUNT or peer >= self.num_ranks or tag > MAX_TAG or cpu > 255 or nic > 255
                    or op == "send" and (peer < 0 or tag < 0)):
                return None
            entry = (_SEND if op == "send" else _RECV, amount, peer, tag)
        else:
            m = _FAST_CALC.match(text, pos)
            if m is not None:
                label, amount, cpu = m.groups()
                amount, cpu = int(amount), int(cpu) if cpu is not None else 0
                nic = 0
                if label in KEYWORDS or amount > _MAX_AMOUNT or cpu > 255:
                    return None
                entry = (_CALC, amount, -1, 0)
            else:
                m = _FAST_DEP.match(text, pos)
                if m is None or m.group(1) in KEYWORDS or m.group(3) in KEYWORDS:
                    return None
                block.deps.append((m.group(1), m.group(3), m.group(2) == "irequires", line, col,
                                   col + m.start(3) - pos))
                return m
        if label is not None:
            if label in block.labels:
                return None                     # the tokens report the duplicate
            block.labels[label] = len(block.ops)
        if cpu or nic:
            block.resources += 1
        block.ops.append(entry + (line, col, label))
        return m

    def operation(self, block, tok, label):
        t = self.t
        op = _OPS[tok[1]]
        if op == _CALC:
            amount = self.expect_int("a calc time in nanoseconds", 0, 2**63 - 1)
            peer, tag = -1, 0
            cpu = 0
            if t.peek()[0] == "word" and t.peek()[1] == "cpu":
                t.next()
                cpu = self.expect_int("a cpu number", 0, 255)
            self.end_of_statement("'cpu'")
            if cpu:
                block.resources += 1
        else:
            size = t.peek()
            amount = self.expect_int("a size in bytes (e.g. 8b)", 0, 2**63 - 1)
            unit = t.next()
            if unit[0] != "word" or unit[1] != "b":
                found = _describe(unit)
                if unit[0] == "word" and unit[2] == size[2] and unit[3] == size[3] + len(size[1]):
                    found = f"{size[1]}{unit[1]}"
                    raise self.error(size, f"bad size {found!r}: GOAL sizes are bytes, written like {size[1]}b")
                raise self.error(unit, f"expected 'b' after the size {size[1]} (GOAL sizes are bytes, e.g. "
                                       f"{size[1]}b), found {found}")
            word = "to" if op == _SEND else "from"
            kw = t.next()
            if kw[0] != "word" or kw[1] != word:
                raise self.error(kw, f"expected {word!r} after the size of a {tok[1]}, found {_describe(kw)}")
            peer = self.expect_int("a destination rank" if op == _SEND else "a source rank", 0, self.num_ranks - 1,
                                   allow_any=op == _RECV)
            tag, cpu, nic = 0, 0, 0
            nxt = t.peek()
            if nxt[0] == "word" and nxt[1] == "tag":
                t.next()
                tag_tok = t.peek()
                tag = self.expect_int("a tag", 0, MAX_TAG, allow_any=True)
                if tag == -1 and op == _SEND:
                    raise self.error(tag_tok, "a send cannot have the wildcard tag -1")
                nxt = t.peek()
            if nxt[0] == "word" and nxt[1] == "cpu":
                t.next()
                cpu = self.expect_int("a cpu number", 0, 255)
                nxt = t.peek()
            if nxt[0] == "word" and nxt[1] == "nic":
                t.next()
                nic = self.expect_int("a nic number", 0, 255)
            self.end_of_statement("'tag', 'cpu' or 'nic'" if op != _CALC else "'cpu'")
            if cpu or nic:
                block.resources += 1
        index = len(block.ops)
        name = None
        if label is not None:
            name = label[1]
            if name in block.labels:
                first = block.ops[block.labels[name]]
                raise self.error(label, f"label {name!r} is defined twice in rank {block.rank} (first at line "
                                        f"{first[4]})")
            block.labels[name] = index
        start = label or tok          # where the statement starts
        block.ops.append((op, amount, peer, tag, start[2], start[3], name))

    def finish(self, block: _Rank):
        """Resolve the block's dependencies, then order its graph and write its op stream."""
        labels = block.labels
        preds = {}                              # op index -> [(dep index, irequires), ...] in the order written
        for name, dep, weak, line, col, dcol in block.deps:
            a = labels.get(name)
            if a is None:
                raise self.t.error(line, col, f"label {name!r} is not defined in rank {block.rank}")
            b = labels.get(dep)
            if b is None:
                raise self.t.error(line, dcol, f"label {dep!r} is not defined in rank {block.rank}")
            if a == b:
                raise self.t.error(line, col, f"dependency cycle in rank {block.rank}: {name} requires itself")
            found = preds.get(a)
            if found is None:
                preds[a] = [(b, weak)]
            else:
                found.append((b, weak))
        self._emit(block, preds)

    def _cycle(self, block, preds, indegree) -> GoalSyntaxError:
        """The error naming one dependency cycle among the ops left unordered."""
        ops = block.ops
        start = next(i for i in range(len(ops)) if indegree[i])
        path, seen, i = [], {}, start
        while i not in seen:
            seen[i] = len(path)
            path.append(i)
            i = next(b for b, _ in preds[i] if indegree[b])        # an op left unordered waits for one
        cycle = path[seen[i]:] + [i]

        def name(k):
            return ops[k][6] or f"<line {ops[k][4]}>"
        links = ", ".join(f"{name(a)} requires {name(b)}" for a, b in zip(cycle, cycle[1:]))
        first = ops[cycle[0]]
        return self.t.error(first[4], first[5], f"dependency cycle in rank {block.rank}: {links}")

    def _emit(self, block: _Rank, preds):
        """Walk the graph in a topological order and write the rank's op stream.

        Ready operations (every dependency ordered) that need no wait go first, in the order written, so
        receives and independent calcs start as early as their dependencies allow; when every ready one
        must wait for a send or receive to complete, the one written first does, after a WAIT/WAITALL."""
        ops = block.ops
        n = len(ops)
        succs = {}                              # op index -> the ops that require or irequire it
        waits_on = {}                           # op index -> the sends/receives it requires, in the order written
        unwaited = [0] * n                      # how many of those are not waited for yet
        dependents = {}                         # send/receive -> the ops that require (its completion)
        indegree = [0] * n
        for i, deps in preds.items():
            indegree[i] = len(deps)
            for b, _ in deps:
                found = succs.get(b)
                if found is None:
                    succs[b] = [i]
                else:
                    found.append(i)
            need = [b for b, weak in deps if not weak and ops[b][0] != _CALC]
            if need:
                if len(need) > 1:
                    need = list(dict.fromkeys(need))
                waits_on[i] = need
                unwaited[i] = len(need)
                for b in need:
                    found = dependents.get(b)
                    if found is None:
                        dependents[b] = [i]
                    else:
                        found.append(i)
        free = [i for i in range(n) if not indegree[i] and not unwaited[i]]   # heaps of ready op indices
        blocked = [i for i in range(n) if not indegree[i] and unwaited[i]]
        heapify, heappop, heappush = heapq.heapify, heapq.heappop, heapq.heappush
        heapify(free)
        heapify(blocked)
        done = bytearray(n)
        waited = bytearray(n)                   # 1: a send/recv whose completion the stream has waited for

        builder = self.trace.builder(block.rank)
        self.trace.resources += block.resources
        add = builder.add
        add(Op.LOCAL, START_CALL)
        pending_ns = 0
        issued = []
        ordered = 0
        while free or blocked:
            i = heappop(free) if free else heappop(blocked)
            if done[i]:
                continue                        # moved to free when its sends/receives were waited for
            done[i] = 1
            ordered += 1
            needs = waits_on.get(i)
            if needs:
                needs = [b for b in needs if not waited[b]]
            if needs:
                gap = pending_ns / 1e9
                pending_ns = 0
                if len(needs) == 1:
                    add(_WAIT, WAIT_CALL, gap, None, 0.0, 0.0, COMM_WORLD, PROC_NULL, 0, 0, 0, needs[0] + 1)
                else:
                    add(_WAITALL, WAITALL_CALL, gap, aux=[b + 1 for b in needs])
                for b in needs:
                    waited[b] = 1
                    for d in dependents[b]:     # every op requiring b is among them
                        unwaited[d] -= 1
                        if not unwaited[d] and not indegree[d] and not done[d]:
                            heappush(free, d)
            kind, amount, peer, tag = ops[i][:4]
            if kind == _CALC:
                pending_ns += amount
            else:
                gap = pending_ns / 1e9
                pending_ns = 0
                issued.append(i)
                if kind == _SEND:         # (positional: this is the reader's hot loop)
                    add(_ISEND, ISEND_CALL, gap, None, 0.0, 0.0, COMM_WORLD, peer, tag, 0, amount, i + 1)
                else:
                    add(_IRECV, IRECV_CALL, gap, None, 0.0, 0.0, COMM_WORLD, ANY_SOURCE if peer == -1 else peer,
                        ANY_TAG if tag == -1 else tag, 0, amount, i + 1)
            for s in succs.get(i, ()):
                indegree[s] -= 1
                if not indegree[s]:
                    heappush(blocked if unwaited[s] else free, s)
        if ordered < n:
            raise self._cycle(block, preds, indegree)
        left = [i + 1 for i in issued if not waited[i]]
        gap = pending_ns / 1e9
        if len(left) == 1:
            add(Op.WAIT, WAIT_CALL, gap, request=left[0])
        elif left:
            add(Op.WAITALL, WAITALL_CALL, gap, aux=left)
        elif pending_ns:
            add(Op.LOCAL, END_CALL, gap)


def parse(text: str, path="<goal>", where: str | None = None) -> GoalTrace:
    """The GOAL schedule ``text`` as a :class:`GoalTrace` (``path`` names it; ``where`` in errors).  The
    cyclic garbage collector stays off the ops read so far (it would rescan them over and over)."""
    with young_garbage_only():
        return _Parser(text, where or os.fspath(path), path).parse()


def load(path) -> GoalTrace:
    """Read the GOAL text file ``path`` (GoalSyntaxError, one line ``file:line:column: ...``, if malformed)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise TraceError(f"no GOAL schedule at {path}") from None
    except UnicodeDecodeError as exc:
        raise GoalSyntaxError(f"{path}:1:1: not a text file ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise TraceError(f"cannot read {path}: {exc.strerror}") from None
    return parse(text, path)
