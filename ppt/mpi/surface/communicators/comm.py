"""Communicators (mpi4py-like, sizes in bytes); their groups are in :mod:`ppt.mpi.surface.communicators.group`,
Cartesian communicators in :mod:`ppt.mpi.surface.topology.cart`.

Each rank holds its own communicator objects.  A communicator has an integer
id agreed on by its members when it is created: every rank keeps the
smallest id it has not used (``Rank.next_ctx``), creation takes the maximum
over the parent's members (one small allreduce/allgather, as MPI libraries
do) and every member moves past it.  Communicators sharing a member thus
never share an id; disjoint ones may.  Id ``i`` gives context ``2i`` for
point-to-point and ``2i + 1`` for collective traffic.
"""
from __future__ import annotations

from numbers import Integral

from ppt.mpi.collectives import calls as coll
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.collectives.calls import Coll
from ppt.mpi.constants import (ANY_SOURCE, ANY_TAG, BUFFERED, CONGRUENT, IDENT, KEYVALS, PROC_NULL, SIMILAR,
                               SYNC, TAG_UB_VALUE, UNDEFINED, UNEQUAL)
from ppt.mpi.errors import AbortCalled
from ppt.mpi.surface.communicators.group import Group
from ppt.mpi.surface.communicators.ibarrier import ibarrier
from ppt.mpi.surface.communicators.message import Message, matched
from ppt.mpi.surface.core.nulls import NullOwner
from ppt.mpi.collectives.ops import MAX, SUM, as_op
from ppt.mpi.surface.communicators.persistent import INFO_NULL, Prequest
from ppt.mpi.collectives.payload import IMMUTABLE, size_of, sized_copy
from ppt.mpi.surface.core.fast import CommCore, _irecv, _isend, irecv, isend, positional, recv, send
from ppt.mpi.unsupported import Refusing

#: The context ids MPICH's abort report gives the predefined communicators.
MPICH_CONTEXT = {"WORLD": 0, "SELF": 16}
#: Bytes of one integer in the agreement messages of communicator creation.
INT_B = 4
#: The tags of Create_group's agreements in their parent's collective context start here, above the
#: sequence numbers its collectives are tagged with.
GROUP_TAG = 1 << 40


class Comm(CommCore, metaclass=Refusing):
    """An intra-communicator as seen by one rank (``rank``, ``size``, ``name``); what its point-to-point calls
    read (``_rank``, ``members``, ``ctx``, ``freed``) is in its compiled base."""

    __slots__ = ("index", "rank", "size", "coll_ctx", "label", "coll_seq", "_name", "handovers")

    def __init__(self, rank=None, members=(), index=None, comm_id: int = -1, label: str = "COMM_NULL"):
        """The communicator ``label`` of ``rank`` over world ranks ``members``; without a rank, mpi4py's
        ``MPI.Comm()``: a null communicator, equal to ``MPI.COMM_NULL``."""
        self._rank = NullOwner("MPI.COMM_NULL") if rank is None else rank
        self.members = members          # world rank of each rank of this communicator
        self.index = index              # world rank -> rank here (None: identity)
        self.rank = self._rank.world_rank if index is None else index[rank.world_rank]
        self.size = len(members)
        self.ctx = 2 * comm_id
        self.coll_ctx = 2 * comm_id + 1
        #: The communicator's name in error messages (``WORLD``, ``split#3(WORLD)``).
        self.label = label
        #: Its MPI name (Set_name), None for the default.
        self._name = None
        self.coll_seq = 0
        self.freed = rank is None
        #: The hand-overs of its collective calls' schedules to the compiled engine, by schedule and slot sizes
        #: (:meth:`ppt.mpi.engine.program.CompiledRank.handover`); None before the first.
        self.handovers = None

    def __repr__(self):
        return f"communicator {self.label}"

    def __bool__(self):
        """False for a null or freed communicator, as mpi4py's handles."""
        return not self.freed

    @property
    def name(self) -> str:
        """MPI's name of the communicator: ``MPI_COMM_WORLD``, ``MPI_COMM_SELF``, '' for new ones (MPICH)."""
        if self._name is not None:
            return self._name
        return {"WORLD": "MPI_COMM_WORLD", "SELF": "MPI_COMM_SELF"}.get(self.label, "")

    @name.setter
    def name(self, value: str) -> None:
        self._name = str(value)

    # -- rank translation --------------------------------------------------
    def world_of(self, rank: int) -> int:
        if not 0 <= rank < self.size:
            raise self._rank.error(f"rank {rank} is out of range for {self.label} of size {self.size}")
        return self.members[rank]

    def local_of(self, world: int) -> int:
        return world if self.index is None else self.index[world]

    def _check_peer(self, rank, what: str, wildcard: bool) -> None:
        if rank == PROC_NULL or (wildcard and rank == ANY_SOURCE):
            return
        if type(rank) is not int and not isinstance(rank, Integral) or not 0 <= rank < self.size:
            raise self._rank.error(f"{what} {rank!r} is out of range for {self.label} of size {self.size}")

    def _check_tag(self, tag, wildcard: bool) -> None:
        if tag == ANY_TAG and wildcard:
            return
        if (type(tag) is int or isinstance(tag, Integral)) and tag < 0:
            raise self._rank.error(f"tag {tag} is negative; tags are integers >= 0")

    def _size(self, obj, nbytes) -> int:
        nbytes = size_of(obj) if nbytes is None else nbytes
        if not isinstance(nbytes, int) or nbytes < 0:
            raise self._rank.error(f"message size {nbytes!r} must be an integer number of bytes >= 0")
        return nbytes

    # -- point to point ------------------------------------------------------
    # the hot calls are compiled (ppt.mpi.surface.core.fast): starting a send or receive, send, isend, recv, irecv
    _isend, _irecv, send, isend, recv, irecv = _isend, _irecv, send, isend, recv, irecv

    @mpi_call("MPI_Ssend")
    def ssend(self, obj=None, dest: int = 0, tag: int = 0, nbytes: int | None = None) -> None:
        """Synchronous send: returns once the receiver has matched the message (rendezvous at any size)."""
        self._rank.wait(self._isend(obj, dest, tag, nbytes, SYNC))

    @mpi_call("MPI_Issend")
    def issend(self, obj=None, dest: int = 0, tag: int = 0, nbytes: int | None = None):
        return self._isend(obj, dest, tag, nbytes, SYNC)

    @mpi_call("MPI_Bsend")
    def bsend(self, obj=None, dest: int = 0, tag: int = 0, nbytes: int | None = None) -> None:
        """Buffered send: sent eagerly at any size, returns at once (the attached buffer is not modelled)."""
        self._isend(obj, dest, tag, nbytes, BUFFERED)

    @mpi_call("MPI_Ibsend")
    def ibsend(self, obj=None, dest: int = 0, tag: int = 0, nbytes: int | None = None):
        return self._isend(obj, dest, tag, nbytes, BUFFERED)

    @mpi_call("MPI_Rsend")
    def rsend(self, obj=None, dest: int = 0, tag: int = 0, nbytes: int | None = None) -> None:
        """Ready send: a standard send (the receive is posted already in a correct program)."""
        self._rank.wait(self._isend(obj, dest, tag, nbytes))

    @mpi_call("MPI_Irsend")
    def irsend(self, obj=None, dest: int = 0, tag: int = 0, nbytes: int | None = None):
        return self._isend(obj, dest, tag, nbytes)

    def _persistent(self, kind: str, buf, peer, tag) -> Prequest:
        self._check_peer(peer, "source" if kind == "recv" else "destination", kind == "recv")
        self._check_tag(tag, kind == "recv")
        return self._rank.prequest_class(self, kind, buf, peer, tag)

    @mpi_call("MPI_Send_init")
    def send_init(self, buf, dest: int, tag: int = 0) -> Prequest:
        """A persistent send of mpi4py buffer ``buf`` (inactive until started)."""
        return self._persistent("send", buf, dest, tag)

    @mpi_call("MPI_Ssend_init")
    def ssend_init(self, buf, dest: int, tag: int = 0) -> Prequest:
        return self._persistent("ssend", buf, dest, tag)

    @mpi_call("MPI_Bsend_init")
    def bsend_init(self, buf, dest: int, tag: int = 0) -> Prequest:
        return self._persistent("bsend", buf, dest, tag)

    @mpi_call("MPI_Rsend_init")
    def rsend_init(self, buf, dest: int, tag: int = 0) -> Prequest:
        return self._persistent("rsend", buf, dest, tag)

    @mpi_call("MPI_Recv_init")
    def recv_init(self, buf, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Prequest:
        """A persistent receive into mpi4py buffer ``buf`` (inactive until started)."""
        return self._persistent("recv", buf, source, tag)

    @mpi_call("MPI_Sendrecv")
    def sendrecv(self, sendobj=None, dest: int = 0, sendtag: int = 0, *args, **kwargs):
        """Send to ``dest`` and receive from ``source`` at the same time; returns the received payload.

        ``sendrecv(sendobj, dest, sendtag, source, recvtag, nbytes, status)``, or mpi4py's
        ``sendrecv(sendobj, dest, sendtag, recvbuf, source, recvtag, status)``.
        """
        if "recvbuf" in kwargs or args and not isinstance(args[0], Integral):
            kwargs.pop("recvbuf", None)
            source, recvtag, status = positional("sendrecv", args[1:] if args else (), kwargs,
                                                  ("source", "recvtag", "status"), (ANY_SOURCE, ANY_TAG, None))
            nbytes = None
        else:
            source, recvtag, nbytes, status = positional(
                "sendrecv", args, kwargs, ("source", "recvtag", "nbytes", "status"), (ANY_SOURCE, ANY_TAG, None, None))
        rreq = self._irecv(source, recvtag)
        sreq = self._isend(sendobj, dest, sendtag, nbytes)
        self._rank.wait(rreq)
        self._rank.wait(sreq)
        if status is not None:
            rreq.status.copy_to(status)
        return rreq.value

    @mpi_call("MPI_Probe")
    def probe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG, status=None):
        """Block until a matching message can be received; returns its Status."""
        self._check_peer(source, "source", True)
        self._check_tag(tag, True)
        found = self._rank.wait_probe(self, source, tag, self.ctx)
        found.copy_to(status)
        return found

    @mpi_call("MPI_Iprobe")
    def iprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG, status=None):
        """Status of a matching message if one can be received now, else None (a repeated unsuccessful
        probe costs ``poll_overhead_s``: see MPI.polled)."""
        self._check_peer(source, "source", True)
        self._check_tag(tag, True)
        found = self._rank.iprobe(self, source, tag, self.ctx)
        if found is None:
            self._rank.api.polled("MPI_Iprobe")
        else:
            found.copy_to(status)
        return found

    @mpi_call("MPI_Mprobe")
    def mprobe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG, status=None) -> Message:
        """Block until a matching message arrives and take it: the Message only it receives."""
        self.probe(source, tag, status)
        return matched(self, source, tag)

    @mpi_call("MPI_Improbe")
    def improbe(self, source: int = ANY_SOURCE, tag: int = ANY_TAG, status=None):
        """As :meth:`mprobe` if a matching message has arrived, else None."""
        if self.iprobe(source, tag, status) is None:
            return None
        return matched(self, source, tag)

    # -- collectives ---------------------------------------------------------
    def _root(self, root) -> int:
        if type(root) is not int and not isinstance(root, Integral) or not 0 <= root < self.size:
            raise self._rank.error(f"root {root!r} is out of range for {self.label} of size {self.size}")
        return root

    def _block_sizes(self, objs, nbytes) -> list[int]:
        """Per-rank block sizes from an int, a list, or the payloads."""
        if nbytes is None:
            sizes = [size_of(o) for o in objs] if objs is not None else [0] * self.size
        elif isinstance(nbytes, int):
            sizes = [nbytes] * self.size
            if nbytes >= 0:
                return sizes
        else:
            sizes = list(nbytes)
        if len(sizes) != self.size or any(not isinstance(s, int) or s < 0 for s in sizes):
            raise self._rank.error(f"give {self.size} block sizes (integers >= 0), got {nbytes!r}")
        return sizes

    def _blocks(self, objs) -> list:
        if objs is None:
            return [None] * self.size
        objs = list(objs)
        if len(objs) != self.size:
            raise self._rank.error(f"give {self.size} blocks (one per rank of {self.label}), got {len(objs)}")
        return objs

    @mpi_call("MPI_Barrier")
    def barrier(self) -> None:
        if self.size > 1:
            coll.algorithm(self, "barrier", None)(Coll(self))

    def ibarrier(self):
        """Start a barrier; the request completes once every rank of this communicator has entered it."""
        return ibarrier(self)

    @mpi_call("MPI_Bcast", lowercase="bcast")
    def bcast(self, obj=None, root: int = 0, nbytes: int | None = None, algorithm: str | None = None):
        """Root's ``obj`` on every rank (each rank's own copy)."""
        return _own(self._bcast(_own(obj), root, nbytes, algorithm))

    def _bcast(self, obj, root, nbytes, algorithm):
        self._root(root)
        if self.size == 1:
            return obj
        nbytes = self._size(obj, nbytes) if self.rank == root else 0
        return coll.algorithm(self, "bcast", algorithm)(Coll(self, root), obj, root, nbytes)

    @mpi_call("MPI_Reduce", lowercase="reduce")
    def reduce(self, obj=None, op=SUM, root: int = 0, nbytes: int | None = None, algorithm: str | None = None):
        """``op`` over all ranks' ``obj`` (in rank order) on ``root``; None elsewhere."""
        return _own(self._reduce(_own(obj), op, root, nbytes, algorithm))

    def _reduce(self, obj, op, root, nbytes, algorithm):
        self._root(root)
        op = as_op(op)
        if self.size == 1:
            return obj
        return coll.algorithm(self, "reduce", algorithm)(Coll(self, root), obj, op, root, self._size(obj, nbytes))

    @mpi_call("MPI_Allreduce", lowercase="allreduce")
    def allreduce(self, obj=None, op=SUM, nbytes: int | None = None, algorithm: str | None = None):
        """``op`` over all ranks' ``obj`` on every rank."""
        return _own(self._allreduce(_own(obj), op, nbytes, algorithm))

    def _allreduce(self, obj, op, nbytes, algorithm):
        op = as_op(op)
        if self.size == 1:
            return obj
        nbytes = self._size(obj, nbytes)
        fn = coll.algorithm(self, "allreduce", algorithm, nbytes, op)
        return fn(Coll(self), obj, op, nbytes)

    @mpi_call("MPI_Gather", lowercase="gather")
    def gather(self, obj=None, root: int = 0, nbytes: int | None = None, algorithm: str | None = None):
        """List of all ranks' ``obj`` on ``root`` (None elsewhere); ``nbytes``: this rank's block."""
        return _own(self._gather(_own(obj), root, nbytes, algorithm))

    @mpi_call("MPI_Gatherv")
    def gatherv(self, obj=None, root: int = 0, nbytes: int | None = None, algorithm: str | None = None):
        """As :meth:`gather`; block sizes may differ between ranks."""
        return _own(self._gather(_own(obj), root, nbytes, algorithm))

    def _gather(self, obj, root, nbytes, algorithm):
        self._root(root)
        if self.size == 1:
            return [obj]
        fn = coll.algorithm(self, "gather", algorithm)
        return fn(Coll(self, root), obj, root, self._size(obj, nbytes))

    @mpi_call("MPI_Scatter", lowercase="scatter")
    def scatter(self, objs=None, root: int = 0, nbytes=None, algorithm: str | None = None):
        """Block ``objs[i]`` of the root to rank i; ``nbytes``: bytes per block (root only)."""
        return _own(self._scatter(_own(objs), root, nbytes, algorithm))

    @mpi_call("MPI_Scatterv")
    def scatterv(self, objs=None, root: int = 0, nbytes=None, algorithm: str | None = None):
        """As :meth:`scatter` with a list of per-rank block sizes."""
        return _own(self._scatter(_own(objs), root, nbytes, algorithm))

    def _scatter(self, objs, root, nbytes, algorithm):
        self._root(root)
        if self.rank == root:
            objs = self._blocks(objs)
            sizes = self._block_sizes(objs, nbytes)
        else:
            objs = sizes = None
        if self.size == 1:
            return objs[0]
        return coll.algorithm(self, "scatter", algorithm)(Coll(self, root), objs, root, sizes)

    @mpi_call("MPI_Allgather", lowercase="allgather")
    def allgather(self, obj=None, nbytes: int | None = None, algorithm: str | None = None):
        """List of all ranks' ``obj`` on every rank."""
        return _own(self._allgather(_own(obj), nbytes, algorithm, nbytes))

    @mpi_call("MPI_Allgatherv")
    def allgatherv(self, obj=None, nbytes: int | None = None, algorithm: str | None = None):
        """As :meth:`allgather`; block sizes may differ between ranks."""
        return _own(self._allgather(_own(obj), nbytes, algorithm, None))

    def _allgather(self, obj, nbytes, algorithm, uniform_B):
        if self.size == 1:
            return [obj]
        nbytes = self._size(obj, nbytes)
        return coll.algorithm(self, "allgather", algorithm, uniform_B)(Coll(self), obj, nbytes)

    @mpi_call("MPI_Alltoall", lowercase="alltoall")
    def alltoall(self, objs=None, nbytes=None, algorithm: str | None = None):
        """Block ``objs[j]`` to rank j; returns the blocks received, by source.  ``nbytes``: per block."""
        return _own(self._alltoall(_own(objs), nbytes, algorithm))

    @mpi_call("MPI_Alltoallv")
    def alltoallv(self, objs=None, nbytes=None, algorithm: str | None = None):
        """As :meth:`alltoall` with a list of per-destination block sizes; by default MPICH's algorithm for
        it (:func:`~ppt.mpi.collectives.calls.alltoallv_algorithm`)."""
        return _own(self._alltoall(_own(objs), nbytes, algorithm or self._alltoallv_algorithm()))

    def _alltoallv_algorithm(self) -> str:
        return coll.alltoallv_algorithm(self._rank.job.algorithms)

    def _alltoall(self, objs, nbytes, algorithm):
        objs = self._blocks(objs)
        sizes = self._block_sizes(objs, nbytes)
        if self.size == 1:
            return objs
        return coll.algorithm(self, "alltoall", algorithm)(Coll(self), objs, sizes)

    @mpi_call("MPI_Reduce_scatter")
    def reduce_scatter(self, objs=None, op=SUM, nbytes=None, algorithm: str | None = None):
        """``op`` over ranks of block ``objs[i]``, delivered to rank i.  ``nbytes``: per block (int or list)."""
        return _own(self._reduce_scatter(_own(objs), op, nbytes, algorithm))

    def _reduce_scatter(self, objs, op, nbytes, algorithm):
        op = as_op(op)
        objs = self._blocks(objs)
        sizes = self._block_sizes(objs, nbytes)
        if self.size == 1:
            return objs[0]
        fn = coll.algorithm(self, "reduce_scatter", algorithm, None, op)
        return fn(Coll(self), objs, op, sizes)

    @mpi_call("MPI_Reduce_scatter_block")
    def reduce_scatter_block(self, objs=None, op=SUM, nbytes=None, algorithm: str | None = None):
        """As :meth:`reduce_scatter` with blocks of one size (MPI_Reduce_scatter_block)."""
        return _own(self._reduce_scatter(_own(objs), op, nbytes, algorithm))

    @mpi_call("MPI_Scan")
    def scan(self, obj=None, op=SUM, nbytes: int | None = None, algorithm: str | None = None):
        """Inclusive prefix reduction: ``op`` over ranks 0..rank."""
        return _own(self._scan("scan", _own(obj), op, nbytes, algorithm))

    @mpi_call("MPI_Exscan")
    def exscan(self, obj=None, op=SUM, nbytes: int | None = None, algorithm: str | None = None):
        """Exclusive prefix reduction: ``op`` over ranks 0..rank-1 (None on rank 0)."""
        return _own(self._scan("exscan", _own(obj), op, nbytes, algorithm))

    def _scan(self, kind, obj, op, nbytes, algorithm):
        op = as_op(op)
        if self.size == 1:
            return obj if kind == "scan" else None
        return coll.algorithm(self, kind, algorithm)(Coll(self), obj, op, self._size(obj, nbytes))

    # -- communicator management ---------------------------------------------------
    def _new_id(self, agreed: int) -> int:
        self._rank.next_ctx = agreed + 1
        return agreed

    def _child_name(self, kind: str, comm_id: int) -> str:
        return f"{kind}#{comm_id}({self.label})"

    def _make(self, members, comm_id, kind, cls=None, **extra):
        job = self._rank.job
        members, index = job.intern_members(members)
        return (cls or Comm)(self._rank, members, index, comm_id, self._child_name(kind, comm_id), **extra)

    @mpi_call("MPI_Comm_dup")
    def dup(self, info=None) -> "Comm":
        """A new communicator of the same members and class (a topology's kept), with a message space of its
        own; ``info``'s hints change nothing here."""
        hints(info)
        comm_id = self._new_id(self._agree())
        return self._make(self.members, comm_id, "dup", type(self), **self._topology())

    def _topology(self) -> dict:
        """What a communicator of this class is made with beyond its members (a topology's dims, edges ...)."""
        return {}

    @mpi_call("MPI_Comm_dup_with_info")
    def dup_with_info(self, info) -> "Comm":
        """:meth:`dup` with ``info`` (mpi4py's ``Dup_with_info``)."""
        return self.dup(info)

    @mpi_call("MPI_Comm_idup")
    def idup(self, info=None) -> tuple:
        """``(newcomm, request)`` of MPI_Comm_idup.  MPI lets a program use ``newcomm`` only once ``request``
        has completed; here it is made as :meth:`dup` makes it, in the same simulated time, at the call, and
        ``request`` is complete at once."""
        return self.dup(info), self._done()

    @mpi_call("MPI_Comm_idup_with_info")
    def idup_with_info(self, info) -> tuple:
        """:meth:`idup` with ``info`` (mpi4py's ``Idup_with_info``)."""
        return self.idup(info)

    def _done(self):
        """A request complete at once (a send to PROC_NULL), for a nonblocking call that did its work at the call."""
        return self._rank.isend(self, PROC_NULL, 0, 0, None, self.ctx)

    def _agree(self) -> int:
        """The largest ``next_ctx`` of all members (a 4-byte allreduce)."""
        return self._allreduce(self._rank.next_ctx, MAX, INT_B, None)

    @mpi_call("MPI_Comm_split")
    def split(self, color: int = 0, key: int = 0):
        """Communicator of the ranks with the same ``color``, ordered by (key, rank); None for UNDEFINED."""
        entries = self._split_entries(color, key)
        comm_id = self._new_id(max(e[2] for e in entries))
        if color == UNDEFINED:
            return None
        return self._make(of_color(entries, self.members, color), comm_id, "split")

    def _split_entries(self, color, key) -> list:
        """Every rank's ``(color, key, next_ctx)``, by rank (a 12-byte allgather); ``color`` checked first."""
        if not isinstance(color, int) or (color < 0 and color != UNDEFINED):
            raise self._rank.error(f"color {color!r} must be an integer >= 0 or UNDEFINED")
        return self._allgather((color, key, self._rank.next_ctx), 3 * INT_B, None, 3 * INT_B)

    @mpi_call("MPI_Comm_create")
    def create(self, group: Group):
        """Communicator of ``group``'s members (a subset of this one); None on the others."""
        self._check_subgroup(group)
        comm_id = self._new_id(self._agree())
        if group.rank == UNDEFINED:
            return None
        return self._make(group.members, comm_id, "create")

    @mpi_call("MPI_Comm_create_group")
    def create_group(self, group: Group, tag: int = 0):
        """Communicator of ``group``'s members (a subset of this one), made by them alone: the others need not
        call, and get None (COMM_NULL) at once if they do, as from MPICH.  The members agree on its id as
        :meth:`dup`'s do, by an allreduce among themselves in this communicator's collective context with
        tag ``tag`` (which tells apart concurrent calls on overlapping groups, as in MPI)."""
        self._check_subgroup(group)
        self._check_tag(tag, False)
        if group.rank == UNDEFINED:
            return None
        agreeing = self._make(group.members, self.coll_ctx // 2, "group")
        agreeing.coll_seq = GROUP_TAG + tag - 1          # its one collective's tag: GROUP_TAG + tag
        comm_id = self._new_id(agreeing._agree())
        return self._make(group.members, comm_id, "create_group")

    def _check_subgroup(self, group: Group) -> None:
        """An MPI error unless every member of ``group`` is one of this communicator's."""
        missing = [w for w in group.members if w not in self._member_set()]
        if missing:
            raise self._rank.error(f"the group holds processes outside {self.label} (world ranks {missing[:4]})")

    def _member_set(self):
        return self.members if self.index is None else self.index

    @mpi_call("MPI_Comm_free")
    def free(self) -> None:
        """Mark freed; any later use is an error.  COMM_WORLD and COMM_SELF are refused, as MPICH refuses them."""
        if self.label in MPICH_CONTEXT:
            raise self._rank.error(f"cannot free permanent communicator {self.name}")
        self.freed = True

    @property
    def group(self) -> Group:
        """The group of this communicator's members (MPI_Comm_group)."""
        self._rank.stats.count("MPI_Comm_group")
        return Group(self._rank, self.members)

    @mpi_call("MPI_Comm_split_type")
    def split_type(self, split_type: int, key: int = 0, info=None):
        """Communicator of the ranks on this rank's node for COMM_TYPE_SHARED; None for UNDEFINED."""
        if split_type == UNDEFINED:
            return self.split(UNDEFINED, key)
        return self.split(self._rank.node, key)

    @mpi_call("MPI_Comm_compare")
    def compare(self, other: "Comm") -> int:
        """IDENT (the same communicator), CONGRUENT (same ranks, same order), SIMILAR (same ranks) or UNEQUAL."""
        if other is self or other.ctx == self.ctx and other.members == self.members:
            return IDENT
        if tuple(other.members) == tuple(self.members):
            return CONGRUENT
        return SIMILAR if set(other.members) == set(self.members) else UNEQUAL

    @mpi_call("MPI_Abort")
    def abort(self, errorcode: int = 0):
        """Stop the whole job with exit status ``errorcode``: raises AbortCalled."""
        name = self.name if self.label in ("WORLD", "SELF") else f"comm={self.label}"
        ident = MPICH_CONTEXT.get(self.label, self.ctx)
        raise AbortCalled(self._rank.world_rank, int(errorcode), name, ident, self.rank)

    @property
    def topology(self) -> int:
        """CART for a Cartesian communicator, else UNDEFINED."""
        return UNDEFINED

    is_inter, is_intra, is_topo = False, True, False

    def get_attr(self, keyval: int):
        """MPI_Comm_get_attr of a predefined key (``MPI.TAG_UB`` ...): MPICH's values under mpiexec; None
        for other keys."""
        values = {"TAG_UB": TAG_UB_VALUE, "HOST": PROC_NULL, "IO": ANY_SOURCE, "WTIME_IS_GLOBAL": 0,
                  "UNIVERSE_SIZE": self._rank.job.num_ranks, "APPNUM": 0}
        return next((values[name] for name, key in KEYVALS.items() if key == keyval), None)

    def set_errhandler(self, errhandler) -> None:
        """Accepted and ignored: every MPI error raises an exception here (as ERRORS_RETURN in mpi4py)."""


def hints(info) -> None:
    """Check a communicator call's ``info`` (None or ``MPI.INFO_NULL``: PPT has no other info object) as mpi4py
    checks its type."""
    if info is not None and info is not INFO_NULL:
        raise TypeError(f"Argument 'info' has incorrect type (expected mpi4py.MPI.Info, got {type(info).__name__})")


def of_color(entries: list, members, color: int) -> list:
    """The world ranks of ``members`` whose split entry (``(color, key, next_ctx)``, by rank) has ``color``,
    ordered by key, then rank (MPI_Comm_split's order)."""
    chosen = sorted((k, r) for r, (c, k, _) in enumerate(entries) if c == color)
    return [members[r] for _, r in chosen]


def _own(obj):
    """A rank's own copy of a collective's payload or result, as mpi4py pickles what it sends and
    unpickles a fresh object on every rank: no rank sees another change it.  A list (gathered
    blocks) is copied item by item, so lists of None (size-only runs) cost a list copy."""
    kind = type(obj)
    if kind in IMMUTABLE:
        return obj
    if kind is list:
        if IMMUTABLE.issuperset(map(type, obj)):
            return list(obj)
        return [item if type(item) in IMMUTABLE else sized_copy(item)[0] for item in obj]
    return sized_copy(obj)[0]
