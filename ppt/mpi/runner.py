"""Runs one rank's collective schedule (:mod:`ppt.mpi.schedule`) from message-completion callbacks.

The rank's process sleeps once, from the call to the collective's completion;
the runner posts each step's messages as the previous step's waits end, as
:class:`~ppt.mpi.ibarrier.BarrierRequest` progresses its rounds.  Timing is
that of a rank that runs the schedule itself with blocking waits
(:mod:`ppt.mpi.p2p`): posts happen at the rank's clock, a send owes the send
overhead, a wait for a pending request ends at the later of the request's
completion and the rank's clock, and taking over a receive owes the receive
overhead.  Where such a rank would wake up (an event at the completion of the
request it waits for), the runner runs an event of the rank's entity in its
place, so the same messages go out at the same simulated times in the same
order of events.
"""
from __future__ import annotations

from ppt.mpi.p2p import STANDARD, Request
from ppt.mpi.schedule import RECV, SEND, STREAM, combine, pack, unpack


class _Post(Request):
    """A message of a schedule: ``run`` is told when it completes; ``slot``/``count`` it fills or carries."""

    __slots__ = ("run", "slot", "count")

    def finish(self) -> None:
        self.done = True
        run = self.run
        if run.awaited is self:
            run.awaited = None
            run.entity.schedule(0.0, run.resume, None)


class _Relay:
    """A relay of the schedule (:data:`~ppt.mpi.schedule.RELAY`) in progress: its receive ``current``,
    the streams still to come (``left``), and its forwarded sends, the first ``taken`` of them
    taken over."""

    __slots__ = ("source", "dest", "left", "current", "forwards", "taken")

    def __init__(self, source: int, dest: int, streams: int, current):
        self.source, self.dest, self.left, self.current = source, dest, streams, current
        self.forwards = []
        self.taken = 0


class Run:
    """One rank executing ``schedule`` for collective call ``c`` (a :class:`~ppt.mpi.collectives.Coll`).

    ``values``/``sizes`` (bytes): the slots, filled in place; ``op`` combines ``OP`` slots.
    """

    __slots__ = ("c", "rank", "entity", "steps", "values", "sizes", "op", "reqs", "step", "waited",
                 "clock_s", "awaited", "blocked", "error")

    def __init__(self, c, schedule, values: list, sizes: list, op=None):
        self.c = c
        self.rank = c.rank
        self.entity = c.rank.proc.entity
        self.steps = schedule.steps
        self.values = values
        self.sizes = sizes
        self.op = op
        self.reqs = []
        self.step = 0
        #: Waits of the current step that are over.
        self.waited = 0
        #: The rank's clock when it started waiting for ``awaited``, s.
        self.clock_s = 0.0
        self.awaited = None
        #: What the rank's process is blocked in, for deadlock reports: the request it waits for.
        self.blocked = [None]
        self.error = None

    def execute(self) -> list:
        """Run the whole schedule in the rank's process; returns ``values``."""
        if self.steps:
            try:
                if not self._proceed(True):
                    self.rank.proc.hibernate(self.blocked)
                    if self.error is not None:
                        raise self.error
            finally:
                self.reqs = self.blocked = None     # the requests point back here: no cycle left to the collector
        return self.values

    def resume(self, _) -> None:
        """Service: the awaited request completed; go on where a waiting rank would wake up."""
        rank = self.rank
        now, clock = rank.sim.now, self.clock_s
        rank.owed_s = clock - now if clock > now else 0.0
        try:
            done = self._proceed(False)
        except Exception as exc:          # raised in the rank's process, as a rank running the steps would
            self.error = exc
            done = True
        if done:
            rank.proc.resume(None)

    def _proceed(self, fresh: bool) -> bool:
        """Post the current step's messages (if ``fresh``), take over its completed requests in wait
        order, combine, go on to the next step ...; True once every step is done, False at the first
        pending request (then ``awaited``).  Runs once per message, so the rank's ``take`` and the
        receive's header check are inlined."""
        steps, reqs, rank, values, sizes, c = self.steps, self.reqs, self.rank, self.values, self.sizes, self.c
        comm, tag, ctx, hdr = c.comm, c.tag, c.ctx, c.hdr
        step, waited = self.step, self.waited
        while True:
            posts, waits, combines = steps[step]
            if fresh:
                for kind, peer, slot, count in posts:
                    if kind <= RECV:                        # a send or receive: _send and _recv, inlined
                        req = _Post.__new__(_Post)
                        req.run, req.slot, req.count = self, slot, count
                        if kind == SEND:
                            data, nbytes = (values[slot], sizes[slot]) if count == 1 else pack(values, sizes, slot, count)
                            rank.isend(comm, peer, tag, nbytes, (hdr, data), ctx, STANDARD, req)
                        else:
                            rank.irecv(comm, peer, tag, ctx, req)
                        reqs.append(req)
                    elif kind == STREAM:
                        reqs.extend(self._send(peer, (values[slot + i], count - 1 - i), sizes[slot + i])
                                    for i in range(count))
                    else:
                        reqs.append(_Relay(peer, slot, count, self._recv(peer)))
            while waited < len(waits):
                n = waits[waited]
                req = reqs[n] if n >= 0 else reqs[~n]
                if req.__class__ is _Relay:
                    req = self._relay(req) if n >= 0 else self._forwards(req)
                    if req is None:
                        waited += 1
                        continue
                if not req.done:
                    self.step, self.waited = step, waited
                    self.clock_s = rank.sim.now + rank.owed_s
                    self.awaited = self.blocked[0] = req
                    return False
                rank.owed_s += req.overhead_due_s           # Rank.take
                req.overhead_due_s = 0.0
                if not req.is_send:
                    got, data = req.value
                    if got != hdr:
                        c.value(req)                          # raises the collective-mismatch error
                    if req.count == 1:
                        values[req.slot], sizes[req.slot] = data, req.status.bytes
                    else:
                        unpack(values, sizes, req.slot, req.count, data, req.status.bytes)
                waited += 1
            if combines:
                combine(values, self.op, combines)
            step += 1
            if step == len(steps):
                return True
            waited = 0
            fresh = True

    def _send(self, peer: int, data, nbytes: int) -> _Post:
        """Post a send of ``data`` (``nbytes`` bytes) to ``peer``."""
        req = _Post.__new__(_Post)
        req.run, req.slot, req.count = self, 0, 1
        c = self.c
        self.rank.isend(c.comm, peer, c.tag, nbytes, (c.hdr, data), c.ctx, STANDARD, req)
        return req

    def _recv(self, peer: int) -> _Post:
        """Post a relay's receive from ``peer`` (into a slot it makes when the message is taken)."""
        req = _Post.__new__(_Post)
        req.run, req.slot, req.count = self, -1, 1
        c = self.c
        self.rank.irecv(c.comm, peer, c.tag, c.ctx, req)
        return req

    def _relay(self, relay: _Relay):
        """Take ``relay``'s completed receives in turn, each into a new slot, forwarding it and posting
        the next receive; its pending receive, or None once its last stream is in."""
        rank, values, sizes = self.rank, self.values, self.sizes
        while True:
            req = relay.current
            if not req.done:
                return req
            rank.owed_s += req.overhead_due_s                   # Rank.take
            req.overhead_due_s = 0.0
            (data, mark), nbytes = self.c.value(req)
            values.append(data)
            sizes.append(nbytes)
            if relay.dest >= 0:
                relay.forwards.append(self._send(relay.dest, (data, mark), nbytes))
            relay.left -= mark == 0
            if not relay.left:
                return None
            relay.current = self._recv(relay.source)

    def _forwards(self, relay: _Relay):
        """Take ``relay``'s forwarded sends over in turn; the first pending one, or None once all are."""
        forwards, rank = relay.forwards, self.rank
        while relay.taken < len(forwards):
            req = forwards[relay.taken]
            if not req.done:
                return req
            rank.owed_s += req.overhead_due_s
            req.overhead_due_s = 0.0
            relay.taken += 1
        return None
