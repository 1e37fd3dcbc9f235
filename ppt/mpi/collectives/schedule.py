"""A collective call as one rank's schedule: plain data that the MPI engine executes step by step.

A :class:`Schedule` is one rank's part of one collective call: integers only,
so that the compiled engine executes it (``ppt/mpi/engine/core/run.c``). It works on
numbered *slots*; a slot holds a payload (any Python object, kept in Python
beside the engine) and its size in bytes.

A schedule is a list of steps; a step is ``(posts, waits, combines)``:

``posts``
    ``(kind, peer, slot, count)`` per message, in the order they are posted:
    ``SEND`` sends slots ``slot .. slot + count - 1`` to rank ``peer`` of the
    communicator (their sizes summed, bytes), ``RECV`` receives from ``peer``
    into those slots (payloads and sizes).  Posts are numbered over the whole
    schedule from 0, in order: a post's number names its request.
``waits``
    request numbers (of this or earlier steps), in the order the rank waits
    for them; taking over a completed receive costs the rank its receive
    overhead, as a blocking wait does.  ``~n`` (that is, -1 - n) waits for
    the sends that relay ``n`` forwarded, each in turn.
``combines``
    ``(code, dst, a, b)``, run in order once the step's waits are over:
    ``OP``: slot ``dst`` <- ``op(slot a, slot b)`` (payloads; ``dst`` keeps
    its size); ``UNPACK``: slots ``dst .. dst + b - 1`` <- the ``b`` items of the
    list in slot ``a`` (payloads; the slots keep their sizes).

A step's posts go out once the previous step's combines have run (the first
step's at the call).  A message of one slot carries its payload; of several,
the tuples of their payloads and sizes.

*Streams* carry what a receiver cannot know in advance: how many messages a
peer it never hears from directly sends it (an all-gatherv's blocks, cut into
as many pieces as their sizes ask).  Every message of a stream carries a
*mark*, how many messages of its stream follow it (0: the last; the engine
sends the mark in place of a payload):

``STREAM`` post ``(STREAM, peer, slot, count)``
    sends slots ``slot .. slot + count - 1`` to ``peer``, one message each, in
    order, message i marked ``count - 1 - i``; it takes ``count`` request
    numbers, one per message.
``RELAY`` post ``(RELAY, source, dest, streams)``
    receives ``streams`` streams from ``source``, one after the other, each
    message into a new slot after the last one (the slots grow), and once it
    has taken a message over sends it on to ``dest`` with its mark (not if
    ``dest`` is negative).  Its first receive goes out with the post; its one
    request number names the relay: a wait for it takes each message over,
    forwards it, posts the next receive, and is over once the last stream's
    last message is; ``~n`` then waits for its forwarded sends.

A *flow* does what a rank cannot order in advance: act on messages in the
order they come (NCCL's tree all-reduce, whose chunks come up from children
and down from the parent at once).  It is :class:`Flow` number ``flow`` of
the schedule's ``flows``:

``FLOW`` post ``(FLOW, flow, 0, 0)``
    posts the flow's receives, ``(peer, count)`` per peer in turn, ``count``
    from ``peer``; each message carries a mark, the slot it fills (its key),
    and the slot is then *ready*.  Its one request number names the flow: a
    wait for it runs the flow's *streams* until each has run all its tasks,
    and ``~n`` then waits for the flow's sends, in the order they went out.

A task ``(needs, combines, sends)`` runs once every slot of ``needs`` is
ready and fewer than ``window`` earlier tasks of its stream (those that sent
anything) have sends not yet complete: it runs ``combines`` (codes as above;
each destination slot is then ready) and posts ``sends``, ``(peer, slot,
mark)`` each, a message of one slot carrying ``mark``.  The streams take
turns, in order, one task each per round, until none can run one; then
the rank takes over the receives that completed (each peer's in order) and
goes on, or, if none completed and no stream's window freed, waits for
whichever of its next receive from each peer and the first pending send of
each stream held by its window completes first.
"""
from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numpy as np


def _holds_payload(values: list) -> bool:
    """Whether any of a collective's slot ``values`` holds a payload (is not None; an array is not compared)."""
    for value in values:
        if value is not None:
            return True
    return False


#: Post kinds.
SEND, RECV, STREAM, RELAY, FLOW = 0, 1, 2, 3, 4
#: Combine codes.
OP, UNPACK = 0, 1


class Flow(NamedTuple):
    """Messages acted on as they come (the module's ``FLOW``): ``receives``, ``(peer, count)`` pairs;
    ``streams``, each a tuple of ``(needs, combines, sends)`` tasks; ``window``, the most tasks of a
    stream with sends in flight."""
    receives: tuple
    streams: tuple
    window: int


class Schedule(NamedTuple):
    """One rank's part of a collective call: its steps (``(posts, waits, combines)`` tuples), over
    ``slots`` payload slots, and its :class:`Flow` s."""
    slots: int
    steps: tuple
    flows: tuple = ()

    @property
    def nsteps(self) -> int:
        return len(self.steps)


class Rounds:
    """A schedule of ``sendrecv`` rounds alone (as :meth:`Builder.sendrecv` makes them, one slot each way),
    kept as int arrays: the form of the O(P) algorithms (pairwise alltoall, the rings), made in one go
    instead of step by step.

    Round k receives from ``sources[k]`` into slot ``intos[k]`` and sends slot ``sends[k]`` to
    ``dests[k]`` (its posts are numbered 2k and 2k + 1), then, if ``combines[k, 0] >= 0``, runs ``OP``
    with ``combines[k]`` as ``(dst, a, b)`` (``combines`` None: no round combines).  :attr:`steps`
    gives the same schedule in :class:`Schedule`'s form, written by :class:`Builder` when first asked
    for.
    """

    __slots__ = ("slots", "dests", "sends", "sources", "intos", "combines", "_steps")
    flows = ()

    def __init__(self, slots: int, dests, sends, sources, intos, combines=None):
        self.slots = slots
        self.dests, self.sends, self.sources, self.intos = dests, sends, sources, intos
        self.combines = np.full((len(dests), 3), -1) if combines is None else combines
        self._steps = None

    @property
    def nsteps(self) -> int:
        return len(self.dests)

    @property
    def steps(self) -> tuple:
        if self._steps is None:
            b = Builder()
            columns = [a.tolist() for a in (self.dests, self.sends, self.sources, self.intos, self.combines)]
            for dest, slot, source, into, op in zip(*columns):
                b.sendrecv(dest, slot, source, into)
                if op[0] >= 0:
                    b.combine(OP, *op)
            self._steps = b.schedule(self.slots).steps
        return self._steps

    def then(self, other: "Rounds") -> "Rounds":
        """This schedule's rounds, then ``other``'s (over ``other``'s slots)."""
        return Rounds(other.slots, *(np.concatenate((getattr(self, f), getattr(other, f)))
                                     for f in ("dests", "sends", "sources", "intos", "combines")))


class Builder:
    """Writes a schedule in the order a rank acts: post, wait, combine, post again ...

    A post after waits or combines starts a new step, as does a wait after combines.
    """

    __slots__ = ("steps", "posts", "waits", "combines", "posted", "flows")

    def __init__(self):
        self.steps = []
        self.flows = []
        self.posts, self.waits, self.combines = [], [], []
        self.posted = 0

    def _close(self) -> None:
        if self.posts or self.waits or self.combines:
            self.steps.append((tuple(self.posts), tuple(self.waits), tuple(self.combines)))
            self.posts, self.waits, self.combines = [], [], []

    def _post(self, kind: int, peer: int, slot: int, count: int) -> int:
        if self.waits or self.combines:
            self._close()
        self.posts.append((kind, peer, slot, count))
        self.posted += 1
        return self.posted - 1

    def send(self, peer: int, slot: int, count: int = 1) -> int:
        """Post a send of slots ``slot .. slot + count - 1`` to ``peer``; its request number."""
        return self._post(SEND, peer, slot, count)

    def recv(self, peer: int, slot: int, count: int = 1) -> int:
        """Post a receive from ``peer`` into slots ``slot .. slot + count - 1``; its request number."""
        return self._post(RECV, peer, slot, count)

    def stream(self, peer: int, slot: int, count: int) -> list[int]:
        """Post slots ``slot .. slot + count - 1`` to ``peer`` as one stream; their request numbers."""
        first = self._post(STREAM, peer, slot, count)
        self.posted += count - 1
        return list(range(first, first + count))

    def relay(self, source: int, dest: int, streams: int) -> int:
        """Post a relay of ``streams`` (at least one) streams from ``source`` on to ``dest`` (negative:
        kept); its request number (``~`` it for its forwarded sends)."""
        return self._post(RELAY, source, dest, streams)

    def flow(self, flow: Flow) -> int:
        """Post ``flow``; its request number (``~`` it for its sends)."""
        self.flows.append(flow)
        return self._post(FLOW, len(self.flows) - 1, 0, 0)

    def sendrecv(self, dest: int, slot: int, source: int, into: int, count: int = 1, into_count: int = 1) -> None:
        """Receive from ``source`` into slots ``into ..`` (``into_count`` of them) and send slots
        ``slot ..`` (``count``) to ``dest``, then wait for both: one step (the common one, so built
        in one call)."""
        self._close()
        first = self.posted
        self.posts = ((RECV, source, into, into_count), (SEND, dest, slot, count))   # closed: waits follow
        self.waits = [first, first + 1]
        self.posted = first + 2

    def wait(self, *requests: int) -> None:
        """Wait for ``requests``, in this order."""
        if self.combines:
            self._close()
        self.waits.extend(requests)

    def combine(self, code: int, dst: int, a: int, b: int = 0) -> None:
        """Combine slots once the step's waits are over (codes as the module describes)."""
        self.combines.append((code, dst, a, b))

    def schedule(self, slots: int) -> Schedule:
        self._close()
        return Schedule(slots, tuple(self.steps), tuple(self.flows))


class _FlowState(NamedTuple):
    """A flow in an :class:`Exchange`: per peer its receives' positions still to come, per stream its
    next task, per slot whether it is ready."""
    flow: Flow
    queues: list
    next_task: list
    ready: list


# -- what the form means for payloads: shared by every executor ----------------------------------
def pack(values: list, sizes: list, slot: int, count: int) -> tuple:
    """``(payload, bytes)`` of a message carrying slots ``slot .. slot + count - 1``."""
    if count == 1:
        return values[slot], sizes[slot]
    parts = tuple(sizes[slot:slot + count])
    return (tuple(values[slot:slot + count]), parts), sum(parts)


def unpack(values: list, sizes: list, slot: int, count: int, data, nbytes: int) -> None:
    """Fill slots ``slot .. slot + count - 1`` from a received message (``data``, ``nbytes`` bytes)."""
    if count == 1:
        values[slot], sizes[slot] = data, nbytes
    else:
        values[slot:slot + count], sizes[slot:slot + count] = data


def combine(values: list, op, combines) -> None:
    """Run a step's ``combines`` on the slots' payloads."""
    for code, dst, a, b in combines:
        if code == OP:
            values[dst] = op(values[a], values[b])
        else:
            values[dst:dst + b] = values[a]


def run_task(values: list, sizes: list, op, task, ready: list) -> list:
    """Run a flow's ``task`` (:class:`Flow`): its combines, whose destinations become ``ready``; its
    messages, ``(peer, (payload, mark), bytes)`` each."""
    _, combines, sends = task
    combine(values, op, combines)
    for _, dst, _, _ in combines:
        ready[dst] = True
    return [(peer, (values[slot], mark), sizes[slot]) for peer, slot, mark in sends]


def file_message(values: list, sizes: list, ready: list, data, nbytes: int) -> None:
    """File a flow's received message (``(payload, mark)``, ``nbytes`` bytes) in the slot its mark names."""
    payload, mark = data
    values[mark], sizes[mark] = payload, nbytes
    ready[mark] = True


class Exchange:
    """One collective call executed for its payloads alone, in no time, on its ranks as they join it.

    :meth:`add` a rank's ``(schedule, values, sizes, op)``; :meth:`values` gives a rank's slots once
    its schedule can be done with the messages of the ranks added so far.  A receive gets the message
    its peer posted to it in the same position (the n-th receive from a peer, the peer's n-th send to
    it: MPI's non-overtaking order).  ``left``: ranks still to take their values.
    """

    def __init__(self, size: int):
        self.left = size
        #: Some rank's slots hold a payload (else every rank's result is its slots as they are).
        self.carries = False
        self.runs: dict[int, tuple] = {}
        self.sent: dict[tuple, list] = {}           # (source, destination) -> messages, in the order sent
        self.posted: dict[tuple, int] = {}          # (source, destination) -> receives posted so far
        self.state: dict[int, list] = {}            # step, waits done, requests, step not posted yet
        self.pending: set[int] = set()

    def add(self, me: int, schedule, values: list, sizes: list, op) -> None:
        self.carries = self.carries or _holds_payload(values)
        self.runs[me] = (schedule, values, sizes, op)
        self.state[me] = [0, 0, [], True]
        self.pending.add(me)

    def values(self, me: int) -> list:
        """Rank ``me``'s slots at the end of its schedule; ValueError if it waits for a message no rank
        added so far sends."""
        progressed = True
        while progressed and me in self.pending:
            progressed = False
            for rank in sorted(self.pending):
                if self._advance(rank):
                    progressed = True
        if me in self.pending:
            raise ValueError(f"rank {me} of the call waits for messages no rank of it has sent")
        self.left -= 1
        return self.runs[me][1]

    def result(self, me: int) -> list:
        """Rank ``me``'s slots once its part has run: :meth:`values` if any rank's slots hold a payload,
        else its slots as they are (computing nothing)."""
        if self.carries:
            return self.values(me)
        self.left -= 1
        return self.runs[me][1]

    def _advance(self, me: int) -> bool:
        """Run rank ``me``'s schedule as far as the messages sent allow; True if it moved."""
        schedule, values, sizes, op = self.runs[me]
        st, moved = self.state[me], False
        while st[0] < len(schedule.steps):
            posts, waits, combines = schedule.steps[st[0]]
            if st[3]:
                for post in posts:
                    self._post(me, schedule, st[2], values, sizes, *post)
                st[3], moved = False, True
            while st[1] < len(waits):
                n = waits[st[1]]
                req = st[2][n] if n >= 0 else None             # a relay's forwards have all left
                if type(req) is list:
                    if not self._relay(me, req, values, sizes):
                        return moved
                elif type(req) is _FlowState:
                    done, progressed = self._flow(me, req, values, sizes, op)
                    moved = moved or progressed
                    if not done:
                        return moved
                elif req is not None:
                    peer, slot, count, n = req
                    messages = self.sent.get((peer, me), ())
                    if len(messages) <= n:
                        return moved
                    unpack(values, sizes, slot, count, *messages[n])
                st[1], moved = st[1] + 1, True
            combine(values, op, combines)
            st[0], st[1], st[3] = st[0] + 1, 0, True
        self.pending.discard(me)
        return True

    def _receive(self, source: int, me: int) -> int:
        """Post a receive of ``me`` from ``source``: its position among the messages ``source`` sends ``me``."""
        n = self.posted.get((source, me), 0)
        self.posted[(source, me)] = n + 1
        return n

    def _post(self, me: int, schedule, reqs: list, values: list, sizes: list, kind: int, peer: int, slot: int,
              count: int) -> None:
        """Post one entry of a step's posts; its requests go to ``reqs`` (a send's: None)."""
        if kind == SEND:
            self.sent.setdefault((me, peer), []).append(pack(values, sizes, slot, count))
            reqs.append(None)
        elif kind == RECV:
            reqs.append((peer, slot, count, self._receive(peer, me)))
        elif kind == STREAM:
            sent = self.sent.setdefault((me, peer), [])
            for i in range(count):
                sent.append(((values[slot + i], count - 1 - i), sizes[slot + i]))
                reqs.append(None)
        elif kind == RELAY:                                 # a relay: [source, dest, streams left, position]
            reqs.append([peer, slot, count, self._receive(peer, me)])
        else:
            flow = schedule.flows[peer]
            queues = [(source, deque(self._receive(source, me) for _ in range(n))) for source, n in flow.receives]
            reqs.append(_FlowState(flow, queues, [0] * len(flow.streams), [False] * len(values)))

    def _flow(self, me: int, state, values: list, sizes: list, op) -> tuple[bool, bool]:
        """Run flow ``state`` as far as the messages sent allow (its windows limit time, not payloads):
        whether every stream has run all its tasks, and whether it moved."""
        flow, queues, next_task, ready = state
        moved, progressed = True, False
        while moved:
            moved = False
            for source, positions in queues:
                messages = self.sent.get((source, me), ())
                while positions and len(messages) > positions[0]:
                    file_message(values, sizes, ready, *messages[positions.popleft()])
                    moved = True
            for s, tasks in enumerate(flow.streams):
                while next_task[s] < len(tasks) and all(ready[slot] for slot in tasks[next_task[s]][0]):
                    for peer, data, nbytes in run_task(values, sizes, op, tasks[next_task[s]], ready):
                        self.sent.setdefault((me, peer), []).append((data, nbytes))
                    next_task[s] += 1
                    moved = True
            progressed = progressed or moved
        return all(n == len(tasks) for n, tasks in zip(next_task, flow.streams)), progressed

    def _relay(self, me: int, relay: list, values: list, sizes: list) -> bool:
        """Take relay ``relay``'s messages as far as they have come; True once its last stream is in."""
        source, dest, left, n = relay
        messages = self.sent.get((source, me), ())
        while left and len(messages) > n:
            (data, mark), nbytes = messages[n]
            values.append(data)
            sizes.append(nbytes)
            if dest >= 0:
                self.sent.setdefault((me, dest), []).append(((data, mark), nbytes))
            left -= mark == 0
            if left:
                n = self._receive(source, me)
        relay[2], relay[3] = left, n
        return not left
