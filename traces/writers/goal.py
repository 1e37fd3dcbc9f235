"""Any op-stream trace written as a GOAL text schedule (LogGOPSim, Schedgen, ATLAHS).

The schedule says what PPT's replay of the trace does, so that reading it back
(:mod:`ppt.traces.readers.goal`) and replaying it predicts what replaying the trace
predicts:

* every rank runs in program order: each GOAL operation depends on the one
  before it (``irequires`` after a send or receive, which need only have
  started; ``requires`` after a ``calc``, which must have ended);
* the compute gap before an op is a ``calc`` of its nanoseconds, on the clock
  replay would use (:func:`ppt.traces.replay.choose_clock`), with the gaps up
  to the end of MPI_Init dropped as replay drops them (unless
  ``keep_startup``), times ``compute_scale``;
* nonblocking sends and receives are ``send``/``recv`` operations; whatever
  completes them (Wait, Waitall, a Test that succeeded, Waitany/Waitsome at
  the recorded indices) becomes ``requires`` edges from the next operation;
  blocking calls are the operation plus that edge; Sendrecv posts its receive
  first, as the simulated MPI does;
* a collective (and the communicator creations, which agree on a context with
  an allreduce or, for Comm_split, an allgather) becomes the point-to-point
  messages of the algorithm PPT's simulated MPI would run for it on that
  communicator (:mod:`ppt.mpi.collectives.calls`: the job's ``algorithms`` choice,
  else the default rule), found by walking the algorithm's schedule
  (:mod:`ppt.mpi.collectives.schedule`; NCCL's tree: running the algorithm) for
  every member on recording stand-ins of its messages; communicator membership is
  tracked across ranks from the recorded Comm_dup/split/create, Cart_create/sub
  and group calls;
* peers are world ranks; tags keep COMM_WORLD's user tags, and give every other
  (communicator, tag) pair, and every collective call, a tag of its own from
  :data:`CONTEXT_TAG_BASE` up, so messages match as they would in their own
  contexts.

A probe that found a message (MPI_Probe, an MPI_Iprobe that succeeded)
waits in replay until a matching message has arrived.  GOAL has no probe:
the writer posts the receive that takes the probed message (the rank's next
Recv, Irecv or Sendrecv on that communicator whose source and tag admit it)
at the probe instead of at its own place, and the operation after the probe
``requires`` it, so the rank waits there for the message's arrival.  That is
replay's timing when the message is eager and, for a probe of
``ANY_SOURCE``, when it is the first matching one to arrive in the
simulation -- the traced probe found the message the program then received
(its status records the source), but replay's probe takes the first to
arrive, and GOAL cannot wait for the first of several messages without
receiving it.  The rank spends the receive overhead at the probe rather
than at the later Recv or Wait, which changes no time when only compute lies
between the two.

Nonblocking collectives are refused: the writer expands a collective in its place in the rank's order, with
no operation standing for its request.

What GOAL cannot say is left out and counted (``dropped`` in the result):
the unsuccessful tests and probes, whose only cost in replay is the poll
overhead of repeated ones (:attr:`ppt.mpi.settings.MPISettings.poll_overhead_s`),
and a probe whose message no later receive takes.  Wildcard tags
(``ANY_TAG``) become GOAL's ``-1``, which would also match messages of other
communicators and collectives.  docs/goal.md measures what this changes on
the shared traces.
"""
from __future__ import annotations

import math
from collections import Counter, deque

from ppt.errors import TraceError
from ppt.mpi import MAX, SUM
from ppt.mpi import Op as ReductionOp
from ppt.mpi.collectives import calls as coll
from ppt.mpi.collectives.schedule import RECV, SEND, STREAM, combine, pack, unpack
from ppt.traces.handles import RequestFifos, _user_op
from ppt.oprecord import (ANY_SOURCE, ANY_TAG, AUX_LEN, AUX_START, CALL, COMM, COMM_SELF, COMM_WORLD, FIRST_USER_OP, FLAG, GAP_CPU_S,
    GAP_WALL_S, KIND, NBYTES, NONBLOCKING_COLLECTIVES, OP, PEER, PROC_NULL, REQUEST, ROOT, TAG, UNDEFINED, Op)

#: Tags of messages outside COMM_WORLD's user context start here (MPI tags of COMM_WORLD must be below it).
CONTEXT_TAG_BASE = 2**30
#: Bytes of an int in the simulated MPI's communicator agreement (Comm.dup/create, Cart_create: an
#: allreduce of one int; Comm_split: an allgather of three).
INT_B = 4

#: How many ops past a probe that found a message the writer looks for the receive that takes it.
PROBE_LOOKAHEAD = 100_000

_COLLECTIVES = {Op.BARRIER, Op.BCAST, Op.REDUCE, Op.ALLREDUCE, Op.SCAN, Op.EXSCAN, Op.GATHER, Op.SCATTER,
                Op.SCATTERV, Op.ALLGATHER, Op.ALLGATHERV, Op.ALLTOALL, Op.ALLTOALLV, Op.REDUCE_SCATTER,
                Op.COMM_DUP, Op.COMM_SPLIT, Op.COMM_CREATE, Op.CART_CREATE, Op.CART_SUB}


class _Comm:
    """A communicator as the writer tracks it: ``members`` are world ranks, in rank order."""

    __slots__ = ("uid", "members", "index", "dims", "label")

    def __init__(self, uid, members, label, dims=None):
        self.uid = uid
        self.members = tuple(members)
        self.index = {w: i for i, w in enumerate(self.members)}
        self.dims = dims
        self.label = label

    @property
    def size(self) -> int:
        return len(self.members)


# -- running a collective algorithm on recording stand-ins -----------------------------------------
class _Req:
    __slots__ = ("is_send", "peer", "k", "index", "value", "nbytes")

    def __init__(self, is_send, peer, k, index):
        self.is_send, self.peer, self.k, self.index = is_send, peer, k, index
        self.value, self.nbytes = None, 0


class _Instance:
    """One collective call on one communicator: its members' messages, matched in issue order."""

    def __init__(self, label):
        self.label = label
        self.sent = {}          # (src, dst) -> [(payload, nbytes)] in the order sent
        self.count = 0          # messages sent so far (progress of the members)
        self.main = None


class _Member:
    """Stands in for a simulated rank (``Coll.rank``): records its sends, receives and waits."""

    __slots__ = ("inst", "me", "prims", "received", "call")

    def __init__(self, inst, me, call):
        self.inst, self.me, self.call = inst, me, call
        self.prims = []         # ["send", peer, nbytes] | ["recv", peer, nbytes] | ["wait", prim index]
        self.received = Counter()

    def wait(self, req) -> None:
        if not req.is_send:
            queue = self.inst.sent.setdefault((req.peer, self.me), [])
            while len(queue) <= req.k:
                self.inst.main.switch()
            req.value, req.nbytes = queue[req.k]
            self.prims[req.index][2] = req.nbytes
        self.prims.append(["wait", req.index])

    def error(self, message, call=None) -> TraceError:
        return TraceError(f"rank {self.me} of {self.inst.label} in {call or self.call}: {message}")


class _Recording(coll.Coll):
    """A :class:`ppt.mpi.collectives.calls.Coll` whose messages are recorded instead of sent."""

    __slots__ = ()

    def __init__(self, member: _Member, size: int, label: str):
        self.rank, self.me, self.size = member, member.me, size
        self.comm = _Label(label)
        self.hdr = self.tag = self.ctx = None

    def isend(self, dest, nbytes, data):
        member = self.rank
        inst = member.inst
        inst.sent.setdefault((member.me, dest), []).append((data, nbytes))
        inst.count += 1
        member.prims.append(["send", dest, nbytes])
        return _Req(True, dest, 0, len(member.prims) - 1)

    def irecv(self, source):
        member = self.rank
        k = member.received[source]
        member.received[source] = k + 1
        member.prims.append(["recv", source, 0])
        return _Req(False, source, k, len(member.prims) - 1)

    def value(self, req):
        return req.value, req.nbytes

    def run(self, schedule, values, sizes, op=None):
        """Walk a schedule (:mod:`ppt.mpi.collectives.schedule`) as a rank with blocking waits would: each step's
        posts, its waits in order, its combines."""
        reqs = []               # per request number: (request, slot, count), or a relay's [source, dest, streams, receive, forwards]
        for step_posts, waits, combines in schedule.steps:
            for kind, peer, slot, count in step_posts:
                if kind == SEND:
                    data, nbytes = pack(values, sizes, slot, count)
                    reqs.append((self.isend(peer, nbytes, data), slot, count))
                elif kind == RECV:
                    reqs.append((self.irecv(peer), slot, count))
                elif kind == STREAM:
                    reqs.extend((self.isend(peer, sizes[slot + i], (values[slot + i], count - 1 - i)), 0, 1)
                                for i in range(count))
                else:
                    reqs.append([peer, slot, count, self.irecv(peer), []])
            for n in waits:
                if n < 0:
                    for req in reqs[~n][4]:
                        self.rank.wait(req)
                elif type(reqs[n]) is list:
                    self._relay(reqs[n], values, sizes)
                else:
                    req, slot, count = reqs[n]
                    self.rank.wait(req)
                    if not req.is_send:
                        unpack(values, sizes, slot, count, *self.value(req))
            combine(values, op, combines)
        return values

    def _relay(self, relay: list, values: list, sizes: list) -> None:
        """Take a relay's messages in turn, each into a new slot, forwarding each and posting the next
        receive, until its last stream is in."""
        source, dest, left, req, forwards = relay
        while True:
            self.rank.wait(req)
            (data, mark), nbytes = self.value(req)
            values.append(data)
            sizes.append(nbytes)
            if dest >= 0:
                forwards.append(self.isend(dest, nbytes, (data, mark)))
            left -= mark == 0
            if not left:
                return
            req = self.irecv(source)


class _Label:
    __slots__ = ("label",)

    def __init__(self, label):
        self.label = label


def _run(label: str, call: str, programs: dict) -> dict:
    """Run ``programs`` (member index -> ``fn(c)``) together; their recorded primitives by member."""
    from greenlet import getcurrent, greenlet
    inst = _Instance(label)
    inst.main = getcurrent()
    members = {me: _Member(inst, me, call) for me in programs}
    size = len(programs)
    lets = {me: greenlet(lambda fn=fn, m=members[me]: fn(_Recording(m, size, label))) for me, fn in programs.items()}
    while lets:
        before = inst.count
        for me in list(lets):
            let = lets[me]
            let.switch()
            if let.dead:
                del lets[me]
        if lets and inst.count == before:
            raise TraceError(f"{call} on {label}: the algorithm's messages do not match up (ranks "
                             f"{sorted(lets)} wait for messages never sent)")
    return {me: m.prims for me, m in members.items()}


# -- a rank's ops, with look-ahead ----------------------------------------------------------------
class _Ahead:
    """A rank's ops in order, each ``(op row, aux values, call name)``, read chunk by chunk; :meth:`peek`
    looks at the ops not handed out yet.  ``position``: the index in the stream of the op handed out last."""

    __slots__ = ("chunks", "ahead", "position")

    def __init__(self, chunks):
        self.chunks = iter(chunks)
        self.ahead = deque()
        self.position = -1

    def _read(self) -> bool:
        chunk = next(self.chunks, None)
        if chunk is None:
            return False
        names, aux = chunk.calls, chunk.aux_list()
        self.ahead.extend((op, aux[op[AUX_START]:op[AUX_START] + op[AUX_LEN]], names[op[CALL]])
                          for op in chunk.rows())
        return True

    def __iter__(self):
        return self

    def __next__(self):
        if not self.ahead and not self._read():
            raise StopIteration
        self.position += 1
        return self.ahead.popleft()

    def peek(self, limit: int):
        """``(position, entry)`` of each of the next ``limit`` ops (fewer at the stream's end)."""
        ahead = self.ahead
        for i in range(limit):
            if i == len(ahead) and not self._read():
                return
            yield self.position + 1 + i, ahead[i]


# -- the writer ---------------------------------------------------------------------------------------
class GoalWriter:
    """Writes one trace as GOAL text; see the module docstring.  ``clock``: ``"wall"`` or ``"cpu"``."""

    def __init__(self, trace, clock: str = "wall", compute_scale: float = 1.0, keep_startup: bool = False,
                 algorithms: dict | None = None, skip_unsupported: bool = False):
        if not 0.0 <= compute_scale < math.inf:
            raise TraceError(f"compute scale {compute_scale} must be a finite number >= 0")
        self.trace = trace
        self.gap_field = GAP_CPU_S if clock == "cpu" else GAP_WALL_S
        self.scale = compute_scale
        self.keep_startup = keep_startup
        self.algorithms = dict(algorithms or {})
        coll.check_algorithms(self.algorithms)
        self.skip_unsupported = skip_unsupported
        self.world = _Comm(0, range(trace.num_ranks), "COMM_WORLD")
        self.next_uid = 1
        self.tags = {}              # (communicator uid, context, tag) -> GOAL tag
        self.taken = set()          # GOAL tags given to those
        self.world_tags = set()     # COMM_WORLD user tags at or above CONTEXT_TAG_BASE
        self.next_tag = CONTEXT_TAG_BASE
        self.dropped = Counter()
        self.counts = Counter()

    # -- tags and communicators -------------------------------------------------------------
    def tag(self, uid, context: str, tag: int) -> int:
        """The GOAL tag of ``tag`` in ``context`` (``"user"`` or ``"coll"``) of communicator ``uid``: COMM_WORLD's
        user tags unchanged, every other (communicator, context, tag) a value of its own from
        :data:`CONTEXT_TAG_BASE` up (skipping COMM_WORLD tags seen so far)."""
        if uid == 0 and context == "user":
            if tag >= CONTEXT_TAG_BASE and tag not in self.world_tags:
                if tag in self.taken:
                    raise TraceError(f"a COMM_WORLD message has tag {tag}, which the GOAL writer gave already to "
                                     f"another communicator's messages (tags from {CONTEXT_TAG_BASE} up)")
                self.world_tags.add(tag)
            return tag
        key = (uid, context, tag)
        value = self.tags.get(key)
        if value is None:
            value = self.next_tag
            while value in self.world_tags:
                value += 1
            if value > 2**31 - 1:
                raise TraceError("the trace has more than 2^30 distinct (communicator, tag) pairs and collective "
                                 "calls: too many for GOAL tags")
            self.next_tag = value + 1
            self.tags[key] = value
            self.taken.add(value)
        return value

    def new_comm(self, members, label, dims=None) -> _Comm:
        comm = _Comm(self.next_uid, members, label, dims)
        self.next_uid += 1
        return comm

    def algorithm(self, kind: str, size: int, nbytes=None, op=None):
        name = self.algorithms.get(kind) or coll.default_algorithm(kind, size, nbytes, op)
        return coll.ALGORITHMS[kind][name]

    # -- the whole trace ------------------------------------------------------------------------
    def ranks(self) -> list:
        """Every rank's GOAL lines (a list of lists of strings), ranks walked together through collectives."""
        trace = self.trace
        nranks = trace.num_ranks
        states = [_RankState(self, r) for r in range(nranks)]
        walkers = [self._walk(states[r]) for r in range(nranks)]
        parked = {}
        ready = deque((r, None) for r in range(nranks))
        while ready:
            r, value = ready.popleft()
            try:
                key, comm, args = walkers[r].send(value)
            except StopIteration:
                continue
            slot = parked.setdefault(key, {})
            slot[r] = args
            if len(slot) == comm.size:
                del parked[key]
                results = self.resolve(comm, key[1], slot)
                ready.extend((w, results[w]) for w in comm.members)
        if parked:
            (uid, seq), slot = next(iter(parked.items()))
            comm = next(iter(slot.values()))[0]
            missing = [w for w in comm.members if w not in slot]
            call = next(iter(slot.values()))[1]
            raise TraceError(f"{call} (collective call {seq} on {comm.label}) is never called by world rank(s) "
                             f"{missing[:8]}: the trace is inconsistent")
        for state in states:
            state.finish()
        return [state.out for state in states]

    def write(self, f) -> dict:
        """Write the schedule to text file ``f``; returns what was written (ranks, operations by kind,
        calls left out)."""
        ranks = self.ranks()
        trace = self.trace
        f.write(f"// GOAL schedule written by PPT (ppt convert) from {trace.name}\n")
        f.write("// calc in ns; collectives expanded into the point-to-point messages of PPT's algorithms\n")
        f.write(f"num_ranks {trace.num_ranks}\n")
        for rank, lines in enumerate(ranks):
            f.write(f"\nrank {rank} {{\n")
            f.write("\n".join(lines))
            f.write("\n}\n" if lines else "}\n")
        return {"ranks": trace.num_ranks, "sends": self.counts["send"], "recvs": self.counts["recv"],
                "calcs": self.counts["calc"], "dropped": dict(self.dropped.most_common())}

    # -- one rank's ops -----------------------------------------------------------------------------
    def _walk(self, st: "_RankState"):
        """Generator: walks rank ``st.rank``'s stream; yields ``(key, comm, args)`` at each collective and
        receives its result."""
        trace = self.trace
        gap_field, scale = self.gap_field, self.scale
        startup = not self.keep_startup
        has_init = trace.has_init(st.rank)
        ops = st.stream = _Ahead(trace.stream(st.rank))
        claimed = st.claimed
        for op, aux, name in ops:
            kind = op[KIND]
            if startup:
                startup = has_init and kind != Op.INIT
            else:
                gap = op[gap_field]
                if gap > 0.0:
                    st.calc(round(gap * scale * 1e9))
            if kind in _COLLECTIVES:
                comm = st.comm(op[COMM], name)
                seq = st.coll_seq[comm.uid] = st.coll_seq.get(comm.uid, 0) + 1
                args = (comm, name, kind, op, aux, st.group_of(kind, aux), st.reduction(op[OP]))
                result = yield (comm.uid, seq), comm, args
                st.collective(comm, seq, kind, aux, result)
                continue
            if claimed and ops.position in claimed:
                _taken(st, op, aux, name, claimed.pop(ops.position))
                continue
            handler = _P2P.get(kind)
            if handler is not None:
                handler(st, op, aux, name)
            elif kind == Op.OTHER:
                if not self.skip_unsupported:
                    raise TraceError(f"trace rank {st.rank} calls {name}, which replay does not support; "
                                     "convert with --skip-unsupported to leave it out")
                self.dropped[name] += 1
            elif kind in NONBLOCKING_COLLECTIVES:
                raise TraceError(f"trace rank {st.rank} calls {name}, a nonblocking collective, which the GOAL "
                                 "writer cannot write")

    # -- collectives -------------------------------------------------------------------------------
    def resolve(self, comm: _Comm, seq: int, slot: dict) -> dict:
        """Every member's result of collective call ``seq`` on ``comm``: ``(primitives, new comm or None)``."""
        first = slot[comm.members[0]]
        name, kind = first[1], first[2]
        for w, args in slot.items():
            if args[2] != kind:
                raise TraceError(f"collective mismatch on {comm.label}: world rank {comm.members[0]} calls {name} "
                                 f"where world rank {w} calls {args[1]} (collective call {seq})")
        size, label = comm.size, f"{comm.label} (collective call {seq})"
        news = {w: None for w in comm.members}
        programs = {}
        if kind in (Op.COMM_SPLIT, Op.CART_SUB):
            entries = [self._split_entry(comm, w, slot[w]) for w in comm.members]
            by_colour = {}
            for r, (colour, key) in enumerate(entries):
                if colour != UNDEFINED:
                    by_colour.setdefault(colour, []).append((key, r))
            for colour, chosen in by_colour.items():
                chosen.sort()
                new = self.new_comm([comm.members[r] for _, r in chosen], f"split of {comm.label}")
                for w in new.members:
                    news[w] = new
            if size > 1:
                fn = self.algorithm("allgather", size, 3 * INT_B)
                programs = {me: (lambda c, fn=fn: fn(c, None, 3 * INT_B)) for me in range(size)}
        elif kind in (Op.COMM_DUP, Op.COMM_CREATE, Op.CART_CREATE):
            if kind == Op.COMM_DUP:
                new = self.new_comm(comm.members, f"dup of {comm.label}")
                news = {w: new for w in comm.members}
            elif kind == Op.CART_CREATE:
                _, _, ndims, *shape = first[4]
                dims = list(shape[:ndims])
                cells = math.prod(dims)
                if cells > size or not dims or min(dims) < 1:
                    raise TraceError(f"MPI_Cart_create of grid {dims} on {comm.label} of {size} ranks")
                new = self.new_comm(comm.members[:cells], f"cart of {comm.label}", dims)
                news.update({w: new for w in new.members})
            else:
                made = {}
                for w in comm.members:
                    group = slot[w][5]
                    if w in group:
                        if group not in made:
                            made[group] = self.new_comm(group, f"create of {comm.label}")
                        news[w] = made[group]
            if size > 1:
                fn = self.algorithm("allreduce", size, INT_B, MAX)
                programs = {me: (lambda c, fn=fn: fn(c, 0, MAX, INT_B)) for me in range(size)}
        elif size > 1:
            programs = {me: self._program(comm, slot[w]) for me, w in enumerate(comm.members)}
            programs = {me: p for me, p in programs.items() if p is not None}
        prims = _run(label, name, programs) if programs else {}
        world = comm.members
        results = {}
        for me, w in enumerate(world):
            mine = [[p[0], world[p[1]], p[2]] if p[0] != "wait" else p for p in prims.get(me, ())]
            results[w] = (mine, news[w])
        return results

    @staticmethod
    def _split_entry(comm, w, args):
        """``(colour, key)`` of world rank ``w`` in a Comm_split, or in the Comm_split replay runs for a
        Cart_sub (colour: the coordinates in the dropped dimensions; key: the Cartesian rank)."""
        kind, aux = args[2], args[4]
        if kind == Op.COMM_SPLIT:
            return aux[1], aux[2]
        if comm.dims is None:
            raise TraceError(f"MPI_Cart_sub on {comm.label}, which has no Cartesian topology: the trace is "
                             "inconsistent")
        rank = comm.index[w]
        coords, rest = [], rank
        for d in reversed(comm.dims):
            rest, c = divmod(rest, d)
            coords.append(c)
        coords.reverse()
        dropped = 0
        for coord, size, keep in zip(coords, comm.dims, aux[1:]):
            if not keep:
                dropped = dropped * size + coord
        return dropped, rank

    def _program(self, comm, args):
        """``fn(c)`` running this member's part of collective ``args`` (as the methods of
        ppt.mpi.surface.communicators.comm call it)."""
        _, name, kind, op, aux, _, red = args
        size = comm.size
        nbytes, root = op[NBYTES], op[ROOT]
        if kind in (Op.BCAST, Op.REDUCE, Op.GATHER, Op.SCATTER, Op.SCATTERV) and not 0 <= root < size:
            raise TraceError(f"{name} on {comm.label} has root {root}, outside its {size} ranks")
        if kind == Op.BARRIER:
            fn = self.algorithm("barrier", size)
            return lambda c: fn(c)
        if kind == Op.BCAST:
            fn = self.algorithm("bcast", size)
            return lambda c: fn(c, None, root, nbytes if c.me == root else 0)
        if kind == Op.REDUCE:
            fn = self.algorithm("reduce", size)
            return lambda c: fn(c, None, red, root, nbytes)
        if kind == Op.ALLREDUCE:
            fn = self.algorithm("allreduce", size, nbytes, red)
            return lambda c: fn(c, None, red, nbytes)
        if kind in (Op.SCAN, Op.EXSCAN):
            fn = self.algorithm("scan" if kind == Op.SCAN else "exscan", size)
            return lambda c: fn(c, None, red, nbytes)
        if kind == Op.GATHER:
            fn = self.algorithm("gather", size)
            return lambda c: fn(c, None, root, nbytes)
        if kind in (Op.SCATTER, Op.SCATTERV):
            fn = self.algorithm("scatter", size)
            sizes = [nbytes] * size if kind == Op.SCATTER else list(aux)
            if len(sizes) != size and kind == Op.SCATTERV and sizes:
                raise TraceError(f"{name} on {comm.label} gives {len(sizes)} block sizes for {size} ranks")
            return lambda c: fn(c, [None] * size if c.me == root else None, root, sizes if c.me == root else None)
        if kind in (Op.ALLGATHER, Op.ALLGATHERV):
            fn = self.algorithm("allgather", size, nbytes if kind == Op.ALLGATHER else None)
            return lambda c: fn(c, None, nbytes)
        if kind in (Op.ALLTOALL, Op.ALLTOALLV, Op.REDUCE_SCATTER):
            sizes = [nbytes] * size if kind == Op.ALLTOALL else list(aux)
            if len(sizes) != size:
                raise TraceError(f"{name} on {comm.label} gives {len(sizes)} block sizes for {size} ranks")
            if kind == Op.REDUCE_SCATTER:
                fn = self.algorithm("reduce_scatter", size, None, red)
                return lambda c: fn(c, [None] * size, red, sizes)
            fn = self.algorithm("alltoall", size) if kind == Op.ALLTOALL else \
                coll.ALGORITHMS["alltoall"][coll.alltoallv_algorithm(self.algorithms)]
            return lambda c: fn(c, [None] * size, sizes)
        raise TraceError(f"{name}: no GOAL expansion for op kind {Op(kind).name}")


class _RankState:
    """One rank's GOAL lines and handle tables while the writer walks its stream."""

    def __init__(self, writer: GoalWriter, rank: int):
        self.w = writer
        self.rank = rank
        self.out = []
        self.n = 0
        self.prev = None            # label of the previous operation
        self.prev_calc = False
        self.node_line = 0          # index in out of the last operation's line
        self.last_calc = None       # (index in out, ns) of the last calc
        self.pending = []           # labels the next operation requires (completions waited for)
        self.requests = RequestFifos()   # trace request id -> labels (None: a PROC_NULL request)
        self.comms = {COMM_WORLD: writer.world, COMM_SELF: _Comm(("self", rank), (rank,), f"COMM_SELF of {rank}")}
        self.groups = {}
        self.ops = {}
        self.coll_seq = {}
        self.stream = None          # the rank's ops (_Ahead) while the writer walks them
        self.claimed = {}           # stream position of a receive posted at a probe before it -> its label

    # -- operations ---------------------------------------------------------------------------------
    def _node(self, text: str, is_calc: bool) -> str:
        self.n += 1
        label = f"l{self.n}"
        out = self.out
        self.node_line = len(out)
        out.append(f"{label}: {text}")
        pending = self.pending
        if self.prev is not None and self.prev not in pending:
            out.append(f"{label} {'requires' if self.prev_calc else 'irequires'} {self.prev}")
        for dep in pending:
            out.append(f"{label} requires {dep}")
        self.pending = []
        self.prev, self.prev_calc = label, is_calc
        return label

    def calc(self, ns: int) -> None:
        """A calc of ``ns`` nanoseconds; one straight after another calc (nothing waited for between)
        lengthens it (the reader sums them all the same)."""
        if ns <= 0:
            return
        if self.prev_calc and not self.pending and self.last_calc is not None:
            index, total = self.last_calc
            total += ns
            self.out[index] = f"{self.prev}: calc {total}"
            self.last_calc = (index, total)
            return
        self.w.counts["calc"] += 1
        self._node(f"calc {ns}", True)
        self.last_calc = (self.node_line, ns)

    def send(self, dst: int, nbytes: int, tag: int) -> str:
        self.w.counts["send"] += 1
        return self._node(f"send {nbytes}b to {dst} tag {tag}", False)

    def recv(self, src: int, nbytes: int, tag: int) -> str:
        self.w.counts["recv"] += 1
        return self._node(f"recv {nbytes}b from {src} tag {tag}", False)

    def require(self, label) -> None:
        if label is not None and label not in self.pending:
            self.pending.append(label)

    def finish(self) -> None:
        if self.pending:
            self._node("calc 0", True)

    # -- handles --------------------------------------------------------------------------------------
    def comm(self, handle: int, call: str) -> _Comm:
        comm = self.comms.get(handle)
        if comm is None:
            raise TraceError(f"trace rank {self.rank} calls {call} on communicator {handle}, which no call "
                             "created (was it made by a skipped call?)")
        return comm

    def group(self, handle: int):
        group = self.groups.get(handle)
        if group is None:
            raise TraceError(f"trace rank {self.rank} uses group {handle}, which no call created")
        return group

    def group_of(self, kind, aux):
        return self.group(aux[1]) if kind == Op.COMM_CREATE else None

    def reduction(self, handle: int):
        return self.ops.get(handle, SUM) if handle >= FIRST_USER_OP else SUM

    def start(self, handle: int, label) -> None:
        self.requests.start(handle, label)

    def take(self, handle: int):
        return self.requests.take(handle)

    def world_peer(self, comm: _Comm, peer: int, call: str):
        """``peer`` (a rank of ``comm``) as a GOAL rank: a world rank, -1 for any source, None for PROC_NULL."""
        if peer == PROC_NULL:
            return None
        if peer == ANY_SOURCE:
            return -1
        if not 0 <= peer < comm.size:
            raise TraceError(f"trace rank {self.rank} calls {call} with peer {peer}, outside {comm.label} of "
                             f"{comm.size} ranks")
        return comm.members[peer]

    def user_tag(self, comm: _Comm, tag: int) -> int:
        return -1 if tag == ANY_TAG else self.w.tag(comm.uid, "user", tag)

    def collective(self, comm: _Comm, seq: int, kind: int, aux, result) -> None:
        prims, new = result
        tag = self.w.tag(comm.uid, "coll", seq)
        labels = []
        for prim in prims:
            what = prim[0]
            if what == "send":
                labels.append(self.send(prim[1], prim[2], tag))
            elif what == "recv":
                labels.append(self.recv(prim[1], prim[2], tag))
            else:
                labels.append(None)
                self.require(labels[prim[1]])
        if kind in (Op.COMM_DUP, Op.COMM_SPLIT, Op.COMM_CREATE, Op.CART_CREATE, Op.CART_SUB):
            if new is not None:
                self.comms[aux[0]] = new


# -- point-to-point and local ops ------------------------------------------------------------------
def _point_to_point(post: str, blocking: bool):
    """The writer of a SEND/ISEND (``post`` "send") or RECV/IRECV ("recv") op: the message, then, blocking,
    a requirement of the next operation, else a request to complete later."""
    def write(st: _RankState, op, aux, name):
        comm = st.comm(op[COMM], name)
        peer = st.world_peer(comm, op[PEER], name)
        label = None if peer is None else getattr(st, post)(peer, op[NBYTES], st.user_tag(comm, op[TAG]))
        if blocking:
            st.require(label)
        else:
            st.start(op[REQUEST], label)
    return write


def _sendrecv(st: _RankState, op, aux, name):
    """aux: source, receive tag, bytes posted; the receive is posted first
    (ppt.mpi.surface.communicators.comm.Comm.sendrecv)."""
    comm = st.comm(op[COMM], name)
    source, recvtag, posted = aux
    src = st.world_peer(comm, source, name)
    rlabel = None if src is None else st.recv(src, posted, st.user_tag(comm, recvtag))
    dst = st.world_peer(comm, op[PEER], name)
    slabel = None if dst is None else st.send(dst, op[NBYTES], st.user_tag(comm, op[TAG]))
    st.require(rlabel)
    st.require(slabel)


def _wait(st, op, aux, name):
    st.require(st.take(op[REQUEST]))


def _waitall(st, op, aux, name):
    for handle in aux:
        st.require(st.take(handle))


def _test(st, op, aux, name):
    if op[FLAG]:
        _wait(st, op, aux, name)
    else:
        st.w.dropped[f"{name} (unsuccessful)"] += 1


def _testall(st, op, aux, name):
    if op[FLAG]:
        _waitall(st, op, aux, name)
    else:
        st.w.dropped[f"{name} (unsuccessful)"] += 1


def _waitany(st, op, aux, name):
    index = op[FLAG]
    if 0 <= index < len(aux):
        st.require(st.take(aux[index]))
    else:
        st.w.dropped[f"{name} (nothing completed)"] += 1


def _waitsome(st, op, aux, name):
    done = op[FLAG]
    requests = aux[:len(aux) - done]
    if done:
        for i in aux[len(aux) - done:]:
            st.require(st.take(requests[i]))
    else:
        st.w.dropped[f"{name} (nothing completed)"] += 1


def _probe(st, op, aux, name):
    """A probe that found a message (Probe, an Iprobe that succeeded) waits in replay until the message
    has arrived: it becomes the receive that takes the message, posted here, which the next operation
    requires (see the module docstring).  An unsuccessful Iprobe is left out; a probe of PROC_NULL
    returns at once."""
    if op[KIND] == Op.IPROBE and not op[FLAG]:
        st.w.dropped[f"{name} (unsuccessful)"] += 1
        return
    if op[PEER] == PROC_NULL:
        return
    found = _taker(st.stream, op)
    if found is None:
        st.w.dropped[f"{name} (its message is not received after it)"] += 1
        return
    position, (recv, raux, rname) = found
    label = st.claimed.get(position)
    if label is None:                       # else an earlier probe found the same message
        comm = st.comm(recv[COMM], rname)
        if recv[KIND] == Op.SENDRECV:
            source, tag, posted = raux
        else:
            source, tag, posted = recv[PEER], recv[TAG], recv[NBYTES]
        label = st.recv(st.world_peer(comm, source, rname), posted, st.user_tag(comm, tag))
        st.claimed[position] = label
    st.require(label)


def _taker(ops: _Ahead, probe):
    """``(position, (op, aux, name))`` of the receive that takes the message ``probe`` found: the rank's
    next receive (Recv, Irecv, Sendrecv) on the probe's communicator whose source and tag admit the
    message (within :data:`PROBE_LOOKAHEAD` ops, and before the communicator is freed), else None."""
    comm, src, tag = probe[COMM], probe[PEER], probe[TAG]
    for position, entry in ops.peek(PROBE_LOOKAHEAD):
        op = entry[0]
        kind = op[KIND]
        if op[COMM] != comm:
            continue
        if kind == Op.RECV or kind == Op.IRECV:
            source, rtag = op[PEER], op[TAG]
        elif kind == Op.SENDRECV:
            source, rtag = entry[1][0], entry[1][1]
        elif kind == Op.COMM_FREE:
            return None
        else:
            continue
        if source == PROC_NULL:
            continue
        if ((src == ANY_SOURCE or source == ANY_SOURCE or source == src)
                and (tag == ANY_TAG or rtag == ANY_TAG or rtag == tag)):
            return position, entry
    return None


def _taken(st, op, aux, name, label):
    """The receive a probe posted already (as ``label``) and waited for: nothing is left to wait for
    (an Irecv's request completes nothing more), and a Sendrecv still sends."""
    kind = op[KIND]
    if kind == Op.IRECV:
        st.start(op[REQUEST], None)
    elif kind == Op.SENDRECV:
        comm = st.comm(op[COMM], name)
        dst = st.world_peer(comm, op[PEER], name)
        st.require(None if dst is None else st.send(dst, op[NBYTES], st.user_tag(comm, op[TAG])))


def _local(st, op, aux, name):
    pass


def _comm_free(st, op, aux, name):
    if op[COMM] > COMM_SELF:
        st.comms.pop(op[COMM], None)


def _comm_group(st, op, aux, name):
    st.groups[aux[0]] = st.comm(op[COMM], name).members


def _group_incl(st, op, aux, name):
    new, group, *ranks = aux
    members = st.group(group)
    st.groups[new] = tuple(members[r] for r in ranks)


def _group_excl(st, op, aux, name):
    new, group, *ranks = aux
    drop = set(ranks)
    st.groups[new] = tuple(w for i, w in enumerate(st.group(group)) if i not in drop)


def _group_set(st, op, aux, name):
    new, first, second = aux
    a, b = st.group(first), st.group(second)
    if op[KIND] == Op.GROUP_UNION:
        st.groups[new] = a + tuple(w for w in b if w not in a)
    elif op[KIND] == Op.GROUP_INTERSECTION:
        st.groups[new] = tuple(w for w in a if w in b)
    else:
        st.groups[new] = tuple(w for w in a if w not in b)


def _group_free(st, op, aux, name):
    st.groups.pop(aux[0], None)


def _op_create(st, op, aux, name):
    st.ops[op[OP]] = ReductionOp.create(_user_op, commute=bool(op[FLAG]))


def _op_free(st, op, aux, name):
    st.ops.pop(op[OP], None)


_P2P = {
    Op.LOCAL: _local, Op.INIT: _local, Op.WTIME: _local,
    Op.SEND: _point_to_point("send", True), Op.ISEND: _point_to_point("send", False),
    Op.RECV: _point_to_point("recv", True), Op.IRECV: _point_to_point("recv", False),
    Op.SENDRECV: _sendrecv, Op.PROBE: _probe, Op.IPROBE: _probe,
    Op.WAIT: _wait, Op.WAITALL: _waitall, Op.TEST: _test, Op.TESTALL: _testall,
    Op.WAITANY: _waitany, Op.TESTANY: _waitany, Op.WAITSOME: _waitsome, Op.TESTSOME: _waitsome,
    Op.COMM_FREE: _comm_free, Op.COMM_GROUP: _comm_group, Op.GROUP_INCL: _group_incl,
    Op.GROUP_EXCL: _group_excl, Op.GROUP_UNION: _group_set, Op.GROUP_INTERSECTION: _group_set,
    Op.GROUP_DIFFERENCE: _group_set, Op.GROUP_FREE: _group_free, Op.OP_CREATE: _op_create, Op.OP_FREE: _op_free,
}


def write(trace, f, compute_clock: str = "auto", **options) -> dict:
    """Write op-stream ``trace`` to text file ``f`` as GOAL; ``compute_clock`` as replay's (``auto`` picks
    as :func:`ppt.traces.replay.choose_clock` does); ``options``: ``compute_scale``, ``keep_startup``,
    ``algorithms``, ``skip_unsupported``.  Returns what was written (see :meth:`GoalWriter.write`) and the
    clock used."""
    from ppt.traces.replay import choose_clock
    clock = choose_clock(trace, compute_clock)
    stats = GoalWriter(trace, clock["clock"], **options).write(f)
    stats["compute_clock"] = clock["clock"]
    return stats


def to_text(trace, compute_clock: str = "auto", **options) -> str:
    """The GOAL text of ``trace`` (see :func:`write`)."""
    import io
    buf = io.StringIO()
    write(trace, buf, compute_clock, **options)
    return buf.getvalue()
