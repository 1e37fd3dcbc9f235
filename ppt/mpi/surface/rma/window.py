"""RMA windows (MPI-3.1 chapter 11) as mpi4py's ``MPI.Win``: creation, one-sided operations, attributes.

Every member of a window sees one :class:`WindowState` (the members' memories, their locks, their notices);
each holds its own :class:`Win` (its epochs and its operations in flight).  The simulated ranks share one
address space, so an operation moves its data at the call -- what a correct program reads after the closing
synchronisation is the same -- while its time is that of an RDMA transfer on the simulated network
(:mod:`ppt.mpi.surface.rma.transfer`) that the synchronisations wait for (:mod:`ppt.mpi.surface.rma.sync`).
Displacements are in the target's ``disp_unit`` bytes (a dynamic window's are addresses,
``MPI.Get_address``); sizes in bytes.
"""
from __future__ import annotations

import weakref

import numpy as np

from ppt.mpi.collectives.ops import as_op, on_buffers
from ppt.mpi.constants import CONTROL_B, PROC_NULL, RMA
from ppt.mpi.errors import UnsupportedCall
from ppt.mpi.engine.core import lib
from ppt.mpi.surface.rma import sync, transfer
from ppt.mpi.surface.buffers.arguments import BOTTOM, Buf, message, writable_bytes
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.surface.communicators.group import Group
from ppt.mpi.surface.core.nulls import NullOwner
from ppt.mpi.unsupported import Refusing

#: Per engine, the windows being made or alive, by (job's first engine rank, context, first member) of their
#: communicators.
_WINDOWS = weakref.WeakKeyDictionary()
#: Bytes of each member's (size, disp_unit) in the agreement that makes a window.
_AGREEMENT_B = 16


class WindowState:
    """What the members of one window share: per member (rank of ``comm``) its memory (bytes, numpy), disp_unit
    and lock; the attached regions of a dynamic window; the notices of PSCW."""

    def __init__(self, size: int, flavor: int, registry: dict, key):
        self.flavor = flavor
        self.registry, self.key = registry, key
        self.memory = [np.zeros(0, np.uint8)] * size
        self.disp_unit = [1] * size
        self.regions = [[] for _ in range(size)]        # dynamic: (address, bytes) attached
        self.locks = [sync.TargetLock() for _ in range(size)]
        self.mail = transfer.Mailbox()
        self.members_left = size
        self.shared = False

    def share(self) -> None:
        """Lay the members' memories one after another in one block (a shared window's)."""
        block = np.zeros(sum(memory.size for memory in self.memory), np.uint8)
        ends = np.cumsum([memory.size for memory in self.memory])
        self.memory = [block[end - memory.size:end] for memory, end in zip(self.memory, ends)]
        self.shared = True

    def freed_by_one(self) -> None:
        """A member freed its window; the last one forgets the window."""
        self.members_left -= 1
        if not self.members_left:
            del self.registry[self.key]

    def target_bytes(self, win, target: int, disp: int, nbytes: int):
        """The bytes of ``target``'s window from displacement ``disp``, at least ``nbytes`` of them."""
        if self.flavor == RMA["WIN_FLAVOR_DYNAMIC"]:
            for address, region in self.regions[target]:
                if address <= disp and disp + nbytes <= address + region.size:
                    return region[disp - address:]
            raise win.error(f"address {disp} (+{nbytes} B) is in no region attached at rank {target} "
                            "(MPI_ERR_RMA_RANGE)")
        offset = disp * self.disp_unit[target]
        memory = self.memory[target]
        if disp < 0 or offset + nbytes > memory.size:
            raise win.error(f"displacement {disp} (+{nbytes} B) is outside rank {target}'s window of "
                            f"{memory.size} B (MPI_ERR_RMA_RANGE)")
        return memory[offset:]


def _address(raw) -> int:
    return raw.ctypes.data if raw.size else 0


class Win(metaclass=Refusing):
    """One rank's window of a group (``comm``, a dup the window keeps): its epochs (``fence_open``, ``locks``
    held by target, PSCW's ``started`` targets and ``posted`` completions awaited) and its operations in flight
    by target (``pending``; ``served``: the targets' parts of its gets)."""

    __slots__ = ("_rank", "state", "comm", "fence_open", "locks", "lock_all", "started", "posted", "pending",
                 "served", "freed", "_name")
    #: The communicator a window is made on when the call names none (a rank's own class sets it: MPI.Win).
    _self_comm = None

    def __init__(self, comm=None, state: WindowState | None = None):
        """Without arguments, mpi4py's ``MPI.Win()``: a null window, equal to ``MPI.WIN_NULL``."""
        self._rank = comm._rank if comm is not None else NullOwner("MPI.WIN_NULL")
        self.comm, self.state = comm, state
        self.fence_open, self.lock_all = False, False
        self.locks: dict[int, int] = {}
        self.started = self.posted = None
        self.pending: dict[int, list] = {}
        self.served: list = []
        self.freed = comm is None
        self._name = ""

    def __repr__(self):
        return f"window of {self.comm.label}" if self.comm is not None else "MPI.WIN_NULL"

    def __bool__(self):
        return not self.freed

    def error(self, text: str):
        return self._rank.error(text)

    # -- creation (collective over comm) ----------------------------------------------------------------
    @classmethod
    def Create(cls, memory, disp_unit: int = 1, info=None, comm=None):
        """A window over ``memory`` (a buffer; MPI.BOTTOM or None: no memory) of each member."""
        return cls._make("MPI_Win_create", comm, memory, disp_unit, RMA["WIN_FLAVOR_CREATE"])

    @classmethod
    def Allocate(cls, size: int, disp_unit: int = 1, info=None, comm=None):
        """A window over ``size`` new bytes (zeroed) of each member."""
        return cls._make("MPI_Win_allocate", comm, _new_bytes(size), disp_unit, RMA["WIN_FLAVOR_ALLOCATE"])

    @classmethod
    def Allocate_shared(cls, size: int, disp_unit: int = 1, info=None, comm=None):
        """As Allocate, the members' memories one after another in one block their loads and stores reach
        (``Shared_query``); the members must share a node."""
        return cls._make("MPI_Win_allocate_shared", comm, _new_bytes(size), disp_unit, RMA["WIN_FLAVOR_SHARED"])

    @classmethod
    def Create_dynamic(cls, info=None, comm=None):
        """A window with no memory; each member attaches regions (``Attach``), addressed by MPI.Get_address."""
        return cls._make("MPI_Win_create_dynamic", comm, None, 1, RMA["WIN_FLAVOR_DYNAMIC"])

    @classmethod
    def _make(cls, call: str, comm, memory, disp_unit, flavor: int) -> "Win":
        return _CREATIONS[call](cls._self_comm if comm is None else comm, cls, memory, disp_unit, flavor)

    @mpi_call("MPI_Win_free")
    def Free(self) -> None:
        """Complete the rank's operations and free the window (collective: a barrier of its group)."""
        if self.locks or self.started is not None or self.posted is not None:
            raise self.error("the window is freed inside a lock or PSCW epoch (MPI_ERR_RMA_SYNC)")
        sync.flush_all(self)
        self.comm.barrier()
        self.freed = True
        self.state.freed_by_one()

    free = Free

    # -- memory and attributes ----------------------------------------------------------------------
    def tomemory(self) -> memoryview:
        """The rank's own memory of the window, as a buffer."""
        return memoryview(self.state.memory[self.comm.rank])

    @mpi_call("MPI_Win_shared_query")
    def Shared_query(self, rank: int) -> tuple:
        """``(buffer, disp_unit)`` of rank ``rank``'s memory in a shared window (PROC_NULL: the first member's
        with any)."""
        state = self.state
        if state.flavor != RMA["WIN_FLAVOR_SHARED"]:
            raise self.error("the window was not made by MPI_Win_allocate_shared (MPI_ERR_RMA_FLAVOR)")
        if rank == PROC_NULL:
            rank = next((r for r, memory in enumerate(state.memory) if memory.size), 0)
        self._check_target(rank)
        return memoryview(state.memory[rank]), state.disp_unit[rank]

    @mpi_call("MPI_Win_attach")
    def Attach(self, memory) -> None:
        """Attach ``memory`` (a buffer) to a dynamic window at its address."""
        if self.state.flavor != RMA["WIN_FLAVOR_DYNAMIC"]:
            raise self.error("MPI_Win_attach on a window not made by MPI_Win_create_dynamic (MPI_ERR_RMA_FLAVOR)")
        raw = writable_bytes(self._rank, memory, "window")
        self.state.regions[self.comm.rank].append((_address(raw), raw))

    @mpi_call("MPI_Win_detach")
    def Detach(self, memory) -> None:
        regions = self.state.regions[self.comm.rank]
        address = _address(writable_bytes(self._rank, memory, "window"))
        kept = [(a, r) for a, r in regions if a != address]
        if len(kept) == len(regions):
            raise self.error(f"no region at address {address} is attached (MPI_ERR_RMA_ATTACH)")
        regions[:] = kept

    @property
    def attrs(self) -> tuple:
        """``(base address, size in bytes, disp_unit)`` of the rank's memory."""
        memory = self.state.memory[self.comm.rank]
        return _address(memory), memory.size, self.state.disp_unit[self.comm.rank]

    def Get_attr(self, keyval: int):
        base, size, disp_unit = self.attrs
        values = {RMA["WIN_BASE"]: base, RMA["WIN_SIZE"]: size, RMA["WIN_DISP_UNIT"]: disp_unit,
                  RMA["WIN_CREATE_FLAVOR"]: self.flavor, RMA["WIN_MODEL"]: self.model}
        return values.get(keyval)

    @property
    def flavor(self) -> int:
        return self.state.flavor

    @property
    def model(self) -> int:
        """WIN_UNIFIED: the ranks' loads and stores and the operations reach the same memory."""
        return RMA["WIN_UNIFIED"]

    @property
    def group(self) -> Group:
        return self.comm.group

    def Get_group(self) -> Group:
        return self.comm.group

    @property
    def group_rank(self) -> int:
        return self.comm.rank

    @property
    def group_size(self) -> int:
        return self.comm.size

    def Get_name(self) -> str:
        return self._name

    def Set_name(self, name: str) -> None:
        self._name = str(name)

    name = property(Get_name, Set_name)

    # -- synchronisation ------------------------------------------------------------------------------
    @mpi_call("MPI_Win_fence")
    def Fence(self, assertion: int = 0) -> None:
        sync.fence(self, assertion)

    @mpi_call("MPI_Win_lock")
    def Lock(self, rank: int, lock_type: int = RMA["LOCK_EXCLUSIVE"], assertion: int = 0) -> None:
        self._check_target(rank)
        if self.lock_all:
            raise self.error("MPI_Win_lock inside MPI_Win_lock_all (MPI_ERR_RMA_SYNC)")
        sync.lock(self, [rank], lock_type, assertion)

    @mpi_call("MPI_Win_unlock")
    def Unlock(self, rank: int) -> None:
        self._check_target(rank)
        if self.lock_all:
            raise self.error("MPI_Win_unlock inside MPI_Win_lock_all; call MPI_Win_unlock_all (MPI_ERR_RMA_SYNC)")
        sync.unlock(self, [rank])

    @mpi_call("MPI_Win_lock_all")
    def Lock_all(self, assertion: int = 0) -> None:
        """A shared lock at every member."""
        if self.locks:
            raise self.error("MPI_Win_lock_all while the window is locked (MPI_ERR_RMA_SYNC)")
        sync.lock(self, list(range(self.comm.size)), sync.LOCK_SHARED, assertion)
        self.lock_all = True

    @mpi_call("MPI_Win_unlock_all")
    def Unlock_all(self) -> None:
        if not self.lock_all:
            raise self.error("MPI_Win_unlock_all without MPI_Win_lock_all (MPI_ERR_RMA_SYNC)")
        sync.unlock(self, list(range(self.comm.size)))
        self.lock_all = False

    def _in_passive_epoch(self, rank=None) -> None:
        if not self.locks or rank is not None and rank not in self.locks:
            raise self.error(f"the window is not locked{'' if rank is None else f' at rank {rank}'} "
                             "(MPI_ERR_RMA_SYNC)")

    @mpi_call("MPI_Win_flush")
    def Flush(self, rank: int) -> None:
        """Wait until the rank's operations to ``rank`` are complete there."""
        self._check_target(rank)
        self._in_passive_epoch(rank)
        sync.flush(self, [rank])

    @mpi_call("MPI_Win_flush_all")
    def Flush_all(self) -> None:
        self._in_passive_epoch()
        sync.flush_all(self)

    @mpi_call("MPI_Win_flush_local")
    def Flush_local(self, rank: int) -> None:
        """As Flush: an operation's origin buffer is free once it is complete at the target."""
        self._check_target(rank)
        self._in_passive_epoch(rank)
        sync.flush(self, [rank])

    @mpi_call("MPI_Win_flush_local_all")
    def Flush_local_all(self) -> None:
        self._in_passive_epoch()
        sync.flush_all(self)

    @mpi_call("MPI_Win_post")
    def Post(self, group, assertion: int = 0) -> None:
        sync.post(self, self._ranks_of(group))

    @mpi_call("MPI_Win_start")
    def Start(self, group, assertion: int = 0) -> None:
        sync.start(self, self._ranks_of(group))

    @mpi_call("MPI_Win_complete")
    def Complete(self) -> None:
        sync.complete(self)

    @mpi_call("MPI_Win_wait")
    def Wait(self) -> None:
        sync.wait(self)

    @mpi_call("MPI_Win_test")
    def Test(self) -> bool:
        return sync.test(self)

    def _ranks_of(self, group) -> list[int]:
        """The ranks in the window's group of ``group``'s members."""
        index = self.comm.index
        ranks = [w if index is None else index.get(w) for w in group.members]
        if any(r is None or not 0 <= r < self.comm.size for r in ranks):
            raise self.error("the group holds processes outside the window's group (MPI_ERR_GROUP)")
        return ranks

    # -- operations ---------------------------------------------------------------------------------
    def _check_target(self, rank) -> None:
        if not isinstance(rank, (int, np.integer)) or not 0 <= rank < self.comm.size:
            raise self.error(f"rank {rank!r} is not in the window's group of {self.comm.size} (MPI_ERR_RANK)")

    def _access(self, rank: int) -> None:
        """Refuse an operation on target ``rank`` outside an access epoch to it."""
        self._check_target(rank)
        if not (self.fence_open or rank in self.locks or self.started is not None and rank in self.started):
            raise self.error(f"no access epoch to rank {rank} is open: call Fence, Lock, Lock_all or Start "
                             "first (MPI_ERR_RMA_SYNC)")

    def _target(self, rank: int, origin: Buf, target) -> Buf:
        """The target's elements an operation reaches, as a Buf (mpi4py's ``target``: None, a displacement,
        or ``(disp[, count[, datatype]])``), checked against the origin's bytes."""
        disp, count, datatype = 0, origin.counts[0], origin.datatype
        if isinstance(target, (int, np.integer)):
            disp = target
        elif isinstance(target, (list, tuple)) and 1 <= len(target) <= 3:
            disp, count, datatype = (list(target) + [count, datatype][len(target) - 1:])[:3]
        elif target is not None:
            raise self.error(f"cannot read a target from {target!r}: give a displacement or (disp, count, datatype)")
        disp, count = int(disp), int(count)
        nbytes = count * datatype.size
        if nbytes != origin.nbytes(0):
            raise self.error(f"the target's {count} x {datatype.name} hold {nbytes} B, the origin's "
                             f"{origin.nbytes(0)} B (MPI_ERR_TYPE)")
        raw = self.state.target_bytes(self, rank, disp, datatype.span(count) * datatype.dtype.itemsize)
        usable = raw.size - raw.size % datatype.dtype.itemsize
        return Buf(raw[:usable].view(datatype.dtype), datatype, [count], [0])

    def _issue(self, rank: int, req) -> None:
        self.pending.setdefault(rank, []).append(req)

    def _put(self, origin, rank: int, target, op=None):
        """Put (op None) or accumulate ``origin`` at ``rank``: the data now, the transfer in flight."""
        me = self._rank
        obuf = message(me, origin, 1, "origin")
        self._access(rank)
        tbuf = self._target(rank, obuf, target)
        value = obuf.block(0)
        tbuf.put(me, 0, value if op is None else on_buffers(op, tbuf.datatype)(tbuf.block(0), value))
        req = transfer.put(me, self.comm, rank, obuf.nbytes(0))
        self._issue(rank, req)
        return req

    def _fetch(self, result, rank: int, target, update=None, operand_B: int = 0):
        """Get ``rank``'s elements into ``result`` (a message, or a Buf), then (``update(old)``: the new
        elements) write them; ``operand_B``: the operands the request carries."""
        me = self._rank
        rbuf = result if isinstance(result, Buf) else message(me, result, 1, "result")
        self._access(rank)
        tbuf = self._target(rank, rbuf, target)
        old = tbuf.block(0)
        rbuf.put(me, 0, old)
        if update is not None:
            tbuf.put(me, 0, update(old))
        req = transfer.get(me, self.comm, rank, CONTROL_B + operand_B, rbuf.nbytes(0), self.served)
        self._issue(rank, req)
        return req

    @mpi_call("MPI_Put")
    def Put(self, origin, target_rank: int, target=None) -> None:
        if target_rank != PROC_NULL:
            self._put(origin, target_rank, target)

    @mpi_call("MPI_Get")
    def Get(self, origin, target_rank: int, target=None) -> None:
        if target_rank != PROC_NULL:
            self._fetch(origin, target_rank, target)

    @mpi_call("MPI_Accumulate")
    def Accumulate(self, origin, target_rank: int, target=None, op=None) -> None:
        if target_rank != PROC_NULL:
            self._put(origin, target_rank, target, self._op(op))

    @mpi_call("MPI_Get_accumulate")
    def Get_accumulate(self, origin, result, target_rank: int, target=None, op=None) -> None:
        if target_rank != PROC_NULL:
            self._get_accumulate(message(self._rank, origin, 1, "origin"), result, target_rank, target, self._op(op))

    def _get_accumulate(self, obuf: Buf, result, rank: int, target, op):
        value = obuf.block(0)
        return self._fetch(result, rank, target, lambda old: on_buffers(op, obuf.datatype)(old, value),
                           obuf.nbytes(0) if value is not None else 0)

    def _element(self, msg, what: str) -> Buf:
        """The first element of message ``msg`` (Fetch_and_op's and Compare_and_swap's arguments)."""
        buf = message(self._rank, msg, 1, what)
        return Buf(buf.array, buf.datatype, [1], buf.displs)

    @mpi_call("MPI_Fetch_and_op")
    def Fetch_and_op(self, origin, result, target_rank: int, target_disp: int = 0, op=None) -> None:
        """Get_accumulate of one element."""
        if target_rank != PROC_NULL:
            obuf = self._element(origin, "origin")
            self._get_accumulate(obuf, self._element(result, "result"), target_rank,
                                 (target_disp, 1, obuf.datatype), self._op(op))

    @mpi_call("MPI_Compare_and_swap")
    def Compare_and_swap(self, origin, compare, result, target_rank: int, target_disp: int = 0) -> None:
        """The target's element into ``result``, replaced by ``origin``'s if it equals ``compare``'s."""
        if target_rank == PROC_NULL:
            return
        obuf = self._element(origin, "origin")
        new = obuf.block(0)
        expected = self._element(compare, "compare").block(0).tobytes()
        self._fetch(self._element(result, "result"), target_rank, (target_disp, 1, obuf.datatype),
                    lambda old: new if old.tobytes() == expected else old, 2 * obuf.datatype.size)

    @mpi_call("MPI_Rput")
    def Rput(self, origin, target_rank: int, target=None):
        """Put, returning a request complete once the data arrived."""
        return self._request(target_rank, lambda: self._put(origin, target_rank, target))

    @mpi_call("MPI_Rget")
    def Rget(self, origin, target_rank: int, target=None):
        return self._request(target_rank, lambda: self._fetch(origin, target_rank, target))

    @mpi_call("MPI_Raccumulate")
    def Raccumulate(self, origin, target_rank: int, target=None, op=None):
        return self._request(target_rank, lambda: self._put(origin, target_rank, target, self._op(op)))

    @mpi_call("MPI_Rget_accumulate")
    def Rget_accumulate(self, origin, result, target_rank: int, target=None, op=None):
        return self._request(target_rank, lambda: self._get_accumulate(
            message(self._rank, origin, 1, "origin"), result, target_rank, target, self._op(op)))

    def _op(self, op):
        """``op`` (default SUM) as an Op, refusing one of the program's own: MPI allows predefined ones."""
        op = as_op("SUM" if op is None else op)
        if op.user is not None:
            raise self.error("one-sided accumulations take predefined operations only (MPI_ERR_OP)")
        return op

    def _request(self, rank: int, issue):
        """The request of a request-based operation (a null one for PROC_NULL); only in a passive epoch."""
        if rank == PROC_NULL:
            return self._rank.api.REQUEST_NULL
        if not self.locks:
            raise self.error("request-based operations need a passive target epoch (Lock or Lock_all) "
                             "(MPI_ERR_RMA_SYNC)")
        return issue()


def _new_bytes(size) -> np.ndarray:
    return np.zeros(max(int(size), 0), np.uint8)


def _made(comm, cls, memory, disp_unit, flavor: int) -> Win:
    """This rank's window (a ``cls``) of ``comm``'s members: each member's memory and disp_unit shared, and an
    allgather of them (what an MPI library exchanges), which every member has joined once it returns."""
    rank = comm._rank
    if not all(lib.ppt_mpi_is_local(rank.m, rank.engine_of(w)) for w in comm.members):
        raise UnsupportedCall(f"rank {rank.world_rank} in {rank.call}: RMA windows across simulation processes "
                              "are not supported; run the job on one process")
    if not isinstance(disp_unit, (int, np.integer)) or disp_unit <= 0:
        raise rank.error(f"disp_unit {disp_unit!r} must be an integer > 0 (MPI_ERR_DISP)")
    if flavor == RMA["WIN_FLAVOR_SHARED"] and len({rank.node_of[w] for w in comm.members}) > 1:
        raise rank.error("the group's ranks are on more than one node; MPI_Win_allocate_shared needs a "
                         "communicator of one node (Split_type(COMM_TYPE_SHARED))")
    comm = comm.dup()                   # the window's own context, for its synchronisations
    state = _state(comm, flavor)
    state.memory[comm.rank] = _NO_BYTES if memory is None or memory is BOTTOM else \
        writable_bytes(rank, memory, "window")
    state.disp_unit[comm.rank] = int(disp_unit)
    comm.allgather(None, nbytes=_AGREEMENT_B)
    if flavor == RMA["WIN_FLAVOR_SHARED"] and not state.shared:
        state.share()
    return cls(comm, state)


def _state(comm, flavor: int) -> WindowState:
    """The state of the window made on ``comm`` (the window's own communicator)."""
    rank = comm._rank
    windows = _WINDOWS.setdefault(rank.engine, {})
    key = (rank.base, comm.ctx, comm.members[0])
    if key not in windows:
        windows[key] = WindowState(comm.size, flavor, windows, key)
    return windows[key]


_NO_BYTES = np.zeros(0, np.uint8)
_CREATIONS = {call: mpi_call(call)(_made) for call in (
    "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_create_dynamic")}
