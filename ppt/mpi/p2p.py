"""Point-to-point messaging of one simulated rank: matching, requests, eager and rendezvous.

Every message goes through the network (``nic.send_message``) as a named
tuple (cheap to build and to pickle, so it may cross simulation ranks) whose
first two fields are ``kind`` and ``dst``.  Kinds:

:class:`Eager` ``(EAGER, dst, src, ctx, tag, seq, nbytes, data)``
    a message of at most ``job.settings.eager_threshold_B`` bytes, sent at once;
:class:`Rts` ``(RTS, dst, src, ctx, tag, seq, nbytes, send_id)``
    rendezvous request-to-send (``CONTROL_B`` bytes on the wire);
:class:`Cts` ``(CTS, dst, src, send_id, recv_id)``
    clear-to-send, returned when the receive is matched (``CONTROL_B`` bytes);
:class:`Data` ``(DATA, dst, recv_id, data)``
    the rendezvous payload (``nbytes`` on the wire).

Eager messages and RTSs are the *envelopes* receives match on: both have
``src``, ``ctx``, ``tag``, ``seq`` and ``nbytes``.

``dst``/``src`` are world ranks, ``ctx`` the communicator context (user and
collective traffic of one communicator use different contexts).  MPI's
non-overtaking rule holds whatever order the network delivers in: each sender
numbers its messages to each receiver (``seq``) and the receiver matches them
in that order.  A receive matches the earliest-arrived message with equal
context and matching source/tag; an arriving message matches the
earliest-posted receive.

Sends complete when their last byte has left the NIC (eager: the message;
rendezvous: the data after the CTS); receives when the data has arrived.

Software overheads (LogGP's ``o``, :mod:`ppt.mpi.settings`) are time of the
rank's own process: a send (eager message or RTS) reaches the NIC
``send_overhead_s`` after the rank started it, and the rank spends
``recv_overhead_s`` when it first takes over a completed receive (a wait or
test that returns it).  Protocol messages sent on the rank's behalf (CTS,
rendezvous data) cost it nothing.

The rank does not sleep through each overhead: it *owes* it (``Rank.owed_s``),
so its own clock (``Rank.clock_s``) runs ahead of the engine's.  Sends and
receive posts happen at the rank's clock (a send is handed to the network with
that delay, a post runs as an event then); whatever observes the network's
state (a test, a probe, a wait for any of several requests, computing) first
lets the engine catch up, and a wait for one request ends at the later of its
completion and the rank's clock.  Timing is that of sleeping through every
overhead, at a fraction of the process switches.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from ppt.mpi.constants import (ANY_SOURCE, ANY_TAG, BUFFERED, CONTROL_B, PROC_NULL,
                               STANDARD, SYNC, UNDEFINED)
from ppt.mpi.errors import MPIError
from ppt.mpi.names import mpi4py_names
from ppt.mpi.stats import RankStats
from ppt.mpi.unsupported import Refusing

EAGER, RTS, CTS, DATA = range(4)

#: Builds a message as ``_new(Eager, (EAGER, ...))``: a NamedTuple's own constructor is a
#: Python function and would cost more than the rest of building the message.
_new = tuple.__new__


class Eager(NamedTuple):
    """A message sent at once; ``data`` is its payload."""
    kind: int
    dst: int
    src: int
    ctx: int
    tag: Any
    seq: int
    nbytes: int
    data: Any


class Rts(NamedTuple):
    """Rendezvous request-to-send; ``send_id`` names the waiting send at the sender."""
    kind: int
    dst: int
    src: int
    ctx: int
    tag: Any
    seq: int
    nbytes: int
    send_id: int


class Cts(NamedTuple):
    """Clear-to-send from the receiver ``src`` of the send ``send_id``, for its receive ``recv_id``."""
    kind: int
    dst: int
    src: int
    send_id: int
    recv_id: int


class Data(NamedTuple):
    """The payload of a rendezvous send, for the receive ``recv_id``."""
    kind: int
    dst: int
    recv_id: int
    data: Any


@mpi4py_names
class Status(metaclass=Refusing):
    """Source rank (in the receiving communicator), tag and size in bytes of a received message."""

    __slots__ = ("source", "tag", "bytes")

    def __init__(self, source: int = ANY_SOURCE, tag: int = ANY_TAG, nbytes: int = 0):
        self.source = source
        self.tag = tag
        self.bytes = nbytes

    def copy_to(self, other) -> None:
        if other is not None:
            other.source, other.tag, other.bytes = self.source, self.tag, self.bytes

    def __repr__(self):
        return f"Status(source={self.source}, tag={self.tag}, bytes={self.bytes})"


@mpi4py_names
class Request(metaclass=Refusing):
    """A nonblocking send or receive.  After completion ``status`` (receives) and ``value`` are set."""

    __slots__ = ("_rank", "is_send", "comm", "peer", "tag", "ctx", "nbytes", "value", "done",
                 "active", "status", "waited", "post", "buffer", "overhead_due_s")

    def __init__(self, rank, is_send, comm, peer, tag, ctx, nbytes=0, value=None):
        self._rank = rank
        self.is_send = is_send
        self.comm = comm
        self.peer = peer          # rank in comm (or ANY_SOURCE / PROC_NULL)
        self.tag = tag
        self.ctx = ctx
        self.nbytes = nbytes
        self.value = value        # send: the payload; receive: the received payload
        self.done = False
        self.active = True        # False once a wait/test has returned it
        self.status = None
        self.waited = False
        self.post = 0
        #: mpi4py's ``Irecv(buf)``: the buffer the payload is copied into when a wait or test retires it.
        self.buffer = None
        #: Receive overhead the rank still owes for this request, s (paid once, by Rank.take).
        self.overhead_due_s = 0.0

    def __eq__(self, other):
        """As mpi4py's handles: a retired request (waited or tested complete, or freed) is REQUEST_NULL,
        equal to every other retired one; a persistent request stays itself."""
        if self is other:
            return True
        if type(self) is Request and type(other) is Request:
            return not self.active and not other.active
        return NotImplemented

    __hash__ = object.__hash__

    def finish(self) -> None:
        """Mark complete and wake the rank if it waits for this request."""
        self.done = True
        rank = self._rank
        if self.waited and rank.waiting:
            rank.waiting = False
            rank.proc.wake()

    def wait(self, status=None):
        """Block until complete; returns the received payload (None for sends)."""
        return self._rank.api.wait(self, status)

    def test(self, status=None):
        """``(done, payload)`` without blocking."""
        return self._rank.api.test(self, status)

    @staticmethod
    def waitall(requests, statuses=None):
        return _api(requests).waitall(requests, statuses) if requests else []

    @staticmethod
    def waitany(requests, status=None):
        return _api(requests).waitany(requests, status) if requests else (UNDEFINED, None)

    @staticmethod
    def waitsome(requests, statuses=None):
        return _api(requests).waitsome(requests, statuses) if requests else (None, None)

    @staticmethod
    def testall(requests, statuses=None):
        return _api(requests).testall(requests, statuses) if requests else (True, [])

    @staticmethod
    def testany(requests, status=None):
        return _api(requests).testany(requests, status) if requests else (UNDEFINED, True, None)

    @staticmethod
    def testsome(requests, statuses=None):
        return _api(requests).testsome(requests, statuses) if requests else (None, None)

    def describe(self) -> str:
        """``source=1, tag=7, comm=WORLD``-style arguments for reports."""
        comm = self.comm
        if self.ctx == comm.coll_ctx:
            verb = "sending to" if self.is_send else "waiting for"
            return f"{verb} rank {_rank_name(self.peer)}, comm={comm.label}"
        if self.is_send:
            return f"dest={self.peer}, tag={self.tag}, {self.nbytes} B, comm={comm.label}"
        return f"source={_rank_name(self.peer)}, tag={_tag_name(self.tag)}, comm={comm.label}"


def _api(requests):
    return requests[0]._rank.api


def _rank_name(rank: int) -> str:
    return "ANY_SOURCE" if rank == ANY_SOURCE else str(rank)


def _tag_name(tag) -> str:
    return "ANY_TAG" if tag == ANY_TAG else str(tag)


class Rank:
    """One simulated MPI process: its messaging state, its process and its statistics.

    Lives on the NIC entity of its node; every callback runs in that entity.
    """

    __slots__ = ("job", "world_rank", "node", "nic", "sim", "proc", "stats", "api", "call", "waiting",
                 "probing", "posted", "posted_any", "unexpected", "early", "next_seq", "expected_seq",
                 "pending_sends", "pending_recvs", "next_id", "post_count", "arrival_count", "next_ctx",
                 "result", "eager_B", "send_overhead_s", "recv_overhead_s", "node_of", "owed_s",
                 "meter", "cpu_mark")

    def __init__(self, job, world_rank: int, node: int, nic):
        self.job = job
        self.world_rank = world_rank
        self.node = node
        self.nic = nic
        self.sim = nic.sim
        self.proc = None
        self.stats = RankStats()
        self.api = None
        #: Name of the top-level MPI call in progress (None outside MPI).
        self.call = None
        self.waiting = False
        self.probing = False
        self.posted: dict = {}         # (ctx, src) -> [receive requests]
        self.posted_any: list = []     # receives with ANY_SOURCE
        self.unexpected: dict = {}     # ctx -> {src: [(arrival, envelope)]}
        self.early: dict = {}          # (src, seq) -> envelope that overtook an earlier one
        self.next_seq: dict = {}       # dst -> next sequence number
        self.expected_seq: dict = {}   # src -> next sequence number to match
        self.pending_sends: dict = {}  # send_id -> rendezvous send waiting for CTS
        self.pending_recvs: dict = {}  # recv_id -> matched rendezvous receive waiting for data
        self.next_id = 0
        self.post_count = 0
        self.arrival_count = 0
        #: Smallest communicator id this rank has not used (agreed on collectively).
        self.next_ctx = 2
        self.result = None
        settings = job.settings
        self.eager_B = settings.eager_threshold_B
        self.send_overhead_s = settings.send_overhead_s
        self.recv_overhead_s = settings.recv_overhead_s
        self.node_of = job.node_of
        #: Software overhead spent but not yet slept through, s: the rank's clock is ``sim.now + owed_s``.
        self.owed_s = 0.0
        #: Measures the rank's own code between MPI calls as compute time (ppt exec), or None.
        self.meter = None
        #: The thread CPU clock when the rank's code last started running, s (kept by the meter).
        self.cpu_mark = 0.0

    #: Where collective schedules go instead of running here (a compiled engine's planner), or None.
    plan = None
    #: A compiled engine's classes of persistent and Ibarrier requests, or None: this engine's own
    #: (:class:`ppt.mpi.persistent.Prequest`, :class:`ppt.mpi.ibarrier.BarrierRequest`).
    prequest_class = barrier_class = None

    def __repr__(self):
        return f"rank {self.world_rank}"

    def clock_s(self) -> float:
        """The rank's own time, s: the engine's time plus the overhead it still owes."""
        return self.sim.now + self.owed_s

    def pay(self) -> None:
        """Let the engine catch up with the rank's clock (sleep through what it owes)."""
        owed = self.owed_s
        if owed:
            self.owed_s = 0.0
            self.proc.sleep(owed)

    def error(self, message: str, call: str | None = None) -> MPIError:
        return MPIError(f"rank {self.world_rank} in {call or self.call or 'MPI'}: {message}")

    # -- sending -----------------------------------------------------------
    def isend(self, comm, dest: int, tag, nbytes: int, data, ctx: int, mode: int = STANDARD, into=None) -> Request:
        """Start sending ``nbytes`` (payload ``data``) to rank ``dest`` of ``comm`` in send ``mode``
        (``into``: a persistent request to start, else a new request)."""
        if into is None:
            req = Request(self, True, comm, dest, tag, ctx, nbytes, data)
        else:
            req = into
            Request.__init__(req, self, True, comm, dest, tag, ctx, nbytes, data)
        if dest == PROC_NULL:
            req.done = True
            return req
        self.owed_s += self.send_overhead_s
        dst = comm.world_of(dest)
        seq = self.next_seq.get(dst, 0)
        self.next_seq[dst] = seq + 1
        stats = self.stats
        stats.messages_sent += 1
        stats.bytes_sent += nbytes
        if nbytes <= self.eager_B and mode != SYNC or mode == BUFFERED:
            self.nic.send_message(self.node_of[dst], nbytes,
                                  _new(Eager, (EAGER, dst, self.world_rank, ctx, tag, seq, nbytes, data)), req.finish,
                                  self.owed_s)
        else:
            send_id = self.next_id = self.next_id + 1
            self.pending_sends[send_id] = req
            self.nic.send_message(self.node_of[dst], CONTROL_B,
                                  _new(Rts, (RTS, dst, self.world_rank, ctx, tag, seq, nbytes, send_id)), None,
                                  self.owed_s)
        return req

    # -- receiving ---------------------------------------------------------
    def irecv(self, comm, source: int, tag, ctx: int, into=None) -> Request:
        """Post a receive from rank ``source`` of ``comm`` (or ANY_SOURCE); ``into`` as for isend."""
        if into is None:
            req = Request(self, False, comm, source, tag, ctx)
        else:
            req = into
            Request.__init__(req, self, False, comm, source, tag, ctx)
        if source == PROC_NULL:
            req.status = Status(PROC_NULL, ANY_TAG, 0)
            req.done = True
            return req
        req.overhead_due_s = self.recv_overhead_s
        src = ANY_SOURCE if source == ANY_SOURCE else comm.world_of(source)
        if self.owed_s:
            self.nic.schedule(self.owed_s, self._post, (req, src))
        else:
            self._post((req, src))
        return req

    def _post(self, args) -> None:
        """Post receive ``req`` from world rank ``src`` (or ANY_SOURCE) now, at the rank's clock."""
        req, src = args
        ctx, tag = req.ctx, req.tag
        found = self._find_unexpected(ctx, src, tag, remove=True)
        if found is not None:
            self._match(req, found)
            return
        self.post_count += 1
        req.post = self.post_count
        if src == ANY_SOURCE:
            self.posted_any.append(req)
        else:
            self.posted.setdefault((ctx, src), []).append(req)

    def mrecv(self, comm, env) -> Request:
        """A receive of envelope ``env``, which a matched probe took off the queue (MPI_Mrecv): it matches
        at once, a rendezvous message's CTS sent now as by a receive posted now."""
        req = Request(self, False, comm, comm.local_of(env.src), env.tag, comm.ctx)
        req.overhead_due_s = self.recv_overhead_s
        self._match(req, env)
        return req

    def iprobe(self, comm, source: int, tag, ctx: int):
        """Status of the first matching unreceived message, or None."""
        if source == PROC_NULL:
            return Status(PROC_NULL, ANY_TAG, 0)
        self.pay()
        src = ANY_SOURCE if source == ANY_SOURCE else comm.world_of(source)
        env = self._find_unexpected(ctx, src, tag, remove=False)
        if env is None:
            return None
        return Status(comm.local_of(env.src), env.tag, env.nbytes)

    def _find_unexpected(self, ctx, src, tag, remove):
        by_src = self.unexpected.get(ctx)
        if not by_src:
            return None
        best = best_list = best_index = None
        sources = by_src.items() if src == ANY_SOURCE else ((src, by_src.get(src)),)
        for _, entries in sources:
            if not entries:
                continue
            for i, entry in enumerate(entries):
                if tag == ANY_TAG or entry[1].tag == tag:
                    if best is None or entry[0] < best[0]:
                        best, best_list, best_index = entry, entries, i
                    break
        if best is None:
            return None
        if remove:
            del best_list[best_index]
            if not best_list:
                del by_src[best[1].src]
        return best[1]

    def _match(self, req, env) -> None:
        """Receive ``req`` matched envelope ``env`` (Eager or Rts)."""
        src = env.src
        req.status = Status(req.comm.local_of(src), env.tag, env.nbytes)
        if env.kind == EAGER:
            req.value = env.data
            req.finish()
            return
        recv_id = self.next_id = self.next_id + 1
        self.pending_recvs[recv_id] = req
        self.nic.send_message(self.node_of[src], CONTROL_B,
                              _new(Cts, (CTS, src, self.world_rank, env.send_id, recv_id)))

    # -- arrivals (in the NIC entity) ---------------------------------------
    def arrive(self, msg) -> None:
        kind = msg.kind
        if kind == DATA:
            req = self.pending_recvs.pop(msg.recv_id)
            req.value = msg.data
            req.finish()
        elif kind == CTS:
            req = self.pending_sends.pop(msg.send_id)
            dst = msg.src
            self.nic.send_message(self.node_of[dst], req.nbytes, _new(Data, (DATA, dst, msg.recv_id, req.value)),
                                  req.finish)
        else:
            src, seq = msg.src, msg.seq
            expected = self.expected_seq.get(src, 0)
            if seq != expected:
                self.early[(src, seq)] = msg
                return
            self._incoming(msg)
            expected += 1
            early = self.early
            while early and (src, expected) in early:
                self._incoming(early.pop((src, expected)))
                expected += 1
            self.expected_seq[src] = expected

    def _incoming(self, env) -> None:
        """Match an Eager/Rts envelope against posted receives, else keep it as unexpected."""
        ctx, src, tag = env.ctx, env.src, env.tag
        chosen = chosen_list = None
        posted = self.posted.get((ctx, src))
        if posted:
            for req in posted:
                if req.tag == ANY_TAG or req.tag == tag:
                    chosen, chosen_list = req, posted
                    break
        for req in self.posted_any:
            if req.ctx == ctx and (req.tag == ANY_TAG or req.tag == tag):
                if chosen is None or req.post < chosen.post:
                    chosen, chosen_list = req, self.posted_any
                break
        if chosen is None:
            self.arrival_count += 1
            self.unexpected.setdefault(ctx, {}).setdefault(src, []).append((self.arrival_count, env))
            if self.probing and self.waiting:
                self.waiting = False
                self.proc.wake()
            return
        chosen_list.remove(chosen)
        if not chosen_list and chosen_list is posted:
            del self.posted[(ctx, src)]
        self._match(chosen, env)

    # -- blocking ----------------------------------------------------------
    def block(self, requests) -> None:
        """Hibernate until one of ``requests`` (pending ones) completes; the rank still owes
        whatever of its overhead that completion did not cover.  (Exact for one request;
        a choice among several must be made at the rank's clock: pay first.)"""
        clock = self.clock_s()
        for req in requests:
            req.waited = True
        self.waiting = True
        self.proc.hibernate(requests)
        for req in requests:
            req.waited = False
        now = self.sim.now
        self.owed_s = clock - now if clock > now else 0.0

    def wait(self, req) -> None:
        while not req.done:
            self.block((req,))
        self.take(req)

    def wait_all(self, requests) -> None:
        """:meth:`wait` on every active request of ``requests`` in turn."""
        for req in requests:
            if req.active:
                self.wait(req)

    def take(self, req) -> None:
        """The rank takes over completed ``req``: it spends the receive overhead it still owes (once)."""
        self.owed_s += req.overhead_due_s
        req.overhead_due_s = 0.0

    def wait_probe(self, comm, source, tag, ctx) -> Status:
        while True:
            status = self.iprobe(comm, source, tag, ctx)
            if status is not None:
                return status
            self.probing = True
            self.waiting = True
            self.proc.hibernate(("probe", comm, source, tag))
            self.probing = False

    def unreceived(self) -> list:
        """Envelopes that arrived but were never received (in arrival order)."""
        entries = [entry for by_src in self.unexpected.values() for items in by_src.values() for entry in items]
        return [env for _, env in sorted(entries, key=lambda e: e[0])] + list(self.early.values())
