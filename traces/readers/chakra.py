"""MLCommons Chakra execution traces -> op-stream (:mod:`ppt.traces.opstream`).

A Chakra execution trace (ET) is one protobuf file per rank (NPU), named ``<prefix>.<rank>.et``:
a length-prefixed ``GlobalMetadata`` message, then one ``Node`` message per node of the rank's
dependency graph (``data_deps`` and ``ctrl_deps`` name the nodes it waits for).  The messages are
decoded by :mod:`ppt.traces.chakra_et` (no protobuf package needed); fields not read are skipped.

What a rank's graph becomes, in one topological order (Kahn's algorithm).  ASTRA-sim issues every
ready node at once; a linear stream issues one at a time, so among the nodes ready (their
dependencies issued) it takes first the sends and receives, which only post a transfer, then the
nodes that hold the rank (compute, collectives), and last those that must first wait for a receive
still in flight, the lowest node id first within each (the recorded issue order wherever the
dependencies allow it).  So a rank does not wait for a receive while it could still issue what its
peers may be waiting for:

* ``COMP_NODE``: compute for ``duration_micros`` (s = us x 1e-6), added to the gap before the next
  op.  Nodes with ``is_cpu_op`` true take no time: a converted PyTorch trace holds both the host
  operators and the device kernels they launch, and a rank's one compute timeline is the device's;
* ``COMM_COLL_NODE``: a blocking collective (``comm_type``: ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER,
  REDUCE_SCATTER_BLOCK, ALL_TO_ALL, BROADCAST, BARRIER; without a ``comm_type``, as a converted
  PyTorch trace's host-side ``c10d::allreduce_`` has none, the type its name says:
  :data:`NAMED_TYPES`) on the communicator of its ``pg_name`` (COMM_WORLD without one).  A trace
  converted from PyTorch holds both the host's call (``is_cpu_op`` true) and the NCCL kernel it
  launched: where a trace holds device-side collectives, the host-side ones are ordering only.  ``comm_size`` is the collective's whole buffer on each rank, as
  nccl-tests and ASTRA-sim count it: an all-reduce's and a broadcast's buffer, an all-gather's
  output, a reduce-scatter's input, an all-to-all's send buffer; so an all-gather contributes, a
  reduce-scatter keeps and an all-to-all sends to each peer ``comm_size / group size`` bytes
  (rounded down; a reduce-scatter's remainder goes to its first ranks).  A broadcast's root is
  the ``comm_root`` attribute, else rank 0 of the group;
* ``COMM_SEND_NODE``/``COMM_RECV_NODE``: an ISEND/IRECV of ``comm_size`` bytes to ``comm_dst``/from
  ``comm_src`` (global ranks, on COMM_WORLD) with tag ``comm_tag`` (0 without one).  A receive is
  completed by a WAIT (or WAITALL) just before the first node that depends on it, so the transfer
  overlaps whatever does not wait for it.  Sends are completed at the end of the rank and their
  dependents do not wait for them: ASTRA-sim completes a send once its data has left, matched or
  not (a buffered send), and traces rely on it (its ring collectives make each receive depend on
  the send before it); the simulated MPI's rendezvous sends complete only at the matching receive,
  so waiting for them there would deadlock such a trace.  A send's dependents may thus start
  before its data has left;
* ``METADATA_NODE``, ``MEM_LOAD_NODE``, ``MEM_STORE_NODE``: ordering only, no time (memory
  traffic is not modelled).

Dependencies.  Data dependencies order the nodes, as Chakra's feeder orders them.  Control
dependencies are followed too, except those that name a node the file lacks or lie on a cycle of
the dependency graph (:func:`drop_control_deps`): a trace converted from PyTorch keeps each
operator's caller as one, and the converter drops callers and closes cycles with them; one warning
says how many were dropped.  A data dependency on an absent node, or a cycle of data dependencies,
is an error.

Collectives run blocking: this reader does not use the op stream's nonblocking collective kinds
(IALLREDUCE ...), so on one stream per rank a collective that nothing waits for does not overlap the
compute after it; the rank computes again only once it completed, which makes the prediction an upper
bound for traces whose collectives overlap compute (the overlap form below models that overlap).

Overlap (``ChakraTrace(path, overlap=True)``).  Each Chakra rank r becomes two op-stream ranks, as
a GPU runs kernels and NCCL's communication side by side: rank 2r runs the compute nodes and rank
2r+1 the communication nodes, each in the one topological order.  A node that waits for a node of
the other stream first receives a 0-byte message (``SIGNAL_WAIT``, tag: that node's place in the
order) which the other stream sends (``SIGNAL``) once that node is done: after its compute, after
its collective, right after its send; a receive is completed, and signalled, where the one-stream
form completes it (just before its first dependent in the order), so a rank's communication issues
in the same order either way.  The communication ranks communicate among
themselves through a communicator split off the world (colour 0, key r; handle 2), in which their
ranks are the Chakra ranks; process groups are split off the world likewise, the compute ranks
taking part with UNDEFINED.  Both streams of a rank belong on one node (``ranks_per_node`` even,
linear mapping).  Both streams follow one topological order, so every signal waited for is sent
before the waiter could need anything from it, and the streams cannot deadlock each other.

Process groups.  A PyTorch trace declares its process groups in a ``METADATA_NODE`` named
``...process_group:init...`` whose ``inputs.values`` holds the JSON list of groups (``pg_name``,
``ranks``: global ranks; empty or absent ranks: every rank).  The op-stream declares a
communicator only by a creation call, so every group some collective names and that is not the
whole world becomes, right after the INIT op of every rank (all ranks take part, in the same
order: by ``pg_name``), a COMM_SPLIT of COMM_WORLD: colour 0 for the members (key: the rank's
place in ``ranks``), UNDEFINED for the others.  Traces that name groups without declaring them (as
ASTRA-sim's synthetic generators write them) take them from a communicator-group file
(``ChakraTrace(path, comm_groups=FILE)``, ``ppt replay --comm-groups FILE``: ASTRA-sim's
``--comm-group-configuration`` JSON, :func:`read_comm_groups`).  The splits' simulated time is part of the
prediction, as creating the groups was part of the traced program.

Ops: an INIT op (call ``TRACE_START``) first, a LOCAL op (``TRACE_END``) last carrying the compute
after the last communication; calls are named by Chakra's types (``ALL_REDUCE``, ``SEND``,
``RECV``, ``WAIT``, ``WAITALL``, ``COMM_SPLIT``, and with overlap ``SIGNAL``, ``SIGNAL_WAIT``).
``start_s`` is the op's time on the rank's compute-only clock (the trace records no communication
time), from which :meth:`span` is taken.

Bad input is one line (TraceError): a file that is not a Chakra ET or is truncated (naming the file,
the message and the byte), a missing rank file, an unknown collective type, a data dependency on an
absent node, a cycle of data dependencies (naming its nodes), a malformed communicator-group file.

Units: seconds and bytes.
"""
from __future__ import annotations

import ast
import glob
import gzip
import heapq
import json
import os
import re
import zlib

from ppt.errors import TraceError
from ppt.log import logger
from ppt.oprecord import COMM_SELF, COMM_WORLD, PROC_NULL, UNDEFINED, Op
from ppt.traces.chakra_et import (COLLECTIVE_TYPES, COMM_COLL_NODE, COMM_RECV_NODE, COMM_SEND_NODE, COMP_NODE,
                                  MEM_LOAD_NODE, MEM_STORE_NODE, METADATA_NODE, decode_stream)
from ppt.traces.opstream import MemoryTrace
from ppt.traces.protowire import WireError
from ppt.traces.writers.synthetic import SUM

#: A rank's file name: ``<prefix>.<rank>.et``.
RANK_FILE = re.compile(r"^(?P<prefix>.+)\.(?P<rank>\d+)\.et$")
#: Name of the metadata node that declares a PyTorch trace's process groups.
PROCESS_GROUP_INIT = "process_group:init"
#: Collective types read, and the op kind each becomes.
COLLECTIVES = {"ALL_REDUCE": Op.ALLREDUCE, "ALL_GATHER": Op.ALLGATHER, "REDUCE_SCATTER": Op.REDUCE_SCATTER,
               "REDUCE_SCATTER_BLOCK": Op.REDUCE_SCATTER, "ALL_TO_ALL": Op.ALLTOALL, "BROADCAST": Op.BCAST,
               "BARRIER": Op.BARRIER}
MICROSECOND_S = 1e-6


# -- finding the files -----------------------------------------------------------------------
def is_chakra(path) -> bool:
    """Whether ``path`` names Chakra ET files by name: a ``.et`` file, a folder holding some, or a
    prefix ``p`` with files ``p.<rank>.et`` (the content is checked when the trace is opened)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return bool(glob.glob(os.path.join(glob.escape(path), "*.et")))
    return path.endswith(".et") or (not os.path.exists(path) and bool(glob.glob(glob.escape(path) + ".*.et")))


def rank_files(path) -> list:
    """The set's files in rank order, from a rank's file, the folder holding them, or their prefix."""
    path = os.fspath(path)
    if os.path.isdir(path):
        candidates = glob.glob(os.path.join(glob.escape(path), "*.et"))
    else:
        match = RANK_FILE.match(path)
        prefix = match["prefix"] if match else path
        if match is None and path.endswith(".et"):
            raise TraceError(f"{path}: a Chakra trace's files are named <prefix>.<rank>.et")
        candidates = glob.glob(glob.escape(prefix) + ".*.et")
    by_prefix = {}
    for name in candidates:
        match = RANK_FILE.match(name)
        if match:
            by_prefix.setdefault(match["prefix"], {})[int(match["rank"])] = name
    if not by_prefix:
        raise TraceError(f"no Chakra trace at {path}: no <prefix>.<rank>.et files")
    if len(by_prefix) > 1:
        names = ", ".join(sorted(os.path.basename(p) for p in by_prefix))
        raise TraceError(f"{path} holds the Chakra traces of several prefixes ({names}): name one rank's file")
    ranks = next(iter(by_prefix.values()))
    missing = sorted(set(range(max(ranks) + 1)) - set(ranks))
    if missing:
        raise TraceError(f"the Chakra trace {next(iter(by_prefix))} lacks rank {missing[0]}'s file "
                         f"(has {len(ranks)} of ranks 0-{max(ranks)})")
    return [ranks[r] for r in range(len(ranks))]


# -- reading one file ----------------------------------------------------------------------------
def read_file(path) -> list:
    """The nodes of one rank's ET file (gzip-compressed or not), after its global metadata."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise TraceError(f"{path}: unreadable ({exc})") from None
    try:
        metadata, nodes = decode_stream(data)
    except WireError as exc:
        raise TraceError(f"{path}: not a Chakra execution trace, or truncated ({exc})") from None
    if metadata is None:
        raise TraceError(f"{path}: empty, not a Chakra execution trace")
    if not metadata.version and not metadata.attr:
        raise TraceError(f"{path}: not a Chakra execution trace (it does not start with the global metadata)")
    return nodes


def process_groups(nodes, where: str) -> dict:
    """``{pg_name: member ranks or None (every rank)}`` the process-group metadata nodes declare."""
    groups = {}
    for node in nodes:
        if PROCESS_GROUP_INIT not in node.name:
            continue
        try:
            values = ast.literal_eval(node.inputs_values) if node.inputs_values else []
            entries = [entry for text in values if isinstance(text, str) for entry in json.loads(text)]
            for entry in entries:
                groups[str(entry["pg_name"])] = [int(r) for r in entry.get("ranks") or ()] or None
        except (ValueError, SyntaxError, TypeError, KeyError) as exc:
            raise TraceError(f"{where}: node {node.id} ({node.name}) declares process groups in a form not "
                             f"read ({type(exc).__name__}: {exc})") from None
    return groups


def read_comm_groups(path) -> dict:
    """``{pg_name: member ranks}`` of an ASTRA-sim communicator-group file (``--comm-group-configuration``):
    a JSON object whose keys are the group ids the collectives' ``pg_name`` attributes hold and whose
    values are the member ranks, a list or ``{"ranks": [...]}`` (other keys of it are not read)."""
    where = os.fspath(path)
    try:
        with open(where) as f:
            data = json.load(f)
    except OSError as exc:
        raise TraceError(f"--comm-groups {where}: unreadable ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise TraceError(f"--comm-groups {where}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise TraceError(f"--comm-groups {where}: give a JSON object of group id -> member ranks")
    groups = {}
    for pg, value in data.items():
        ranks = value.get("ranks") if isinstance(value, dict) else value
        if not (isinstance(ranks, list) and ranks and all(isinstance(r, int) and not isinstance(r, bool)
                                                           and r >= 0 for r in ranks)):
            raise TraceError(f"--comm-groups {where}: group {pg!r} must list its member ranks (integers >= 0), "
                             f"as [0, 1] or {{\"ranks\": [0, 1]}}")
        if len(set(ranks)) != len(ranks):
            raise TraceError(f"--comm-groups {where}: group {pg!r} lists a rank twice")
        groups[str(pg)] = ranks
    return groups


# -- the trace ---------------------------------------------------------------------------------
class ChakraTrace(MemoryTrace):
    """The Chakra ET set at ``path`` (a rank's file, their folder or their prefix) as op streams,
    translated as the module docstring says when opened.

    ``overlap``: give each Chakra rank r two op-stream ranks, 2r running its compute nodes and 2r+1
    its communication nodes, so communication overlaps the compute that does not wait for it (see
    *Overlap* in the module docstring); ``chakra_ranks`` is the number of Chakra ranks either way.
    """

    def __init__(self, path, overlap: bool = False, comm_groups=None):
        self.files = rank_files(path)
        ranks = [read_file(name) for name in self.files]
        self._name = RANK_FILE.match(os.path.basename(self.files[0]))["prefix"]
        self.chakra_ranks = len(self.files)
        super().__init__(self._name, (1 + overlap) * self.chakra_ranks, cpu_times=False)
        self.meta_path = os.fspath(path)        # results name the path given
        groups = {} if comm_groups is None else read_comm_groups(comm_groups)
        declared_by = dict.fromkeys(groups, os.fspath(comm_groups)) if comm_groups is not None else {}
        for name, nodes in zip(self.files, ranks):
            for pg, members in process_groups(nodes, name).items():
                if groups.setdefault(pg, members) != members:
                    other = declared_by.get(pg, "another rank's file")
                    raise TraceError(f"{name} declares process group {pg!r} with ranks {members}, {other} with "
                                     f"{groups[pg]}")
        world = COMM_SELF + 1 if overlap else COMM_WORLD      # the communicator of all communication streams
        self.comms = self._communicators(groups, ranks, world)
        splits = [(world, None)] * overlap + sorted((h, m) for h, m in self.comms.values() if m is not None)
        host_collectives = not any(node.type == COMM_COLL_NODE and not node.attributes().get("is_cpu_op", False)
                                   for nodes in ranks for node in nodes)
        missing = cyclic = 0
        for rank, (name, nodes) in enumerate(zip(self.files, ranks)):
            if overlap:
                compute = Stream(self.builder(2 * rank), 2 * rank + 1)
                comm = Stream(self.builder(2 * rank + 1), 2 * rank)
            else:
                compute = comm = Stream(self.builder(rank))
            graph = RankGraph(rank, name, nodes, self.comms, self.chakra_ranks, world, host_collectives)
            graph.emit(compute, comm, splits)
            missing, cyclic = missing + graph.dropped_missing, cyclic + graph.dropped_cyclic
        if missing or cyclic:
            logger.warning(f"warning: {self._name}: {missing + cyclic} control dependencies dropped ({missing} "
                           f"naming nodes the files lack, {cyclic} on dependency cycles); the data dependencies "
                           "order the nodes, as Chakra's feeder orders them")

    @property
    def name(self) -> str:
        return self._name

    def _communicators(self, groups: dict, graphs, world: int) -> dict:
        """``{pg_name: (handle, member ranks or None)}`` of the groups collectives name; the world's
        (every rank, in order) is ``world``, the others are numbered after it in ``pg_name`` order."""
        used = {node.attributes().get("pg_name") for nodes in graphs for node in nodes
                if node.type == COMM_COLL_NODE} - {None, ""}
        undeclared = sorted(used - set(groups))
        if undeclared:
            raise TraceError(f"the Chakra trace's collectives name process group {undeclared[0]!r}, which no "
                             f"{PROCESS_GROUP_INIT} metadata node declares (give the groups with --comm-groups FILE.json)")
        everyone = list(range(self.chakra_ranks))
        comms, handle = {}, max(world, COMM_SELF) + 1
        for pg in sorted(used):
            members = groups[pg]
            bad = [r for r in members or () if not 0 <= r < self.chakra_ranks]
            if bad:
                raise TraceError(f"process group {pg!r} names rank {bad[0]}, but the trace has {self.chakra_ranks}")
            if members is None or members == everyone:
                comms[pg] = (world, None)
            else:
                comms[pg] = (handle, members)
                handle += 1
        return comms


class Stream:
    """One op stream being written: its ``builder``, ``partner`` (the world rank of the other stream of
    the same Chakra rank, which signals go to and come from) and ``gap``, the compute before its next
    op, s."""

    __slots__ = ("builder", "partner", "gap")

    def __init__(self, builder, partner: int = PROC_NULL):
        self.builder, self.partner, self.gap = builder, partner, 0.0

    def add(self, kind: int, call: str, t: float, **fields) -> None:
        """Append an op issued at ``t`` on the compute-only clock (s), after the gap so far."""
        self.builder.add(kind, call, gap_wall_s=self.gap, start_s=t, **fields)
        self.gap = 0.0


#: What a collective's name says of its type (lower case, ``_`` and ``-`` removed), in the order tried,
#: for nodes without a ``comm_type``: PyTorch's ``c10d::allreduce_``, ``nccl:all_reduce``, NCCL's
#: ``ncclDevKernel_AllReduce_Sum_f32_RING_LL``; NCCL runs an all-to-all as ``ncclDevKernel_SendRecv``.
NAMED_TYPES = (("allreduce", "ALL_REDUCE"), ("alltoall", "ALL_TO_ALL"), ("allgather", "ALL_GATHER"),
               ("reducescatter", "REDUCE_SCATTER"), ("broadcast", "BROADCAST"), ("barrier", "BARRIER"),
               ("sendrecv", "ALL_TO_ALL"))


def collective_type_of_name(name: str) -> str | None:
    """The CollectiveCommType name that a collective node's ``name`` says (None if it says none)."""
    plain = name.replace("_", "").replace("-", "").lower()
    return next((kind for key, kind in NAMED_TYPES if key in plain), None)


def drop_control_deps(nodes: dict) -> tuple[int, int]:
    """Drop the control dependencies a simulator cannot follow, from ``nodes`` (``{id: Node}``, changed in
    place); returns how many named a node the file lacks and how many lay on a cycle.

    A trace converted from PyTorch keeps each operator's caller as a control dependency (the call
    stack), and its converter turned the execution order into data dependencies; callers dropped as
    dangling leave control dependencies naming absent nodes, and a caller waiting for its callees'
    successors closes cycles.  Chakra's feeder orders by the data dependencies; here every control
    dependency whose two ends lie in one strongly connected component of the whole dependency graph
    is dropped, which leaves the graph acyclic unless data dependencies alone form a cycle."""
    missing = 0
    for node in nodes.values():
        kept = [dep for dep in node.ctrl_deps if dep in nodes]
        missing += len(node.ctrl_deps) - len(kept)
        node.ctrl_deps = kept
    component = _components(nodes)
    cyclic = 0
    for node in nodes.values():
        if not node.ctrl_deps:
            continue
        mine = component[node.id]
        kept = [dep for dep in node.ctrl_deps if component[dep] != mine]
        cyclic += len(node.ctrl_deps) - len(kept)
        node.ctrl_deps = kept
    return missing, cyclic


def _components(nodes: dict) -> dict:
    """``{node id: its strongly connected component's number}`` over the edges node -> dependency (data
    and control; every dependency names a node of ``nodes``, or is left out), by Tarjan's algorithm
    run iteratively; a node on no cycle is a component of its own, and a node depending on itself
    shares the number with itself, so its self-dependency is in one component too."""
    index, low, component, stack, on_stack = {}, {}, {}, [], set()
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(_deps(nodes[root]) & nodes.keys())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            nid, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(_deps(nodes[child]) & nodes.keys()))))
                elif child in on_stack:
                    low[nid] = min(low[nid], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[nid])
            if low[nid] == index[nid]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = nid
                    if member == nid:
                        break
    return component


def _deps(node) -> set:
    """The ids of the nodes ``node`` waits for (data and control dependencies alike)."""
    return set(node.data_deps) | set(node.ctrl_deps)


class RankGraph:
    """One rank's nodes (``nodes``, from file ``where``) and the ops their topological order makes."""

    def __init__(self, rank: int, where: str, nodes, comms: dict, num_ranks: int, world: int,
                 host_collectives: bool = True):
        self.rank, self.where, self.comms, self.num_ranks = rank, where, comms, num_ranks
        self.world = world                      # handle of the communicator of all Chakra ranks
        self.host_collectives = host_collectives
        self.communication = (COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE)
        self.nodes = {}
        for node in nodes:
            if node.id in self.nodes:
                raise TraceError(f"{where}: two nodes have id {node.id}")
            self.nodes[node.id] = node
        self.dropped_missing, self.dropped_cyclic = drop_control_deps(self.nodes)

    def order(self) -> list:
        """The nodes in topological order.  Among the nodes ready: first the sends and receives that need
        no receive in flight (posting a transfer holds nothing), then the other nodes that need none,
        then those that must first wait for a receive in flight (a receive is in flight from its node
        until a node that depends on it); the lowest id first within each."""
        waiting, dependents = {}, {}
        for node in self.nodes.values():
            deps = _deps(node)
            for dep in deps:
                if dep not in self.nodes:
                    raise TraceError(f"{self.where}: node {node.id} ({node.name}) depends on node {dep}, which the "
                                     "file lacks")
                dependents.setdefault(dep, []).append(node.id)
            waiting[node.id] = len(deps)
        posts, receive = (COMM_SEND_NODE, COMM_RECV_NODE), COMM_RECV_NODE
        heaps, in_flight, stalled = ([], [], []), set(), set()   # stalled: ready, but needing a receive in flight

        def ready(nid):
            node = self.nodes[nid]
            if in_flight.intersection(_deps(node)):
                stalled.add(nid)
                heapq.heappush(heaps[2], nid)
            else:
                heapq.heappush(heaps[node.type not in posts], nid)

        for nid, count in waiting.items():
            if count == 0:
                ready(nid)
        order = []
        while any(heaps):
            heap = next(h for h in heaps if h)
            nid = heapq.heappop(heap)
            if heap is heaps[2] and nid not in stalled:
                continue                        # moved up since: its receives were completed by another node
            stalled.discard(nid)
            node = self.nodes[nid]
            for dep in in_flight.intersection(_deps(node)):     # completed here
                in_flight.discard(dep)
                for child in dependents.get(dep, ()):
                    if child in stalled and not in_flight.intersection(_deps(self.nodes[child])):
                        stalled.discard(child)
                        ready(child)
            if node.type == receive:
                in_flight.add(nid)
            order.append(node)
            for child in dependents.get(nid, ()):
                waiting[child] -= 1
                if waiting[child] == 0:
                    ready(child)
        if len(order) < len(self.nodes):
            raise TraceError(f"{self.where}: nodes {' -> '.join(map(str, self._cycle(waiting)))} form a "
                             "dependency cycle")
        return order

    def _cycle(self, waiting: dict) -> list:
        """A cycle among the nodes left waiting: follow waiting dependencies until a node repeats."""
        nid, seen = min(n for n, count in waiting.items() if count), []
        while nid not in seen:
            seen.append(nid)
            node = self.nodes[nid]
            nid = min(d for d in _deps(node) if waiting[d])
        return seen[seen.index(nid):] + [nid]

    def emit(self, compute: "Stream", comm: "Stream", splits) -> None:
        """Write the rank's ops: compute nodes to ``compute``, communication nodes to ``comm`` (the same
        stream, or the rank's communication stream beside it); ``splits``: ``(handle, members or None
        for every rank)`` of the communicators to create first, in order (see the module docstring)."""
        streams = (compute,) if comm is compute else (compute, comm)
        for stream in streams:
            stream.add(Op.INIT, "TRACE_START", 0.0)
        for handle, members in splits:
            for stream in streams:
                member = stream is comm and (members is None or self.rank in members)
                key = self.rank if members is None else members.index(self.rank) if member else 0
                stream.add(Op.COMM_SPLIT, "COMM_SPLIT", 0.0, comm=COMM_WORLD, aux=(handle, 0 if member else UNDEFINED,
                                                                                  key))
        order = self.order()
        place = {node.id: i for i, node in enumerate(order)}
        stream_of = {node.id: comm if node.type in self.communication else compute for node in order}
        signalled = {dep for node in order for dep in _deps(node) if stream_of[dep] is not stream_of[node.id]}
        received = set()                        # signalled nodes the other stream has waited for
        receiving, sending, t = {}, [], 0.0     # request of each receive in flight (by node id); of sends; s
        for node in order:
            stream = stream_of[node.id]
            deps = sorted(_deps(node), key=place.__getitem__)
            arrived = [d for d in deps if d in receiving]    # receives in flight this node waits for
            if arrived:
                self._complete(comm, [receiving.pop(d) for d in arrived], t)
                for dep in arrived:
                    if dep in signalled:        # the compute stream waits for it too, now or later
                        comm.add(Op.SEND, "SIGNAL", t, peer=comm.partner, tag=place[dep])
            for dep in deps:
                if stream_of[dep] is not stream and dep not in received:
                    stream.add(Op.RECV, "SIGNAL_WAIT", t, peer=stream.partner, tag=place[dep])
                    received.add(dep)
            attrs = node.attributes()
            if node.type == COMP_NODE:
                if not attrs.get("is_cpu_op", False):
                    stream.gap += node.duration_micros * MICROSECOND_S
                    t += node.duration_micros * MICROSECOND_S
            elif node.type == COMM_COLL_NODE:
                if self.host_collectives or not attrs.get("is_cpu_op", False):
                    stream.add(**self._collective(node, attrs), t=t)
            elif node.type in (COMM_SEND_NODE, COMM_RECV_NODE):
                send = node.type == COMM_SEND_NODE
                peer = self._int(node, attrs, "comm_dst" if send else "comm_src")
                if not 0 <= peer < self.num_ranks:
                    raise TraceError(f"{self.where}: node {node.id} ({node.name}) names rank {peer}, outside the "
                                     f"trace's {self.num_ranks}")
                request = stream.builder.ops    # the op's place in the stream: unique
                stream.add(Op.ISEND if send else Op.IRECV, "SEND" if send else "RECV", t, comm=self.world,
                           peer=peer, tag=int(attrs.get("comm_tag", 0)), nbytes=self._int(node, attrs, "comm_size"),
                           request=request)
                if send:
                    sending.append(request)
                else:
                    receiving[node.id] = request
            elif node.type not in (METADATA_NODE, MEM_LOAD_NODE, MEM_STORE_NODE):
                raise TraceError(f"{self.where}: node {node.id} ({node.name}) has node type {node.type}, which "
                                 "the Chakra schema read does not define")
            if node.id in signalled and node.type != COMM_RECV_NODE:    # a receive signals once completed
                stream.add(Op.SEND, "SIGNAL", t, peer=stream.partner, tag=place[node.id])
        if receiving or sending:
            self._complete(comm, sorted([*receiving.values(), *sending]), t)
        for stream in streams:
            stream.add(Op.LOCAL, "TRACE_END", t)

    @staticmethod
    def _complete(stream: "Stream", requests: list, t: float) -> None:
        """Complete the in-flight transfers ``requests``: one WAIT, or a WAITALL of several."""
        if len(requests) == 1:
            stream.add(Op.WAIT, "WAIT", t, request=requests[0])
        else:
            stream.add(Op.WAITALL, "WAITALL", t, aux=requests)

    def _int(self, node, attrs: dict, name: str) -> int:
        """Attribute ``name`` of ``node``, an integer >= 0."""
        value = attrs.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TraceError(f"{self.where}: node {node.id} ({node.name}) lacks a {name} attribute (an integer >= 0)"
                             if value is None else
                             f"{self.where}: node {node.id} ({node.name}) has {name} {value!r}, not an integer >= 0")
        return value

    def _collective(self, node, attrs: dict) -> dict:
        """The op fields of collective node ``node``: kind, call, communicator and sizes."""
        code = attrs.get("comm_type")
        name = (COLLECTIVE_TYPES[code] if isinstance(code, int) and 0 <= code < len(COLLECTIVE_TYPES) else None
                if code is not None else collective_type_of_name(node.name))
        kind = COLLECTIVES.get(name)
        if code is None and name is None:
            raise TraceError(f"{self.where}: node {node.id} ({node.name}) is a collective without a comm_type "
                             f"attribute, and its name names none ({', '.join(k for k, _ in NAMED_TYPES)})")
        if kind is None:
            raise TraceError(f"{self.where}: node {node.id} ({node.name}) is a collective of type "
                             f"{name or code!r}, not one read ({', '.join(COLLECTIVES)})")
        comm, members = self.comms.get(attrs.get("pg_name") or "", (self.world, None))
        if members is not None and self.rank not in members:
            raise TraceError(f"{self.where}: node {node.id} ({node.name}) is a collective of process group "
                             f"{attrs['pg_name']!r}, whose ranks {members} do not include this rank ({self.rank})")
        size = self.num_ranks if members is None else len(members)
        nbytes = 0 if kind == Op.BARRIER else self._int(node, attrs, "comm_size")
        share = nbytes // size
        fields = {"kind": kind, "call": name, "comm": comm}
        if kind == Op.ALLREDUCE:
            fields.update(op=SUM, nbytes=nbytes)
        elif kind == Op.BCAST:
            fields.update(root=int(attrs.get("comm_root", 0)), nbytes=nbytes)
        elif kind == Op.REDUCE_SCATTER:
            fields.update(op=SUM, aux=[share + (r < nbytes % size) for r in range(size)])
        elif kind in (Op.ALLGATHER, Op.ALLTOALL):
            fields.update(nbytes=share)
        return fields
