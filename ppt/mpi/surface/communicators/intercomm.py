"""Intercommunicators (MPI_Intercomm_create, MPI_Intercomm_merge): two disjoint groups, whose point-to-point
ranks name the remote group, and the collectives MPI defines between the groups (MPI 4.0 6.2.2).

Each group's rank 0 leads, and a collective is timed as the messages of its leader-based algorithm: a
collective of the local group (on a communicator of the group's own), the leaders' messages in the
intercommunicator's collective context, then another local collective.  Allreduce is a local reduce, the
leaders' exchange and a local bcast; Allgather(v) a local gather, the exchange and a local bcast; Barrier a
local barrier, the leaders' empty messages and an empty local bcast; Bcast and Scatter(v) the root's message
to the remote leader, then a local bcast or scatter there; Reduce and Gather(v) a local reduce or gather,
then the leader's message to the root; Reduce_scatter(_block) a local reduce, the leaders' exchange and a
local scatter; Alltoall(v,w) every rank's block to every remote rank directly.  Each group gets the other
group's data, as MPI defines: an Allreduce gives each group the reduction of the other's contributions.
In the rooted calls the root passes ``MPI.ROOT``, the rest of its group ``MPI.PROC_NULL``, and the other group
the root's rank; counts index the remote group, but for Reduce_scatter's, which split the other group's
reduction over the local one.  The nonblocking forms start the same body through :mod:`.icoll`.  MPI
defines no scan between two groups, and mpi4py's Intercomm has no ``Scan``: looking one up is an
AttributeError here too.

Dup, Split and Create make new intercommunicators (MPI 4.0 7.4.2, 7.6) as Merge makes an intra-communicator:
the groups agree on an id none of their ranks has used (a local allreduce, the leaders' exchange and a local
bcast, which carry Split's colors and keys and Create's groups too).
"""
from __future__ import annotations

from ppt.mpi.collectives.ops import MAX, SUM, Op, as_op, blockwise, on_buffers
from ppt.mpi.collectives.payload import size_of
from ppt.mpi.constants import ANY_SOURCE, PROC_NULL, ROOT, UNDEFINED
from ppt.mpi.surface.buffers.arguments import message, vector, wvector
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.surface.communicators.bufcoll import blocks_of
from ppt.mpi.surface.communicators.icoll import nonblocking
from ppt.mpi.surface.communicators.comm import INT_B, Comm, hints, of_color
from ppt.mpi.surface.communicators.group import Group


class Intercomm(Comm):
    """An intercommunicator as one rank sees it: ``rank`` and ``size`` are its local group's, ``members`` the
    remote group's world ranks (which point-to-point ranks name), ``local`` a communicator of the local group
    (for the local parts of collectives)."""

    __slots__ = ("local",)

    def __init__(self, rank, local: Comm, remote: list, comm_id: int, label: str):
        Comm.__init__(self, rank, local.members, local.index, comm_id, label)
        self.members, self.index = rank.job.intern_members(remote)
        self.local = local

    is_inter, is_intra = True, False

    @classmethod
    def of_leaders(cls, comm: Comm, local_leader: int, peer_comm: Comm, remote_leader: int, tag: int) -> "Intercomm":
        """MPI_Intercomm_create on ``comm``: the leaders swap their groups and largest unused ids over
        ``peer_comm``, then each group's leader broadcasts the other's."""
        rank = comm._rank
        comm._root(local_leader)
        mine = comm._allreduce(rank.next_ctx, MAX, INT_B, None)
        found = nbytes = None
        if comm.rank == local_leader:
            found = peer_comm.sendrecv((list(comm.members), mine), remote_leader, tag, remote_leader, tag,
                                       INT_B * (comm.size + 1))
            nbytes = INT_B * (len(found[0]) + 1)
        remote, theirs = comm._bcast(found, local_leader, nbytes, None)
        comm_id = _pair_id(rank, max(mine, theirs))
        return cls.pair(rank, comm.members, remote, comm_id, f"inter#{comm_id}({comm.label})")

    @classmethod
    def pair(cls, rank, local: list, remote: list, comm_id: int, label: str) -> "Intercomm":
        """The intercommunicator ``label`` (id ``comm_id``, its local group's own communicator ``comm_id + 1``)
        between world ranks ``local`` (this rank's group) and ``remote``."""
        members, index = rank.job.intern_members(local)
        return cls(rank, Comm(rank, members, index, comm_id + 1, f"local({label})"), remote, comm_id, label)

    # -- the remote group ---------------------------------------------------------------------------------
    @property
    def remote_size(self) -> int:
        return len(self.members)

    @property
    def remote_group(self) -> Group:
        """The remote group (MPI_Comm_remote_group)."""
        return Group(self._rank, self.members)

    @property
    def group(self) -> Group:
        """The local group (MPI_Comm_group)."""
        return Group(self._rank, self.local.members)

    def world_of(self, rank: int) -> int:
        if not 0 <= rank < self.remote_size:
            raise self._rank.error(f"rank {rank} is out of range for the remote group of {self.label} "
                                   f"(size {self.remote_size})")
        return self.members[rank]

    def _check_peer(self, rank, what: str, wildcard: bool) -> None:
        if rank == PROC_NULL or (wildcard and rank == ANY_SOURCE):
            return
        if not isinstance(rank, int) or not 0 <= rank < self.remote_size:
            raise self._rank.error(f"{what} {rank!r} is out of range for the remote group of {self.label} "
                                   f"(size {self.remote_size})")

    # -- messages between the groups ------------------------------------------------------------------------
    def _tag(self) -> int:
        """The tag of the next collective's messages between the groups, taken as the call begins: both groups
        call the collectives in one order, and the leaders' exchange of a nonblocking one may come after the
        call of the next (its wait), which must not take its tag."""
        self.coll_seq += 1
        return self.coll_seq

    def _send(self, dest: int, obj, nbytes: int, tag: int) -> None:
        rank = self._rank
        rank.wait(rank.isend(self, dest, tag, nbytes, obj, self.coll_ctx))

    def _recv(self, source: int, tag: int) -> tuple:
        """The payload from remote rank ``source`` and its size (bytes)."""
        rank = self._rank
        req = rank.irecv(self, source, tag, self.coll_ctx)
        rank.wait(req)
        return req.value, req.status.bytes

    def _swap(self, obj, nbytes: int, tag: int):
        """The remote leader's ``obj`` given the local leader's (``nbytes``), on the leader (None elsewhere); the
        messages tagged ``tag``."""
        if self.rank != 0:
            return None, 0
        rank = self._rank
        req = rank.irecv(self, 0, tag, self.coll_ctx)
        rank.wait(rank.isend(self, 0, tag, nbytes, obj, self.coll_ctx))
        rank.wait(req)
        return req.value, req.status.bytes

    def _leaders(self, obj, nbytes: int, tag: int):
        """The remote leader's ``obj`` given the local leader's (``nbytes``), on every rank of the group: the
        leaders swap (messages tagged ``tag``), then a local bcast."""
        got, got_B = self._swap(obj, nbytes, tag)
        return self.local._bcast(got, 0, got_B, None)

    def _remote_root(self, root) -> None:
        if root not in (ROOT, PROC_NULL) and not (isinstance(root, int) and 0 <= root < self.remote_size):
            raise self._rank.error(f"root {root!r} of {self.label} must be MPI.ROOT, MPI.PROC_NULL or a rank of "
                                   f"the remote group (size {self.remote_size})")

    def _per_remote(self, objs) -> list:
        """``objs`` as a list of one block per remote rank."""
        objs = list(objs)
        if len(objs) != self.remote_size:
            raise self._rank.error(f"give {self.remote_size} blocks (one per remote rank of {self.label}), "
                                   f"got {len(objs)}")
        return objs

    def _remote_sizes(self, objs, nbytes) -> list:
        """Per remote rank, the bytes of its block (``nbytes``: one size, a list, or None for the payloads')."""
        if nbytes is None:
            return [size_of(o) for o in objs]
        return [nbytes] * self.remote_size if isinstance(nbytes, int) else list(nbytes)

    # -- collectives (the methods Comm's lowercase and these uppercase calls use) ----------------------------
    @mpi_call("MPI_Barrier")
    def barrier(self) -> None:
        tag = self._tag()
        self.local.barrier()
        self._leaders(None, 0, tag)

    def _bcast(self, obj, root, nbytes, algorithm):
        self._remote_root(root)
        tag = self._tag()
        if root == ROOT:
            self._send(0, obj, self._size(obj, nbytes), tag)
        if root in (ROOT, PROC_NULL):
            return None                             # as mpi4py: the root's group gets nothing back
        got, got_B = self._recv(root, tag) if self.rank == 0 else (None, 0)
        return self.local._bcast(got, 0, got_B, None)

    def _reduce(self, obj, op, root, nbytes, algorithm):
        return self._to_remote_root(root, obj, nbytes,
                                    lambda n: (self.local._reduce(obj, as_op(op), 0, n, None), n))

    def _gather(self, obj, root, nbytes, algorithm):
        return self._to_remote_root(root, obj, nbytes, lambda n: self._local_gather(obj, n))

    def _local_gather(self, obj, nbytes: int) -> tuple:
        """The group's objects (``nbytes`` this rank's) gathered on the leader, with their bytes in all;
        ``(None, 0)`` elsewhere."""
        pairs = self.local._gather((obj, nbytes), 0, nbytes, None)
        if pairs is None:
            return None, 0
        return [o for o, _ in pairs], sum(n for _, n in pairs)

    def _to_remote_root(self, root, obj, nbytes, local):
        """A rooted call whose root is in the remote group: the root (``ROOT``) gets what the other group's
        leader sends; in the other group, ``local(bytes of obj)`` gives the group's ``(part, its bytes)``,
        made by a call on the local group, which the leader sends to the root; None elsewhere."""
        self._remote_root(root)
        tag = self._tag()
        if root == ROOT:
            return self._recv(0, tag)[0]
        if root != PROC_NULL:
            part, part_B = local(self._size(obj, nbytes))
            if self.rank == 0:
                self._send(root, part, part_B, tag)
        return None

    def _scatter(self, objs, root, nbytes, algorithm):
        self._remote_root(root)
        tag = self._tag()
        if root == ROOT:
            objs = list(objs)
            sizes = self._remote_sizes(objs, nbytes)
            self._send(0, (objs, sizes), sum(sizes), tag)
            return None
        if root == PROC_NULL:
            return None
        objs, sizes = self._recv(root, tag)[0] if self.rank == 0 else (None, None)
        return self.local._scatter(objs, 0, sizes, None)

    def _allreduce(self, obj, op, nbytes, algorithm):
        tag, nbytes = self._tag(), self._size(obj, nbytes)
        return self._leaders(self.local._reduce(obj, as_op(op), 0, nbytes, None), nbytes, tag)

    def _allgather(self, obj, nbytes, algorithm, uniform_B):
        tag = self._tag()
        return self._leaders(*self._local_gather(obj, self._size(obj, nbytes)), tag)

    def _alltoall(self, objs, nbytes, algorithm):
        objs = self._per_remote(objs)
        rank, tag = self._rank, self._tag()
        receives = [rank.irecv(self, j, tag, self.coll_ctx) for j in range(self.remote_size)]
        sends = [rank.isend(self, j, tag, n, obj, self.coll_ctx)
                 for j, (obj, n) in enumerate(zip(objs, self._remote_sizes(objs, nbytes)))]
        rank.wait_all(receives + sends)
        return [req.value for req in receives]

    def _reduce_scatter(self, objs, op, nbytes, algorithm):
        """Block ``self.rank`` of the other group's reduction of its blocks (one per rank of this group,
        ``nbytes`` per block or a list); ``objs``: this rank's blocks, one per remote rank."""
        objs = self._per_remote(objs)
        sizes = self._remote_sizes(objs, nbytes)
        return self._reduce_to_scatter((objs, sizes), _keeping_sizes(as_op(op)), sum(sizes), lambda got: got)

    def _reduce_to_scatter(self, obj, op, nbytes: int, split):
        """This rank's part of the other group's reduction: each group reduces its ``obj`` (``nbytes``) on
        its leader, the leaders swap, and each leader scatters ``split(the other's)``, ``(blocks, bytes per
        block)`` one per local rank, over its group."""
        tag = self._tag()
        got = self._swap(self.local._reduce(obj, op, 0, nbytes, None), nbytes, tag)[0]
        blocks, sizes = split(got) if self.rank == 0 else (None, None)
        return self.local._scatter(blocks, 0, sizes, None)

    # -- mpi4py's buffer forms --------------------------------------------------------------------------------
    @mpi_call("MPI_Bcast")
    def Bcast(self, buf, root=0):
        rank = self._rank
        msg = message(rank, buf, 1, "broadcast")
        got = self._bcast(msg.block(0) if root == ROOT else None, root, msg.nbytes(0), None)
        if root not in (ROOT, PROC_NULL):
            msg.put(rank, 0, got)

    @mpi_call("MPI_Reduce")
    def Reduce(self, sendbuf, recvbuf, op=SUM, root=0):
        rank = self._rank
        if root == ROOT:
            message(rank, recvbuf, 1, "receive").put(rank, 0, self._reduce(None, op, ROOT, 0, None))
        elif root != PROC_NULL:
            mine = message(rank, sendbuf, 1, "send")
            self._reduce(mine.block(0), on_buffers(as_op(op), mine.datatype), root, mine.nbytes(0), None)
        else:
            self._reduce(None, op, root, 0, None)

    @mpi_call("MPI_Allreduce")
    def Allreduce(self, sendbuf, recvbuf, op=SUM):
        rank = self._rank
        mine = message(rank, sendbuf, 1, "send")
        got = self._allreduce(mine.block(0), on_buffers(as_op(op), mine.datatype), mine.nbytes(0), None)
        message(rank, recvbuf, 1, "receive").put(rank, 0, got)

    def _gather_into(self, sendbuf, recvbuf, root, parse):
        rank = self._rank
        if root == ROOT:
            into = parse(rank, recvbuf, self.remote_size, "receive")
            for i, value in enumerate(self._gather(None, ROOT, 0, None)):
                into.put(rank, i, value)
        elif root != PROC_NULL:
            mine = message(rank, sendbuf, 1, "send")
            self._gather(mine.block(0), root, mine.nbytes(0), None)
        else:
            self._gather(None, root, 0, None)

    @mpi_call("MPI_Gather")
    def Gather(self, sendbuf, recvbuf, root=0):
        self._gather_into(sendbuf, recvbuf, root, message)

    @mpi_call("MPI_Gatherv")
    def Gatherv(self, sendbuf, recvbuf, root=0):
        self._gather_into(sendbuf, recvbuf, root, vector)

    def _scatter_from(self, sendbuf, recvbuf, root, parse):
        rank = self._rank
        if root == ROOT:
            blocks, sizes = blocks_of(parse(rank, sendbuf, self.remote_size, "send"), self.remote_size)
            self._scatter(blocks, ROOT, sizes, None)
        elif root != PROC_NULL:
            message(rank, recvbuf, 1, "receive").put(rank, 0, self._scatter(None, root, None, None))
        else:
            self._scatter(None, root, None, None)

    @mpi_call("MPI_Scatter")
    def Scatter(self, sendbuf, recvbuf, root=0):
        self._scatter_from(sendbuf, recvbuf, root, message)

    @mpi_call("MPI_Scatterv")
    def Scatterv(self, sendbuf, recvbuf, root=0):
        self._scatter_from(sendbuf, recvbuf, root, vector)

    def _allgather_into(self, sendbuf, recvbuf, parse):
        rank = self._rank
        mine = message(rank, sendbuf, 1, "send")
        into = parse(rank, recvbuf, self.remote_size, "receive")
        for i, value in enumerate(self._allgather(mine.block(0), mine.nbytes(0), None, None)):
            into.put(rank, i, value)

    @mpi_call("MPI_Allgather")
    def Allgather(self, sendbuf, recvbuf):
        self._allgather_into(sendbuf, recvbuf, message)

    @mpi_call("MPI_Allgatherv")
    def Allgatherv(self, sendbuf, recvbuf):
        self._allgather_into(sendbuf, recvbuf, vector)

    def _alltoall_into(self, sendbuf, recvbuf, parse):
        rank, n = self._rank, self.remote_size
        into = parse(rank, recvbuf, n, "receive")
        for i, value in enumerate(self._alltoall(*blocks_of(parse(rank, sendbuf, n, "send"), n), None)):
            into.put(rank, i, value)

    @mpi_call("MPI_Alltoall")
    def Alltoall(self, sendbuf, recvbuf):
        self._alltoall_into(sendbuf, recvbuf, message)

    @mpi_call("MPI_Alltoallv")
    def Alltoallv(self, sendbuf, recvbuf):
        self._alltoall_into(sendbuf, recvbuf, vector)

    @mpi_call("MPI_Alltoallw")
    def Alltoallw(self, sendbuf, recvbuf):
        self._alltoall_into(sendbuf, recvbuf, wvector)

    def _reduce_scatter_into(self, sendbuf, recvbuf, recvcounts, op):
        """The other group's reduction of its send buffers, split by ``recvcounts`` (items, one per local
        rank) over this group: block ``self.rank`` into ``recvbuf``."""
        rank = self._rank
        if len(recvcounts) != self.size:
            raise rank.error(f"give {self.size} receive counts (one per rank of the local group), "
                             f"got {len(recvcounts)}")
        mine = message(rank, sendbuf, 1, "send")
        datatype = mine.datatype

        def split(got):
            return blocks_of(vector(rank, [got, list(recvcounts), datatype], self.size, "send"), self.size)

        got = self._reduce_to_scatter(mine.block(0), on_buffers(as_op(op), datatype), mine.nbytes(0), split)
        message(rank, recvbuf, 1, "receive").put(rank, 0, got)

    @mpi_call("MPI_Reduce_scatter_block")
    def Reduce_scatter_block(self, sendbuf, recvbuf, op=SUM):
        count = message(self._rank, recvbuf, 1, "receive").counts[0]
        self._reduce_scatter_into(sendbuf, recvbuf, [count] * self.size, op)

    @mpi_call("MPI_Reduce_scatter")
    def Reduce_scatter(self, sendbuf, recvbuf, recvcounts=None, op=SUM):
        """``recvcounts`` is required (as mpi4py's TypeError for None says)."""
        self._reduce_scatter_into(sendbuf, recvbuf, recvcounts, op)

    # -- new communicators (MPI 4.0 7.4) ---------------------------------------------------------------------
    def _with_remote(self, info, nbytes: int) -> tuple:
        """The remote group's ``info`` (``nbytes`` on the wire) given this group's (the same on each of its
        ranks), and the largest ``next_ctx`` of the ranks of both groups: a local 4-byte allreduce, the
        leaders' swap and a local bcast."""
        tag = self._tag()
        mine = self.local._allreduce(self._rank.next_ctx, MAX, INT_B, None)
        theirs, largest = self._leaders((info, mine), nbytes + INT_B, tag)
        return theirs, max(mine, largest)

    def _paired(self, local: list, remote: list, agreed: int, kind: str) -> "Intercomm":
        """The new intercommunicator ``kind`` between world ranks ``local`` and ``remote``, of id ``agreed``."""
        return self.pair(self._rank, local, remote, agreed, self._child_name(kind, agreed))

    @mpi_call("MPI_Comm_dup")
    def dup(self, info=None) -> "Intercomm":
        """A new intercommunicator of the same two groups, with messages of its own; ``info``'s hints change
        nothing here."""
        hints(info)
        agreed = _pair_id(self._rank, self._with_remote(None, 0)[1])
        return self._paired(self.local.members, self.members, agreed, "dup")

    @mpi_call("MPI_Comm_split")
    def split(self, color: int = 0, key: int = 0):
        """Each group split by ``color`` (ordered by ``key``, then rank): the intercommunicator between this
        rank's part and the remote group's part of the same color; None (COMM_NULL) for UNDEFINED or a color
        the remote group does not give.  Timed as a local 12-byte allgather, the leaders' swap of their
        groups' colors and keys, and a local bcast."""
        tag = self._tag()
        mine = self.local._split_entries(color, key)
        theirs = self._leaders(mine, 3 * INT_B * len(mine), tag)
        agreed = _pair_id(self._rank, max(e[2] for e in mine + theirs))
        remote = [] if color == UNDEFINED else of_color(theirs, self.members, color)
        if not remote:
            return None
        return self._paired(of_color(mine, self.local.members, color), remote, agreed, "split")

    @mpi_call("MPI_Comm_create")
    def create(self, group: Group):
        """The intercommunicator between ``group`` (of the local group, the same on all its ranks) and the
        group the remote ranks give; None (COMM_NULL) outside ``group`` or if either group is empty."""
        self.local._check_subgroup(group)
        theirs, agreed = self._with_remote(list(group.members), INT_B * group.size)
        agreed = _pair_id(self._rank, agreed)
        if group.rank == UNDEFINED or not theirs:
            return None
        return self._paired(group.members, theirs, agreed, "create")

    @mpi_call("MPI_Intercomm_merge")
    def merge(self, high: bool = False) -> Comm:
        """The intra-communicator of both groups, the group that passed ``high`` false first (on a tie, the
        group whose leader has the lower world rank)."""
        mine = (bool(high), self.local.members[0])
        theirs, agreed = self._with_remote(mine, 2 * INT_B)
        comm_id = self._new_id(agreed)
        first = mine < theirs
        members = list(self.local.members) + list(self.members)
        return self._make(members if first else members[self.size:] + members[:self.size], comm_id, "merge")


def _pair_id(rank, agreed: int) -> int:
    """``agreed``, the id of a new intercommunicator of ``rank``'s, which moves past it and its local group's
    own (``agreed + 1``)."""
    rank.next_ctx = agreed + 2
    return agreed


def _keeping_sizes(op: Op) -> Op:
    """``op`` on ``(blocks, bytes per block)`` pairs: block by block on the blocks, the sizes kept."""
    on_blocks = blockwise(op)
    return Op(f"sized({op.name})", lambda a, b: (on_blocks(a[0], b[0]), a[1]), op.commutative)


#: The collectives whose nonblocking forms (``Ibcast`` ...) start them: the local collective their
#: leader-based schedule starts with runs in the background (:mod:`.icoll`), the leaders' messages and what
#: follows them at the request's wait.
_NONBLOCKING = ("Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
                "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter", "Reduce_scatter_block")
for _name in _NONBLOCKING:
    setattr(Intercomm, f"I{_name.lower()}", nonblocking(f"MPI_I{_name.lower()}", getattr(Intercomm, _name)))
Intercomm.Ibarrier = Intercomm.ibarrier = nonblocking("MPI_Ibarrier", Intercomm.barrier)


class _Absent:
    """A name mpi4py's Intercomm does not have (MPI defines no scan between two groups, and Create_group on
    intra-communicators only): looking it up raises the AttributeError mpi4py raises."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, cls=None):
        owner = "type object 'mpi4py.MPI.Intercomm'" if obj is None else "'mpi4py.MPI.Intercomm' object"
        raise AttributeError(f"{owner} has no attribute '{self.name}'")


for _name in ("Scan", "Exscan", "scan", "exscan", "Iscan", "Iexscan", "Scan_init", "Exscan_init", "Create_group",
              "create_group"):
    setattr(Intercomm, _name, _Absent(_name))

#: What Comm offers that the simulated MPI does not do on an intercommunicator (MPI defines them there).
UNDEFINED_HERE = ("Split_type", "split_type", "Create_cart", "cart_create", "Create_graph", "graph_create", "Create_dist_graph",
                  "dist_graph_create", "Create_dist_graph_adjacent", "dist_graph_create_adjacent",
                  "Create_intercomm", "create_intercomm")


def _undefined(name: str):
    def refuse(self, *args, **kwargs):
        raise self._rank.error(f"{name} on an intercommunicator is not supported by the simulated MPI")
    refuse.__name__ = name
    return refuse


for _name in UNDEFINED_HERE:
    setattr(Intercomm, _name, _undefined(_name))


@mpi_call("MPI_Intercomm_create")
def create_intercomm(self, local_leader: int, peer_comm, remote_leader: int, tag: int = 0):
    """The intercommunicator between this communicator's group and another (its leader ``remote_leader`` of
    ``peer_comm``, which holds this one's ``local_leader`` too), the leaders' messages tagged ``tag``."""
    return Intercomm.of_leaders(self, local_leader, peer_comm, remote_leader, tag)


#: Comm's call that makes an intercommunicator, by its PEP 8 and its mpi4py name.
COMM = {"create_intercomm": create_intercomm, "Create_intercomm": create_intercomm}
