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

from collections import deque

from ppt.mpi.p2p import STANDARD, Request
from ppt.mpi.schedule import RECV, RELAY, SEND, STREAM, combine, file_message, pack, run_task, unpack


class _Post(Request):
    """A message of a schedule: ``run`` is told when it completes; ``slot``/``count`` it fills or carries."""

    __slots__ = ("run", "slot", "count")

    def finish(self) -> None:
        self.done = True
        run = self.run
        awaited = run.awaited
        if awaited is self or self.waited and awaited is not None:     # waited: one of a flow's heads
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


class _Flow:
    """A flow of the schedule (:data:`~ppt.mpi.schedule.FLOW`) in progress: its receives per peer
    still to be taken over (``queues``), per stream its tasks, next task and the sends of its tasks in
    flight (``streams``), its slots' readiness, its sends in order (the first ``taken`` taken over),
    and the requests it waits for (``heads``, None while it does not)."""

    __slots__ = ("queues", "streams", "window", "ready", "sends", "taken", "heads")

    def __init__(self, flow, queues: list, slots: int):
        self.queues = queues
        self.streams = [[tasks, 0, deque()] for tasks in flow.streams if tasks]
        self.window = flow.window
        self.ready = [False] * slots
        self.sends = []
        self.taken = 0
        self.heads = None


class Run:
    """One rank executing ``schedule`` for collective call ``c`` (a :class:`~ppt.mpi.collectives.Coll`).

    ``values``/``sizes`` (bytes): the slots, filled in place; ``op`` combines ``OP`` slots.
    """

    __slots__ = ("c", "rank", "entity", "schedule", "steps", "values", "sizes", "op", "reqs", "step", "waited",
                 "clock_s", "awaited", "blocked", "error")

    def __init__(self, c, schedule, values: list, sizes: list, op=None):
        self.c = c
        self.rank = c.rank
        self.entity = c.rank.proc.entity
        self.schedule = schedule
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
                    elif kind == RELAY:
                        reqs.append(_Relay(peer, slot, count, self._recv(peer)))
                    else:
                        reqs.append(self._start_flow(peer))
            while waited < len(waits):
                n = waits[waited]
                req = reqs[n] if n >= 0 else reqs[~n]
                if req.__class__ is not _Post:
                    if req.__class__ is _Relay:
                        req = self._relay(req) if n >= 0 else self._forwards(req)
                    else:
                        req = self._flow(req) if n >= 0 else self._flow_sends(req)
                    if req is None:
                        waited += 1
                        continue
                    if req.__class__ is list:               # a flow waits for whichever comes first
                        self.step, self.waited = step, waited
                        self.clock_s = rank.sim.now + rank.owed_s
                        for head in req:
                            head.waited = True
                        self.awaited = req
                        self.blocked[0] = req[0]
                        return False
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

    def _start_flow(self, index: int) -> _Flow:
        """Post the receives of the schedule's flow ``index``."""
        flow = self.schedule.flows[index]
        queues = [deque(self._recv(peer) for _ in range(count)) for peer, count in flow.receives]
        return _Flow(flow, queues, len(self.values))

    def _flow(self, flow: _Flow):
        """Run ``flow`` on (after a wait, first taking over its completed receives): its heads to wait
        for, none complete, or None once every stream has run all its tasks."""
        if flow.heads is not None:
            for head in flow.heads:
                head.waited = False
            self._arrivals(flow)
        while True:
            self._run_streams(flow)
            if not flow.streams:
                flow.heads = None
                return None
            heads = [queue[0] for queue in flow.queues if queue]
            heads += [next(req for req in flying[0] if not req.done)
                      for _, _, flying in flow.streams if len(flying) >= flow.window]
            flow.heads = heads
            if not any(req.done for req in heads):
                return heads
            self._arrivals(flow)

    def _arrivals(self, flow: _Flow) -> None:
        """Take over the flow's completed receives, each peer's in order, filing each by its mark."""
        rank, values, sizes, ready = self.rank, self.values, self.sizes, flow.ready
        for queue in flow.queues:
            while queue and queue[0].done:
                req = queue.popleft()
                rank.owed_s += req.overhead_due_s                   # Rank.take
                req.overhead_due_s = 0.0
                file_message(values, sizes, ready, *self.c.value(req))

    def _run_streams(self, flow: _Flow) -> None:
        """The streams take turns, one task each per round, until none can run one; streams that
        have run all their tasks leave."""
        values, sizes, op, ready, window = self.values, self.sizes, self.op, flow.ready, flow.window
        moved = True
        while moved:
            moved = False
            for stream in flow.streams:
                tasks, k, flying = stream
                while flying and all(req.done for req in flying[0]):
                    flying.popleft()
                if k < len(tasks) and len(flying) < window and all(ready[slot] for slot in tasks[k][0]):
                    sent = [self._send(peer, data, nbytes)
                            for peer, data, nbytes in run_task(values, sizes, op, tasks[k], ready)]
                    if sent:
                        flying.append(sent)
                        flow.sends.extend(sent)
                    stream[1] = k + 1
                    moved = True
            flow.streams = [stream for stream in flow.streams if stream[1] < len(stream[0])]

    def _flow_sends(self, flow: _Flow):
        """Take the flow's sends over in turn; the first pending one, or None once all are."""
        sends = flow.sends
        while flow.taken < len(sends):
            req = sends[flow.taken]
            if not req.done:
                return req
            flow.taken += 1
        return None

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
