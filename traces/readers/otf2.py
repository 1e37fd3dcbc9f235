"""OTF2 archives (the traces Score-P writes) -> op-stream (:mod:`ppt.traces.opstream`).

An archive is an anchor file (``traces.otf2``) beside its global definitions and a folder of
per-location event files; :func:`read` takes the anchor file or the folder holding it and reads the
whole archive once, with the ``otf2`` package (an optional dependency), into an in-memory trace.

Ranks: the locations of the archive's MPI locations group (``COMM_LOCATIONS``, paradigm MPI), a
location's index in it being its rank in MPI_COMM_WORLD.  Other locations (threads, accelerators)
are not read.

Calls: every MPI region (paradigm MPI, or a name starting ``MPI_``) a rank enters and leaves is one
op, named after the region, from its Enter to its Leave event (a call the trace ends in, as Score-P
may stop measuring inside MPI_Finalize, lasts 0 s); MPI regions nested in one belong to it.  The
time between leaving one MPI region and entering the next is compute (the next op's gap; user
regions count as compute).  Times are ticks over the clock's resolution, counted from the
earliest MPI call of any rank (seconds).  OTF2 has no CPU clock: the CPU gaps are the wall-clock
ones and the trace says it has no CPU times.

The events inside a call resolve its op (its kind comes from the call's name as for DUMPI, a
collective's from its type):

* point-to-point: MpiSend, MpiIsend and MpiRecv give peer (a rank of the communicator), tag, bytes
  and request.  An Irecv's MpiIrecvRequest names only its request: peer, tag and bytes come from
  the MpiIrecv event of the call that completes it (a request never completed, or cancelled, is a
  receive from PROC_NULL).  A send or receive without its event (MPI_PROC_NULL) has peer PROC_NULL;
* probes: an MpiProbe (OTF2 3.1 on) gives a Probe's or Iprobe's message, which the op waits for;
  without one the op only looks (:func:`_probe`);
* completion: the requests a call completed (MpiIsendComplete, MpiIrecv), or, where it completed
  none, the ones it tested (MpiRequestTest).  A Wait(all/any/some) waits for the completed ones;
  a Test(all/any/some) recorded as completing some waits for them, else only tests;
* collectives: MpiCollectiveEnd's type, communicator and root, and the bytes the rank sent and
  received, which Score-P counts per call as the table in :data:`COLLECTIVES` undoes (``n`` ranks
  in the communicator, ``i`` this rank's rank in it).  The reduction op is not recorded: every
  reduction replays MPI_SUM.  The split of a Scatterv or Reduce_scatter over the ranks, which
  only the receivers record, is gathered from the matching call on every member (the k-th
  collective a rank calls on a communicator matches every member's k-th); Alltoallv/w record
  only totals, spread evenly.  An unknown collective type is a TraceError;
* nonblocking collectives: the call holding a NonBlockingCollectiveRequest names only its request; the
  NonBlockingCollectiveComplete in the call that completes it (a Wait or Test, which completes that request)
  gives its type, communicator, root and bytes as MpiCollectiveEnd gives a blocking one's, and the call
  becomes the nonblocking kind of the blocking one's (IALLREDUCE ...).  One nothing completed, or of a
  type that moves no data (MPI_Comm_idup), is an OTHER op;
* communicators are definitions (members, parent; MPI paradigm only), created in the events by a
  CREATE_HANDLE collective on the parent holding a CommCreate event of the new one (OTF2 3,
  Score-P 8 on).  Where the archive does not announce creations so (the definition lacks the
  flag: earlier versions record a creating call with no event, or a collective alone), a rank's
  creating calls (:data:`CREATING_CALLS`) take the communicators holding it in definition order,
  each on its parent (a call whose collective names another parent, or one after the rank's
  last, gives it none).  Each communicator definition is one stream handle (MPI_COMM_WORLD's and
  MPI_COMM_SELF's are COMM_WORLD and COMM_SELF, the others numbered from 2 in definition order);
  a creation is a COMM_DUP where the new communicator has its parent's members in order and the
  call is a dup, else the COMM_SPLIT that makes exactly its members: colour the handle, key the
  rank's place in the member list (a rank that got no communicator: UNDEFINED).  So the op-stream
  needs no new op to declare a communicator by its members.  A DESTROY_HANDLE collective
  (CommDestroy) frees one; a Comm_free without it is LOCAL.  MPI_COMM_WORLD's and MPI_COMM_SELF's
  creation (Score-P 8 on: a CREATE_HANDLE collective in MPI_Init) and end (in MPI_Finalize) are no
  ops: every stream starts with both, and the call keeps the kind its name gives.  A communicator used on a rank that no
  creation gave it is a TraceError; a creation the op-stream cannot express (an
  intercommunicator, or Comm_create_group, collective over the new members alone) is an OTHER op.

Calls translated from no event (Comm_group, Group_*, Op_create, ...) are LOCAL: the definitions
resolve groups, and reductions replay MPI_SUM.  Calls without an entry (matched probes, RMA, I/O,
persistent requests, ...) become OTHER ops.

An archive whose MPI ranks make no MPI call (an HPX program under mpirun) is a TraceError, not a
0-second trace; a damaged one names the file that does not read (:func:`damaged_file`).

Units: seconds and bytes.
"""
from __future__ import annotations

import contextlib
import ctypes
import glob
import io
import os
from collections import deque

from ppt.errors import TraceError
from ppt.traces.readers import dumpi_ops
from ppt.oprecord import (ANY_SOURCE, ANY_TAG, COMM_NULL, COMM_SELF, COMM_WORLD, NO_INDEX, NONBLOCKING, PROC_NULL,
                          UNDEFINED, Op)
from ppt.traces.opstream import MemoryTrace, OpTrace

#: What to install to read OTF2 archives.
INSTALL = "pip install -e '.[otf2]' (or pip install otf2)"
#: The reduction op every reduction replays: OTF2 does not record it (MPI_SUM as DUMPI numbers it).
SUM = 3
#: Request of a call whose request the trace does not name (an Isend to MPI_PROC_NULL, a Wait that
#: completed nothing): no request of the trace has it.
NO_REQUEST = -1
#: Calls whose new communicator is a COMM_DUP when it has its parent's members in order.
DUP_CALLS = frozenset(("MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_idup"))
#: Calls that create an intracommunicator, read as creations also where recorded without a collective.
CREATING_CALLS = DUP_CALLS - {"MPI_Comm_idup"} | {
    name for name, (kind, _) in dumpi_ops.OPS.items()
    if kind in (Op.COMM_DUP, Op.COMM_SPLIT, Op.COMM_CREATE, Op.CART_CREATE, Op.CART_SUB)} | {
    "MPI_Comm_split_type", "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent"}


def _otf2() -> tuple:
    """The otf2 package and its error type, with its C library's printing of errors off (they reach us
    as exceptions, which :func:`read` turns into one line)."""
    try:
        import otf2
        from _otf2.Config import conf
        from _otf2.ErrorCodes import Error
    except ImportError:
        raise TraceError(f"reading OTF2 traces needs the otf2 package: {INSTALL}") from None
    if not _SILENT:
        callback = _ERROR_CALLBACK(lambda *args: args[4])    # hand the error code back unprinted
        register = conf.lib.OTF2_Error_RegisterCallback
        register.argtypes, register.restype = [_ERROR_CALLBACK, ctypes.c_void_p], ctypes.c_void_p
        register(callback, None)
        _SILENT.append(callback)                            # the library keeps calling it
    return otf2, Error


#: OTF2_ErrorCallback: (user data, file, line, function, error code, format, va_list) -> error code.
_ERROR_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64,
                                   ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_SILENT = []


def anchor(path) -> str:
    """The anchor file of the archive at ``path`` (the ``.otf2`` file, or the folder holding one)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        found = sorted(glob.glob(os.path.join(glob.escape(path), "*.otf2")))
        if len(found) != 1:
            raise TraceError(f"{path} holds {len(found)} OTF2 anchor files (*.otf2): give the one to read")
        return found[0]
    if not os.path.isfile(path):
        raise TraceError(f"no OTF2 archive at {path}: give its .otf2 anchor file or the folder holding it")
    return path


class Otf2Trace(MemoryTrace):
    """An OTF2 archive read into memory (:func:`read`); ``meta_path``: its anchor file."""

    def __init__(self, anchor_path: str, num_ranks: int):
        super().__init__(anchor_path, num_ranks, cpu_times=False)

    @property
    def name(self) -> str:
        return OpTrace.name.fget(self)


def read(path) -> Otf2Trace:
    """The OTF2 archive at ``path`` as an op-stream trace (TraceError, one line naming the file that does not
    read, if it is damaged)."""
    otf2, error = _otf2()
    path = anchor(path)
    report = io.StringIO()     # the package prints a failing callback's traceback: the one line below says it
    try:
        with contextlib.redirect_stderr(report), otf2.reader.open(path) as archive:
            return Archive(otf2, archive, path).read()
    except (otf2.reader.TraceReaderError, error) as exc:
        with contextlib.redirect_stderr(report):
            damaged = damaged_file(otf2, (otf2.reader.TraceReaderError, error), path)
        raise TraceError(f"{damaged}: truncated or damaged, the OTF2 archive {path} does not read ({exc}); "
                         "copy the whole archive again") from None


def damaged_file(otf2, errors: tuple, path: str) -> str:
    """The file of the archive at anchor ``path`` that does not read (``errors``: what reading raises): the
    anchor file, the global definitions, or the files of the first location whose events do not read (each
    read alone, so every location is read at most once); the anchor file if every part reads alone."""
    from _otf2 import Reader_Close, Reader_Open
    try:
        Reader_Close(Reader_Open(path))
    except errors:
        return path
    stem = os.path.splitext(path)[0]
    try:
        with otf2.reader.open(path) as archive:
            count = len(list(archive.definitions.locations))
    except errors:
        return stem + ".def"
    for index in range(count):
        with otf2.reader.open(path) as archive:
            location = list(archive.definitions.locations)[index]
            try:
                for _ in archive.events(location):
                    pass
            except errors:
                files = os.path.join(stem, str(location._ref))
                return f"{files}.evt (or {os.path.basename(files)}.def)"
    return path


class Archive:
    """One archive's definitions as the streams need them: ranks, communicator handles, clock."""

    def __init__(self, otf2, archive, path: str):
        self.otf2, self.archive, self.path = otf2, archive, path
        defs = archive.definitions
        self.resolution = defs.clock_properties.timer_resolution
        mpi = otf2.Paradigm.MPI
        world = next((list(g.members) for g in defs.groups
                      if g.group_type == otf2.GroupType.COMM_LOCATIONS and g.paradigm == mpi), None)
        if not world:
            raise TraceError(f"{path} defines no MPI ranks (no MPI locations group): is it a trace of an MPI program?")
        self.world = world
        self.handles, self.own = {}, set()      # communicator -> handle; those of one member each
        self.unannounced = []                   # communicators created without events, definition order
        self.world_comm, created = None, COMM_SELF + 1
        flag = otf2.CommFlag.CREATE_DESTROY_EVENTS.value
        for comm in defs.comms:
            group = getattr(comm, "group", None)
            if group is None or group.paradigm != mpi:   # an intercommunicator, or the measurement's own
                continue
            if group.group_type == otf2.GroupType.COMM_SELF:
                self.own.add(comm)
                predefined = COMM_SELF
            else:
                predefined = COMM_WORLD if comm.parent is None and list(group.members) == world else None
            if predefined is not None and predefined not in self.handles.values():
                self.handles[comm] = predefined
                if predefined == COMM_WORLD:
                    self.world_comm = comm
                continue
            self.handles[comm], created = created, created + 1
            if comm.parent is not None and comm not in self.own and not comm.flags.value & flag:
                self.unannounced.append(comm)
        self.mpi_regions = {region for region in defs.regions
                            if region.paradigm == mpi or region.name.startswith("MPI_")}
        self.collectives = {getattr(otf2.CollectiveOp, name).value: translate
                            for name, translate in COLLECTIVES.items()}
        self.splits = {}                        # (communicator, collective number) -> Split being gathered

    def members(self, comm, location) -> list:
        """The locations of ``comm`` in rank order, as ``location`` sees it (a COMM_SELF group: itself)."""
        return [location] if comm in self.own else list(comm.group.members)

    def colour(self, comm, rank: int) -> int:
        """A COMM_SPLIT colour making ``comm`` on every member: its handle, or, for a communicator of one
        member (whose definition ranks may share), one above every handle per world rank."""
        if comm in self.own:
            return len(self.handles) + COMM_SELF + 1 + rank
        return self.handles[comm]

    def read(self) -> Otf2Trace:
        trace = Otf2Trace(self.path, len(self.world))
        ranks = {location: RankEvents(self, rank, location, trace.builder(rank))
                 for rank, location in enumerate(self.world)}
        enter, leave, regions = self.otf2.events.Enter, self.otf2.events.Leave, self.mpi_regions
        origin = None
        for location, event in self.archive.events:
            events = ranks.get(location)
            if events is None:
                continue
            kind = type(event)
            if kind is enter or kind is leave:
                if event.region in regions:
                    if origin is None:
                        origin = event.time       # events come in time order: the first MPI call's start
                    time_s = (event.time - origin) / self.resolution
                    if kind is enter:
                        events.enter(event.region.name, time_s)
                    else:
                        events.leave(time_s)
            elif events.depth:
                events.events.append(event)
        if origin is None:
            raise TraceError(f"no MPI calls in {self.path}: its MPI ranks entered no MPI region (is it a trace of a "
                             "program that uses MPI only to start, e.g. HPX? replay needs the MPI calls)")
        for split in self.splits.values():      # a member recorded no end (a damaged trace): 0 bytes to it
            split.release()
        for events in ranks.values():
            events.finish()
        return trace


class Split:
    """The bytes each rank of one v-collective gets, which only the receivers record: filled in as its
    members' calls are read; the ops waiting for it (``waiting``: (RankEvents, op entry)) are added
    once every member's part is in."""

    __slots__ = ("parts", "missing", "waiting")

    def __init__(self, num_ranks: int):
        self.parts, self.missing, self.waiting = [0] * num_ranks, num_ranks, []

    def add(self, rank: int, nbytes: int) -> None:
        self.parts[rank] = nbytes
        self.missing -= 1
        if not self.missing:
            self.release()

    def release(self) -> None:
        for events, entry in self.waiting:
            entry[5]["aux"], entry[-1] = list(self.parts), True
            events.flush()
        self.waiting.clear()


class RankEvents:
    """Translates one rank's events into its builder's ops, in call order."""

    __slots__ = ("archive", "rank", "location", "builder", "created", "joins", "pending", "irecvs", "icolls",
                 "name", "start_s", "depth", "events", "last_stop_s", "collectives", "instance")

    def __init__(self, archive: Archive, rank: int, location, builder):
        self.archive, self.rank, self.location, self.builder = archive, rank, location, builder
        self.created = {COMM_WORLD, COMM_SELF}  # handles this rank may use
        self.joins = deque(c for c in archive.unannounced if location in c.group.members)
        self.pending = deque()                  # ops not yet added: [kind, name, gap, call, start, fields, ready]
        self.irecvs = {}                        # request -> deque of the pending IRECVs awaiting their MpiIrecv
        self.icolls = {}                        # request -> deque of the pending nonblocking collectives awaiting
                                                # their NonBlockingCollectiveComplete
        self.name, self.start_s, self.depth, self.events = None, 0.0, 0, []
        self.last_stop_s = 0.0
        self.collectives = {}                   # communicator -> collectives this rank called on it
        self.instance = None                    # (communicator, number) of the collective being read

    # -- calls ----------------------------------------------------------------------------
    def enter(self, name: str, time_s: float) -> None:
        if not self.depth:
            self.name, self.start_s, self.events = name, time_s, []
        self.depth += 1

    def leave(self, time_s: float) -> None:
        if not self.depth:
            raise TraceError(f"{self.archive.path}: rank {self.rank} leaves an MPI region it did not enter: "
                             "the archive is inconsistent")
        self.depth -= 1
        if self.depth:
            return
        name, events = self.name, self.events
        end = None if name in dumpi_ops.INIT_CALLS else _event(events, "MpiCollectiveEnd")
        if end is not None:
            translate = self.archive.collectives.get(end.collective_op.value)
            if translate is None:
                raise TraceError(f"{self.archive.path}: rank {self.rank} calls {name} as a collective of type "
                                 f"{end.collective_op.value}, which this reader does not know")
            comm = end.communicator
            number = self.collectives[comm] = self.collectives.get(comm, 0) + 1
            self.instance = (comm, number)
            kind, fields = translate(self, name, end, events)
        elif name in CREATING_CALLS:
            kind, fields = self.create(name, None, events)
        else:
            kind, encode = CALLS.get(name, (Op.OTHER, _nothing))
            fields = encode(self, events)
        started = _event(events, "NonBlockingCollectiveRequest")
        if started is not None:                 # its collective is told by the call that completes it
            kind, fields = Op.OTHER, {"request": _request(started.request_id)}
        entry = [kind, name, self.start_s - self.last_stop_s, time_s - self.start_s, self.start_s, fields, True]
        self.last_stop_s = time_s
        if kind == Op.IRECV:
            entry[-1] = False
            self.irecvs.setdefault(fields["request"], deque()).append(entry)
        elif started is not None:
            entry[-1] = False
            self.icolls.setdefault(fields["request"], deque()).append(entry)
        self.pending.append(entry)
        self.settle(entry)

    def settle(self, entry) -> None:
        """Add the pending ops that ``entry``, resolved, lets go: unless it waits for its split's other parts."""
        split = entry[5].get("aux")
        if isinstance(split, Split):
            if split.missing:
                entry[-1] = False
                split.waiting.append((self, entry))
            else:
                entry[5]["aux"] = list(split.parts)
        self.flush()

    def finish(self) -> None:
        """Add the ops still pending: a call the trace ends in (MPI_Finalize, where the measurement
        stopped inside it) lasting 0 s, and an Irecv nothing completed receiving from PROC_NULL."""
        if self.depth:
            self.depth = 1
            self.leave(self.start_s)
        for waiting in self.irecvs.values():
            for entry in waiting:
                entry[5]["peer"], entry[-1] = PROC_NULL, True
        for waiting in self.icolls.values():
            for entry in waiting:
                entry[-1] = True
        self.irecvs.clear()
        self.icolls.clear()
        self.flush()

    def flush(self) -> None:
        """Add the pending ops up to the first still waiting for a later event."""
        pending, add = self.pending, self.builder.add
        while pending and pending[0][-1]:
            kind, name, gap, call_s, start_s, fields, _ = pending.popleft()
            add(kind, name, gap, call_s=call_s, start_s=start_s, **fields)

    # -- resolution -------------------------------------------------------------------------
    def comm(self, comm) -> int:
        """The stream handle of communicator definition ``comm`` (TraceError if this rank has none)."""
        handle = self.archive.handles.get(comm)
        if handle is None or handle not in self.created:
            raise TraceError(f"{self.archive.path}: rank {self.rank} uses communicator {_comm_name(comm)}, which no "
                             "call created on it")
        return handle

    def split(self, num_ranks: int, rank: int, nbytes: int) -> Split:
        """The Split of the collective being read, with this rank's part (``rank`` of ``num_ranks``) in."""
        splits = self.archive.splits
        split = splits.get(self.instance)
        if split is None:
            split = splits[self.instance] = Split(num_ranks)
        split.add(rank, nbytes)
        if not split.missing:
            del splits[self.instance]
        return split

    def on(self, end) -> tuple:
        """(handle, size, this rank's rank) of a collective's communicator."""
        members = self.archive.members(end.communicator, self.location)
        return self.comm(end.communicator), len(members), members.index(self.location)

    def completed(self, events) -> list:
        """The requests ``events`` complete, in order; an MpiIrecv resolves the IRECV it completes, an
        MpiRequestCancelled makes the IRECV it completes a receive from PROC_NULL."""
        done = []
        for event in events:
            kind = type(event).__name__
            if kind == "MpiIsendComplete":
                done.append(_request(event.request_id))
            elif kind == "MpiIrecv":
                done.append(self._received(_request(event.request_id), comm=self.comm(event.communicator),
                                           peer=event.sender, tag=event.msg_tag, nbytes=event.msg_length))
            elif kind == "MpiRequestCancelled":
                done.append(self._received(_request(event.request_id), peer=PROC_NULL))
            elif kind == "NonBlockingCollectiveComplete":
                done.append(self._collected(event))
        return done

    def _collected(self, event) -> int:
        """Resolve the oldest nonblocking collective started under ``event``'s request (if any) as the
        collective ``event`` completes (its type, communicator, root and bytes, as MpiCollectiveEnd tells a
        blocking one's); returns the request.  Their v-collectives' splits match on each communicator in the
        order the members complete them.  A type without a blocking kind (MPI_Comm_idup's) leaves the call an
        OTHER op."""
        request = _request(event.request_id)
        waiting = self.icolls.get(request)
        if not waiting:
            return request
        entry = waiting.popleft()
        if not waiting:
            del self.icolls[request]
        translate = self.archive.collectives.get(event.collective_op.value)
        if translate is not None and translate not in _HANDLES:
            comm = event.communicator
            number = self.collectives[comm, NONBLOCKING] = self.collectives.get((comm, NONBLOCKING), 0) + 1
            self.instance = (comm, NONBLOCKING, number)
            kind, fields = translate(self, entry[1], event, ())
            entry[0], entry[5] = kind + NONBLOCKING, dict(fields, request=request)
        entry[-1] = True
        self.settle(entry)
        return request

    def _received(self, request: int, **fields) -> int:
        """Fill in the oldest IRECV waiting under ``request`` (if any) with ``fields``; returns ``request``."""
        waiting = self.irecvs.get(request)
        if waiting:
            entry = waiting.popleft()
            if not waiting:
                del self.irecvs[request]
            entry[5].update(fields)
            entry[-1] = True
        return request

    def tested(self, events) -> list:
        return [_request(e.request_id) for e in events if type(e).__name__ == "MpiRequestTest"]

    def create(self, name: str, end, events) -> tuple:
        """A communicator creation on the parent ``end`` names (None: a call recorded without a
        collective): COMM_DUP or the equivalent COMM_SPLIT.

        An OTHER op where the op-stream cannot express it: an intercommunicator, or a creation over
        the new communicator's members alone (the collective names it, as for Comm_create_group);
        the latter's later calls are read, and replay refuses the creation by name."""
        archive = self.archive
        made = getattr(_event(events, "CommCreate"), "communicator", None)
        if made is not None and (made not in archive.handles or end is not None and made is end.communicator):
            if made in archive.handles:
                self.created.add(archive.handles[made])
            return Op.OTHER, _NOTHING
        if made is None:
            made = self.unannounced(end)
        parent_def = end.communicator if end is not None else getattr(made, "parent", archive.world_comm)
        parent = self.comm(parent_def)
        if made is None:
            return Op.COMM_SPLIT, {"comm": parent, "aux": (COMM_NULL, UNDEFINED, 0)}
        handle = archive.handles[made]
        self.created.add(handle)
        members = archive.members(made, self.location)
        if name in DUP_CALLS and members == archive.members(parent_def, self.location):
            return Op.COMM_DUP, {"comm": parent, "aux": (handle,)}
        return Op.COMM_SPLIT, {"comm": parent,
                               "aux": (handle, archive.colour(made, self.rank), members.index(self.location))}

    def unannounced(self, end):
        """The communicator a creation recorded without a CommCreate gives this rank, where the archive
        announces none (before OTF2 3): the next one, in definition order, that holds this rank and
        whose parent is the collective's (when recorded); None if there is none."""
        joins = self.joins
        if joins and (end is None or joins[0].parent is end.communicator):
            return joins.popleft()
        return None

    def destroy(self, name: str, end, events) -> tuple:
        """A communicator freed (CommDestroy's, else the collective's): COMM_FREE.  MPI_COMM_WORLD's and
        MPI_COMM_SELF's end (Score-P 8 on records it in MPI_Finalize) is no op: the call's own."""
        freed = getattr(_event(events, "CommDestroy"), "communicator", end.communicator)
        handle = self.comm(freed)
        if handle <= COMM_SELF:
            kind, encode = CALLS.get(name, (Op.OTHER, _nothing))
            return kind, encode(self, events)
        if handle > COMM_SELF:
            self.created.discard(handle)
        return Op.COMM_FREE, {"comm": handle}


def _comm_name(comm) -> str:
    """A communicator definition as errors name it: its name quoted, or its definition id where it has none."""
    name = getattr(comm, "name", None)
    return repr(name) if name else f"#{getattr(comm, '_ref', '?')} (unnamed)"


def _request(request_id: int) -> int:
    """An OTF2 request id (uint64) as the op's int64."""
    return request_id - (1 << 64) if request_id >= 1 << 63 else request_id


def _event(events, kind: str):
    """The first event of type ``kind`` (an otf2.events class name) in ``events``, else None."""
    return next((e for e in events if type(e).__name__ == kind), None)


# -- point-to-point and completion calls: (RankEvents, events inside the call) -> Op fields ---------
_NOTHING = {}


def _nothing(r, events):
    return _NOTHING


def _message(r, event, peer: str) -> dict:
    if event is None:
        return {"peer": PROC_NULL}
    return {"comm": r.comm(event.communicator), "peer": getattr(event, peer), "tag": event.msg_tag,
            "nbytes": event.msg_length}


def _send(r, events):
    return _message(r, _event(events, "MpiSend"), "receiver")


def _isend(r, events):
    event = _event(events, "MpiIsend")
    return dict(_message(r, event, "receiver"), request=NO_REQUEST if event is None else _request(event.request_id))


def _recv(r, events):
    return _message(r, _event(events, "MpiRecv"), "sender")


def _irecv(r, events):
    """Only the request: the MpiIrecv completing it fills in the rest (:meth:`RankEvents.completed`)."""
    event = _event(events, "MpiIrecvRequest")
    return {"request": NO_REQUEST if event is None else _request(event.request_id)}


def _sendrecv(r, events):
    sent, received = _message(r, _event(events, "MpiSend"), "receiver"), _recv(r, events)
    return dict(sent, aux=(received["peer"], received.get("tag", 0), received.get("nbytes", 0)))


def _probe(r, events):
    """Probe and Iprobe: one that found a message (MpiProbe, OTF2 3.1 on) waits for it (a successful
    IPROBE); one without the event only looks (a failed IPROBE on any source and tag): an Iprobe that
    found nothing, or a Probe of an archive that does not record probes, whose receive that follows
    waits for the message instead."""
    event = _event(events, "MpiProbe")
    if event is None:
        return {"peer": ANY_SOURCE, "tag": ANY_TAG, "flag": 0}
    return {"comm": r.comm(event.communicator), "peer": event.sender, "tag": event.tag, "flag": 1}


def _wait(r, events):
    return {"request": next(iter(r.completed(events)), NO_REQUEST)}


def _waitall(r, events):
    return {"aux": r.completed(events)}


def _any(r, events):
    """Waitany and Testany: the request completed (index 0 of the list), else the ones tested."""
    done = r.completed(events)
    return {"aux": done[:1], "flag": 0} if done else {"aux": r.tested(events), "flag": NO_INDEX}


def _some(r, events):
    """Waitsome and Testsome: the requests completed, all at the recorded indices; else the ones tested."""
    done = r.completed(events)
    if done:
        return {"aux": [*done, *range(len(done))], "flag": len(done)}
    return {"aux": r.tested(events), "flag": 0}


def _test(r, events):
    done = r.completed(events)
    return {"request": done[0], "flag": 1} if done else {"request": next(iter(r.tested(events)), NO_REQUEST)}


def _testall(r, events):
    done = r.completed(events)
    return {"aux": done, "flag": 1} if done else {"aux": r.tested(events), "flag": 0}


#: Encoder of the calls translated by name, by the kind DUMPI's reader gives the same call.
_ENCODERS = {Op.LOCAL: _nothing, Op.INIT: _nothing, Op.WTIME: _nothing,
             Op.SEND: _send, Op.ISEND: _isend, Op.RECV: _recv, Op.IRECV: _irecv, Op.SENDRECV: _sendrecv,
             Op.IPROBE: _probe,
             Op.WAIT: _wait, Op.WAITALL: _waitall, Op.WAITANY: _any, Op.WAITSOME: _some,
             Op.TEST: _test, Op.TESTALL: _testall, Op.TESTANY: _any, Op.TESTSOME: _some}
#: Calls that only name groups or ops, which the definitions resolve (groups) or the trace lacks (ops),
#: and a Comm_free recorded without its DESTROY_HANDLE collective (which it frees, the trace does not say).
_LOCAL_KINDS = frozenset((Op.COMM_FREE, Op.COMM_GROUP, Op.GROUP_INCL, Op.GROUP_EXCL, Op.GROUP_UNION,
                          Op.GROUP_INTERSECTION, Op.GROUP_DIFFERENCE, Op.GROUP_FREE, Op.OP_CREATE, Op.OP_FREE))
#: Call name -> (op kind, encoder of the events inside it), for calls without an MpiCollectiveEnd.
#: MPI_Cancel moves nothing: the Irecv it cancels receives from PROC_NULL.
CALLS = {
    **{name: (kind, _ENCODERS[kind]) for name, (kind, _) in dumpi_ops.OPS.items() if kind in _ENCODERS},
    **{name: (Op.LOCAL, _nothing) for name, (kind, _) in dumpi_ops.OPS.items() if kind in _LOCAL_KINDS},
    "MPI_Cancel": (Op.LOCAL, _nothing),
    "MPI_Probe": (Op.IPROBE, _probe),
}


# -- collectives: (RankEvents, MpiCollectiveEnd) -> Op fields; n ranks, i this rank's rank -------------
def _root(end) -> int:
    """The collective's root (OTF2's undefined uint32 where it has none: 0)."""
    return 0 if end.root == _NO_ROOT else end.root


_NO_ROOT = (1 << 32) - 1


def _spread(total: int, parts: int) -> list:
    """``total`` bytes split as evenly as whole bytes go over ``parts`` ranks."""
    share, extra = divmod(total, parts)
    return [share + (i < extra) for i in range(parts)]


def _barrier(r, end):
    return {"comm": r.on(end)[0]}


def _bcast(r, end):
    """Bcast: the root sends n x bytes and every rank receives bytes."""
    return {"comm": r.on(end)[0], "root": _root(end), "nbytes": end.size_received}


def _reduce(r, end):
    """Reduce: every rank sends bytes, the root receives n x bytes (an in-place root sends none)."""
    comm, n, _ = r.on(end)
    return {"comm": comm, "root": _root(end), "op": SUM, "nbytes": end.size_sent or end.size_received // n}


def _all_reduce(r, end):
    """Allreduce: every rank sends and receives n x bytes."""
    comm, n, _ = r.on(end)
    return {"comm": comm, "op": SUM, "nbytes": end.size_sent // n}


def _scan(r, end):
    """Scan: rank i sends (n - i) x bytes."""
    comm, n, i = r.on(end)
    return {"comm": comm, "op": SUM, "nbytes": end.size_sent // (n - i)}


def _exscan(r, end):
    """Exscan: rank i sends (n - 1 - i) x bytes and receives i x bytes."""
    comm, n, i = r.on(end)
    nbytes = end.size_sent // (n - 1 - i) if i < n - 1 else end.size_received // max(i, 1)
    return {"comm": comm, "op": SUM, "nbytes": nbytes}


def _gather(r, end):
    """Gather, Gatherv: every rank sends its contribution, the root receives them all."""
    return {"comm": r.on(end)[0], "root": _root(end), "nbytes": end.size_sent}


def _scatter(r, end):
    """Scatter: the root sends n x bytes and every rank receives bytes (an in-place root none)."""
    comm, n, _ = r.on(end)
    return {"comm": comm, "root": _root(end), "nbytes": end.size_received or end.size_sent // n}


def _scatterv(r, end):
    """Scatterv: the root sends the sum, each rank receives its part (the split, at the root)."""
    comm, n, i = r.on(end)
    root, split = _root(end), r.split(n, i, end.size_received)
    return {"comm": comm, "root": root, "aux": split if i == root else ()}


def _all_to_all(r, end):
    """Allgather(v), Alltoall: every rank sends n x its block (Allgatherv: n x its contribution)."""
    comm, n, _ = r.on(end)
    return {"comm": comm, "nbytes": end.size_sent // n}


def _alltoallv(r, end):
    """Alltoallv/w: every rank sends the sum of its blocks; their split is not recorded (spread evenly)."""
    comm, n, _ = r.on(end)
    return {"comm": comm, "aux": _spread(end.size_sent, n)}


def _reduce_scatter(r, end):
    """Reduce_scatter(_block): every rank sends the whole vector and receives n x its part (the split)."""
    comm, n, i = r.on(end)
    return {"comm": comm, "op": SUM, "aux": r.split(n, i, end.size_received // n)}


def _moving(kind: Op, encode):
    """A collective type that moves data: (RankEvents, call, MpiCollectiveEnd, events) -> (kind, fields)."""
    return lambda r, name, end, events: (kind, encode(r, end))


def _other(r, name, end, events):
    return Op.OTHER, _NOTHING


#: OTF2 collective type (its name in otf2.CollectiveOp) -> translation
#: (RankEvents, call name, MpiCollectiveEnd, events inside the call) -> (op kind, fields).
#: RMA windows' handle types become OTHER ops; a type not listed is a TraceError.
COLLECTIVES = {
    "BARRIER": _moving(Op.BARRIER, _barrier), "BCAST": _moving(Op.BCAST, _bcast),
    "REDUCE": _moving(Op.REDUCE, _reduce), "ALLREDUCE": _moving(Op.ALLREDUCE, _all_reduce),
    "SCAN": _moving(Op.SCAN, _scan), "EXSCAN": _moving(Op.EXSCAN, _exscan),
    "GATHER": _moving(Op.GATHER, _gather), "GATHERV": _moving(Op.GATHER, _gather),
    "SCATTER": _moving(Op.SCATTER, _scatter), "SCATTERV": _moving(Op.SCATTERV, _scatterv),
    "ALLGATHER": _moving(Op.ALLGATHER, _all_to_all), "ALLGATHERV": _moving(Op.ALLGATHERV, _all_to_all),
    "ALLTOALL": _moving(Op.ALLTOALL, _all_to_all),
    "ALLTOALLV": _moving(Op.ALLTOALLV, _alltoallv), "ALLTOALLW": _moving(Op.ALLTOALLV, _alltoallv),
    "REDUCE_SCATTER": _moving(Op.REDUCE_SCATTER, _reduce_scatter),
    "REDUCE_SCATTER_BLOCK": _moving(Op.REDUCE_SCATTER, _reduce_scatter),
    "CREATE_HANDLE": RankEvents.create, "DESTROY_HANDLE": RankEvents.destroy,
    **{name: _other for name in ("ALLOCATE", "DEALLOCATE", "CREATE_HANDLE_AND_ALLOCATE",
                                 "DESTROY_HANDLE_AND_DEALLOCATE")},
}
#: Translations of the collective types that are no data collective: a nonblocking call of one stays OTHER.
_HANDLES = frozenset((RankEvents.create, RankEvents.destroy, _other))
