"""Small mpi4py programs covering mpi4py's API: each runs on real mpi4py and on PPT's simulated MPI.

Every program is ``main(MPI)`` returning a list of ``repr`` strings of what
it saw, so results compare exactly, list against tuple and int against
float included.  Results must not depend on timing (no Waitsome sets that
a faster network would change).

On mpi4py: ``mpiexec -n 4 python tests/mpi4py_api_programs.py`` prints one
JSON object: program name -> every rank's list (from rank 0).
"""
import json

import numpy as np


def p2p_buffers(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    out = []
    if rank == 0:
        comm.Send(np.arange(5, dtype="i"), dest=1, tag=1)                        # datatype from the dtype
        comm.Send([np.arange(6, dtype="d"), MPI.DOUBLE], dest=1, tag=2)
        comm.Send([np.arange(6, dtype="d"), 3, MPI.DOUBLE], dest=1, tag=3)       # the first 3 items
        comm.Send([np.arange(6, dtype="d"), (2, 4), MPI.DOUBLE], dest=1, tag=4)  # 2 items from item 4
        comm.Send([np.arange(6, dtype="l"), 2, 1, MPI.LONG], dest=1, tag=5)     # 2 items from item 1
        comm.Ssend(np.array([1 + 2j, 3 - 1j]), dest=1, tag=6)
        MPI.Attach_buffer(bytearray(1 << 12))
        comm.Bsend(np.array([True, False, True]), dest=1, tag=7)
        out.append(len(MPI.Detach_buffer()))
        comm.Rsend(bytearray(b"hello"), dest=1, tag=8)
        comm.Issend(np.array([7.5], dtype="f"), dest=1, tag=9).Wait()
        comm.Send(np.array([1.0, 2.0]), dest=1, tag=10)
        comm.Send(np.array([3, 4], dtype=np.int64), dest=1, tag=11)
        comm.Send(np.arange(4, dtype="i"), dest=1, tag=12)
    elif rank == 1:
        status = MPI.Status()
        ints = np.zeros(5, dtype="i")
        comm.Recv(ints, source=0, tag=1, status=status)
        out += [ints.tolist(), status.Get_source(), status.Get_tag(), status.Get_count(MPI.INT),
                status.Get_count(), status.Get_elements(MPI.INT), status.Get_error(), status.Is_cancelled()]
        for tag in (2, 3, 4):
            doubles = np.full(6, -1.0)
            comm.Recv([doubles, MPI.DOUBLE], source=0, tag=tag, status=status)
            out += [doubles.tolist(), status.Get_count(MPI.DOUBLE)]
        longs = np.zeros(4, dtype="l")
        comm.Recv([longs, 2, 2, MPI.LONG], source=0, tag=5)                     # into items 2 and 3
        complexes, bools, text = np.zeros(2, dtype=complex), np.zeros(3, dtype=bool), bytearray(5)
        comm.Recv(complexes, source=0, tag=6)
        comm.Recv([bools, MPI.C_BOOL], source=0, tag=7)
        comm.Recv(text, source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status)
        out += [longs.tolist(), complexes.tolist(), bools.tolist(), bytes(text), status.Get_tag()]
        floats = np.zeros(1, dtype="f")
        comm.Irecv(floats, source=0, tag=9).Wait(status)
        raw = bytearray(16)
        comm.Recv([raw, MPI.BYTE], source=0, tag=10, status=status)             # doubles as bytes
        out += [floats.tolist(), np.frombuffer(raw).tolist(), status.Get_count(MPI.BYTE),
                status.Get_count(MPI.DOUBLE)]
        comm.Probe(source=0, tag=11, status=status)
        out += [status.Get_source(), status.Get_count(MPI.INT64_T)]
        got = np.zeros(2, dtype=np.int64)
        comm.Recv(got, source=0, tag=11)
        message = comm.Mprobe(source=0, tag=12, status=status)
        four = np.zeros(4, dtype="i")
        message.Recv(four)
        out += [got.tolist(), status.Get_count(MPI.INT), four.tolist()]
    ring = np.zeros(2)
    right, left = (rank + 1) % size, (rank - 1) % size
    comm.Sendrecv(np.array([rank, 10.0 * rank]), dest=right, sendtag=20, recvbuf=ring, source=left, recvtag=20)
    same = np.array([rank, rank * rank], dtype="i")
    comm.Sendrecv_replace(same, dest=left, sendtag=21, source=right, recvtag=21)
    fortran = np.asfortranarray(np.arange(6, dtype="i").reshape(2, 3) + 10 * rank)
    flat = np.zeros(6, dtype="i")
    comm.Sendrecv(fortran, dest=right, sendtag=22, recvbuf=flat, source=left, recvtag=22)   # memory order
    into_fortran = np.asfortranarray(np.zeros((2, 3), dtype="i"))
    comm.Sendrecv(np.arange(6, dtype="i"), dest=right, sendtag=23, recvbuf=into_fortran, source=left, recvtag=23)
    out += [flat.tolist(), into_fortran.tolist()]
    nothing = np.full(2, 5.0)
    comm.Sendrecv(np.ones(2), dest=MPI.PROC_NULL, recvbuf=nothing, source=MPI.PROC_NULL)
    out += [ring.tolist(), same.tolist(), nothing.tolist()]
    return [repr(x) for x in out]


def p2p_objects(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    right, left = (rank + 1) % size, (rank - 1) % size
    out = []
    status = MPI.Status()
    if rank == 0:
        comm.send({"a": [1, 2.5], "b": (3, "x")}, dest=1, tag=1)
        comm.ssend([rank] * 3, dest=1, tag=2)
        MPI.Attach_buffer(bytearray(1 << 12))
        comm.bsend("buffered", dest=1, tag=3)
        MPI.Detach_buffer()
        comm.issend(None, dest=1, tag=4).wait()
        comm.isend(np.arange(3), dest=1, tag=5).wait()
        comm.send(42, dest=1, tag=6)
        comm.send("probe me", dest=1, tag=7)
    elif rank == 1:
        out.append(comm.recv(source=0, tag=1, status=status))
        out += [status.Get_source(), status.Get_tag()]
        out.append(comm.recv(None, 0, 2))                          # mpi4py's positional buf
        out.append(comm.irecv(source=0, tag=3).wait())
        out.append(comm.recv(source=0, tag=4))
        out.append(comm.recv(source=0, tag=5).tolist())
        comm.probe(source=0, tag=6, status=status)
        out += [status.Get_source(), status.Get_tag(), comm.recv(source=0, tag=6)]
        message = comm.mprobe(source=MPI.ANY_SOURCE, tag=7)
        out.append(message.recv())
    out.append(comm.sendrecv(("hi", rank), dest=right, sendtag=9, source=left, recvtag=9))
    out.append(comm.sendrecv(rank, dest=right, sendtag=10, recvbuf=None, source=left, recvtag=10, status=status))
    out += [status.Get_source(), status.Get_tag()]
    out.append(comm.recv(source=MPI.PROC_NULL, status=status))
    out += [status.Get_source(), status.Get_tag(), status.Get_count()]
    requests = [comm.irecv(source=left, tag=11), comm.isend(rank * rank, dest=right, tag=11)]
    out.append(MPI.Request.waitall(requests))
    requests = [comm.isend(-rank, dest=right, tag=12), comm.irecv(source=left, tag=12)]
    out.append(MPI.Request.waitall(requests))
    request = comm.irecv(source=left, tag=13)
    comm.send([rank], dest=right, tag=13)
    while True:
        done, value = request.test()
        if done:
            break
    out += [done, value, request.test()]
    requests = [comm.irecv(source=left, tag=14)]
    comm.send(rank + 100, dest=right, tag=14)
    while not MPI.Request.testall(requests)[0]:
        pass
    comm.send(rank, dest=right, tag=15)
    while not comm.iprobe(source=left, tag=15):
        pass
    out.append(comm.recv(source=left, tag=15))
    comm.send(rank * 2, dest=right, tag=16)
    found = None
    while found is None:
        found = comm.improbe(source=left, tag=16)
    out.append(found.recv())
    return [repr(x) for x in out]


def requests(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    right, left = (rank + 1) % size, (rank - 1) % size
    out = []
    got = np.zeros(3, dtype="i")
    reqs = [comm.Irecv(got, source=left, tag=1), comm.Isend(np.full(3, rank, dtype="i"), dest=right, tag=1)]
    out += [MPI.Request.Waitall(reqs), got.tolist()]
    a, b = np.zeros(1), np.zeros(1)
    reqs = [comm.Irecv(a, source=left, tag=2), comm.Irecv(b, source=right, tag=3)]
    comm.Send(np.array([rank + 0.5]), dest=right, tag=2)
    comm.Send(np.array([-rank - 0.5]), dest=left, tag=3)
    comm.Barrier()
    statuses = [MPI.Status(), MPI.Status()]
    out += [MPI.Request.Testall(reqs, statuses), a.tolist(), b.tolist(),
            [s.Get_source() for s in statuses], [s.Get_tag() for s in statuses]]
    req = comm.Irecv(a, source=left, tag=4)
    comm.Send(np.array([rank * 3.0]), dest=right, tag=4)
    out += [MPI.Request.Waitany([req]), a.tolist()]
    req = comm.Irecv(a, source=left, tag=5)
    comm.Send(np.array([rank * 5.0]), dest=right, tag=5)
    out += [MPI.Request.Waitsome([req]), a.tolist()]
    req = comm.Irecv(a, source=left, tag=6)
    comm.Send(np.array([rank * 6.0]), dest=right, tag=6)
    status = MPI.Status()
    while not req.Get_status(status):
        pass
    flag = req.Test()
    out += [flag, a.tolist(), status.Get_source()]
    req = comm.Irecv(a, source=left, tag=7)
    comm.Send(np.array([7.0 + rank]), dest=right, tag=7)
    while True:
        index, flag = MPI.Request.Testany([req])
        if flag:
            break
    out += [index, a.tolist()]
    req = comm.Irecv(a, source=left, tag=8)
    comm.Send(np.array([8.0 + rank]), dest=right, tag=8)
    indices = []
    while not indices:
        indices = MPI.Request.Testsome([req])
    out += [indices, a.tolist(), MPI.Request.Testsome([req]), MPI.Request.Waitsome([req])]
    out += [MPI.Request.Waitall([]), MPI.Request.Testall([]), MPI.Request.Waitany([]), MPI.Request.Testany([])]
    comm.Isend(np.zeros(1), dest=right, tag=9).Free()
    comm.Recv(a, source=left, tag=9)
    out.append(a.tolist())
    req = comm.Isend(np.ones(2), dest=right, tag=10)
    comm.Recv(np.zeros(2), source=left, tag=10)
    out += [req == MPI.REQUEST_NULL, req.Wait(), req == MPI.REQUEST_NULL, MPI.Request.Waitall([MPI.REQUEST_NULL])]
    outgoing, incoming = np.zeros(2, dtype="i"), np.zeros(2, dtype="i")
    persistent = [comm.Recv_init(incoming, source=left, tag=11), comm.Send_init(outgoing, dest=right, tag=11)]
    for step in range(3):
        outgoing[:] = [rank, step]                          # each start sends what the buffer holds then
        MPI.Prequest.Startall(persistent)
        MPI.Request.Waitall(persistent)
        out.append(incoming.tolist())
    persistent[0].Start()
    persistent[1] = comm.Ssend_init(np.array([rank, 99], dtype="i"), dest=right, tag=11)
    persistent[1].Start()
    out += [persistent[0].Wait(), incoming.tolist(), persistent[0].Test(), persistent[1].Wait()]
    for req in persistent:
        req.Free()
    swapped = np.zeros(1)
    comm.Isendrecv(np.array([rank * 1.0]), dest=right, sendtag=12, recvbuf=swapped, source=left, recvtag=12).Wait()
    out.append(swapped.tolist())
    return [repr(x) for x in out]


def collectives_buffers(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    out = []
    data = np.arange(4, dtype="d") * (rank + 1) if rank == 1 else np.zeros(4)
    comm.Bcast(data, root=1)
    comm.Ibcast([data, 2, MPI.DOUBLE], root=0).Wait()
    out.append(data.tolist())
    send = np.arange(2 * size, dtype="i") if rank == 2 else None
    mine = np.zeros(2, dtype="i")
    comm.Scatter(send, mine, root=2)
    out.append(mine.tolist())
    counts, displs = list(range(1, size + 1)), [sum(range(1, i + 1)) for i in range(size)]
    whole = np.arange(sum(counts), dtype="f") * 1.5 if rank == 0 else None
    part = np.zeros(rank + 1, dtype="f")
    comm.Scatterv([whole, counts, displs, MPI.FLOAT] if rank == 0 else None, part, root=0)
    out.append(part.tolist())
    inplace = np.arange(size, dtype="l") * 7
    comm.Scatter([inplace, MPI.LONG] if rank == 0 else None, MPI.IN_PLACE if rank == 0 else inplace[:1], root=0)
    out.append(inplace.tolist())
    gathered = np.full(2 * size, -1, dtype="i") if rank == 3 else None
    comm.Gather(np.array([rank, rank * rank], dtype="i"), gathered, root=3)
    out.append(None if gathered is None else gathered.tolist())
    gv = np.zeros(sum(counts) + 2, dtype="d") if rank == 0 else None
    comm.Gatherv(np.full(rank + 1, rank + 0.25), [gv, (counts, [d + 2 for d in displs]), MPI.DOUBLE], root=0)
    out.append(None if gv is None else gv.tolist())
    own = np.full(size, -1, dtype="i")
    own[rank] = 10 * rank
    comm.Gather(MPI.IN_PLACE if rank == 0 else own[rank:rank + 1], own if rank == 0 else None, root=0)
    out.append(own.tolist() if rank == 0 else None)
    everyone = np.zeros(size, dtype=np.int64)
    comm.Allgather(np.array([rank * 11], dtype=np.int64), everyone)
    allv = np.zeros(sum(counts), dtype="i")
    comm.Allgatherv(np.full(rank + 1, rank, dtype="i"), [allv, counts, MPI.INT])
    place = np.zeros(size, dtype="d")
    place[rank] = rank + 0.5
    comm.Allgather(MPI.IN_PLACE, [place, MPI.DOUBLE])
    out += [everyone.tolist(), allv.tolist(), place.tolist()]
    sent = np.arange(size, dtype="f") + 100 * rank
    recv = np.zeros(size, dtype="f")
    comm.Alltoall(sent, recv)
    swap = np.arange(size, dtype="i") + 10 * rank
    comm.Alltoall(MPI.IN_PLACE, swap)
    scounts = [(rank + j) % 3 for j in range(size)]
    rcounts = [(j + rank) % 3 for j in range(size)]
    sdata = np.arange(sum(scounts), dtype="d") + 1000 * rank
    rdata = np.zeros(sum(rcounts), dtype="d")
    comm.Alltoallv([sdata, scounts, MPI.DOUBLE], [rdata, (rcounts, None), MPI.DOUBLE])
    out += [recv.tolist(), swap.tolist(), rdata.tolist()]
    total, largest = np.zeros(3, dtype="i"), np.zeros(3, dtype="i")
    comm.Reduce(np.array([rank, 1, -rank], dtype="i"), total if rank == 0 else None, op=MPI.SUM, root=0)
    comm.Allreduce(np.array([rank, 1, -rank], dtype="i"), largest, op=MPI.MAX)
    acc = np.array([rank + 1.0, 2.0])
    comm.Allreduce(MPI.IN_PLACE, acc, op=MPI.PROD)
    rin = np.array([rank * 2], dtype="i")
    comm.Reduce(MPI.IN_PLACE if rank == 1 else rin, rin if rank == 1 else None, op=MPI.MIN, root=1)
    flags = np.array([rank % 2, 1], dtype="i")
    comm.Allreduce(MPI.IN_PLACE, flags, op=MPI.LAND)
    bits = np.array([1 << rank], dtype="i")
    comm.Allreduce(MPI.IN_PLACE, bits, op=MPI.BOR)
    out += [total.tolist(), largest.tolist(), acc.tolist(), rin.tolist(), flags.tolist(), bits.tolist()]
    block = np.zeros(2, dtype="d")
    comm.Reduce_scatter_block(np.arange(2 * size, dtype="d") * (rank + 1), block, op=MPI.SUM)
    varying = np.zeros(rank + 1, dtype="l")
    comm.Reduce_scatter(np.arange(sum(counts), dtype="l"), varying, recvcounts=counts, op=MPI.SUM)
    guessed = np.zeros(rank + 1, dtype="l")
    comm.Reduce_scatter(np.ones(sum(counts), dtype="l"), guessed, None, MPI.MAX)
    whole_inplace = np.arange(2 * size, dtype="d")
    comm.Reduce_scatter_block(MPI.IN_PLACE, whole_inplace, op=MPI.SUM)
    out += [block.tolist(), varying.tolist(), guessed.tolist(), whole_inplace[:2].tolist()]
    prefix, before = np.zeros(2, dtype="i"), np.full(2, -9, dtype="i")
    comm.Scan(np.array([rank + 1, 2], dtype="i"), prefix, op=MPI.PROD)
    comm.Exscan(np.array([rank + 1, 2], dtype="i"), before, op=MPI.SUM)
    running = np.array([rank + 1.0])
    comm.Scan(MPI.IN_PLACE, running)
    out += [prefix.tolist(), before.tolist(), running.tolist()]
    nb = np.zeros(1)
    requests = [comm.Iallreduce(np.array([rank + 1.0]), nb), comm.Ibarrier()]
    MPI.Request.Waitall(requests)
    ga = np.zeros(size, dtype="i")
    comm.Iallgather(np.array([rank], dtype="i"), ga).Wait()
    comm.Barrier()
    out += [nb.tolist(), ga.tolist()]
    return [repr(x) for x in out]


def collectives_objects(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    out = [comm.bcast({"from": rank} if rank == 2 else None, root=2),
           comm.scatter([(i, str(i)) for i in range(size)] if rank == 0 else None, root=0),
           comm.gather(rank * 1.5, root=1), comm.allgather([rank]), comm.alltoall([rank * 10 + j for j in range(size)]),
           comm.reduce(rank, op=MPI.SUM, root=3), comm.allreduce(rank, op=MPI.MAX), comm.allreduce([rank]),
           comm.allreduce((rank % 2, rank), op=MPI.MAXLOC), comm.allreduce((rank % 3, size - rank), op=MPI.MINLOC),
           comm.scan(rank + 1, op=MPI.PROD), comm.exscan(rank + 1), comm.scan("ab"[rank % 2]),
           comm.allreduce(np.array([rank, 1.0]), op=MPI.SUM).tolist()]

    def pair(a, b, datatype):
        return (a, b) if datatype is None else None
    ordered = MPI.Op.Create(pair, commute=False)
    out += [comm.reduce(rank, op=ordered, root=0), ordered.Is_commutative(), MPI.SUM.Is_commutative()]
    ordered.Free()

    def weighted(inbuf, inoutbuf, datatype):
        x = np.frombuffer(inbuf, dtype="i")
        y = np.frombuffer(inoutbuf, dtype="i")
        y[:] = x * 10 + y
    user = MPI.Op.Create(weighted, commute=False)
    result = np.zeros(2, dtype="i")
    comm.Allreduce(np.array([rank, 1], dtype="i"), result, op=user)
    summed = MPI.Op.Create(lambda a, b, t: a + b, commute=True)
    out += [result.tolist(), comm.allreduce(rank + 0.5, op=summed), MPI.SUM(2, 3), MPI.MAX(1, 5),
            MPI.MAXLOC((3, 1), (3, 0)), MPI.REPLACE(1, 2), MPI.NO_OP(1, 2)]
    local = np.array([1, 2], dtype="i")
    MPI.PROD.Reduce_local(np.array([3, 4], dtype="i"), local)
    out.append(local.tolist())
    mine = [rank]
    shared = comm.bcast([0] if rank == 0 else None, root=0)
    shared.append(rank)                              # every rank has its own copy to change
    everyone = comm.allgather(mine)
    everyone[0].append(-rank)
    mine.append(10)                                  # after the call: no other rank sees it
    comm.barrier()
    out += [shared, everyone, comm.allgather(shared), comm.alltoall([[rank, j] for j in range(size)])]
    comm.barrier()
    return [repr(x) for x in out]


def communicators(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    dup = comm.Dup()
    half = comm.Split(color=rank % 2, key=-rank)
    none = comm.Split(MPI.UNDEFINED if rank == 0 else 1, 0)
    shared = comm.Split_type(MPI.COMM_TYPE_SHARED)
    out = [comm.Get_name(), MPI.COMM_SELF.Get_name(), dup.Get_name(), half.Get_rank(), half.Get_size(),
           none == MPI.COMM_NULL, shared.Get_size(), comm.Compare(comm), comm.Compare(dup), comm.Compare(half),
           MPI.IDENT, MPI.CONGRUENT, MPI.SIMILAR, MPI.UNEQUAL]
    reordered = comm.Split(0, key=size - rank)
    out.append(comm.Compare(reordered))
    dup.Set_name("mine")
    out.append(dup.Get_name())
    group = comm.Get_group()
    evens, odds = group.Incl(list(range(0, size, 2))), group.Excl(list(range(0, size, 2)))
    tail = group.Range_incl([(size - 1, 1, -2)])
    out += [evens.Get_size(), odds.Get_rank(), tail.Get_size(), tail.Translate_ranks([0, 1], group),
            group.Translate_ranks([0, 1, MPI.PROC_NULL], odds), group.Range_excl([(0, 2, 2)]).Get_size(),
            MPI.Group.Union(odds, evens).Get_size(), MPI.Group.Union(odds, evens).Translate_ranks([0], group),
            MPI.Group.Intersection(group, odds).Get_size(), MPI.Group.Difference(group, odds).Get_rank(),
            MPI.Group.Compare(group, group), MPI.Group.Compare(evens, odds),
            MPI.Group.Compare(MPI.Group.Union(odds, evens), group), MPI.GROUP_EMPTY.Get_size()]
    created = comm.Create(evens)
    out.append("null" if created == MPI.COMM_NULL else (created.Get_rank(), created.Get_size()))
    out.append(created.allreduce(rank) if created != MPI.COMM_NULL else None)
    dims = MPI.Compute_dims(size, 2)
    cart = comm.Create_cart(dims, periods=[True, False], reorder=False)
    out += [dims, MPI.Compute_dims(12, 3), MPI.Compute_dims(6, [0, 3]), MPI.Compute_dims(7, 2), cart.Get_dim(),
            cart.ndim, cart.dims, cart.periods, cart.coords, cart.Get_coords(rank), cart.Get_topo(),
            cart.Get_cart_rank([1, 0]), cart.Shift(0, 1), cart.Shift(1, 1), cart.Shift(1, -1),
            cart.Get_topology() == MPI.CART, comm.Get_topology() == MPI.UNDEFINED, comm.Is_inter(), comm.Is_intra()]
    row, column = cart.Sub([False, True]), cart.Sub([True, False])
    out += [row.Get_size(), row.Get_rank(), row.Get_topo(), column.Get_rank(), column.allgather(rank)]
    line = comm.Create_cart([size], periods=[True])
    out += [line.Shift(0, 2), line.sendrecv(rank, *reversed(line.Shift(0, 1)))]
    for handle in (dup, half, shared, reordered, cart, row, column, line, evens, odds, tail, group):
        handle.Free()
    op = MPI.Op.Create(lambda a, b, datatype: a, commute=True)
    op.Free()
    out += [[h == MPI.COMM_NULL for h in (dup, half, cart, comm)], [g == MPI.GROUP_NULL for g in (evens, group)],
            op == MPI.OP_NULL, MPI.SUM == MPI.OP_NULL, bool(MPI.COMM_NULL), none != MPI.COMM_NULL]
    return [repr(x) for x in out]


def environment(MPI):
    comm = MPI.COMM_WORLD
    start = MPI.Wtime()
    comm.Barrier()
    names = comm.allgather(MPI.Get_processor_name())
    out = [type(start).__name__, MPI.Wtime() >= start, MPI.Wtick() > 0, len(set(names)), MPI.Is_initialized(),
           MPI.Is_finalized(), MPI.PROC_NULL, MPI.ANY_SOURCE, MPI.ANY_TAG, MPI.UNDEFINED, MPI.ROOT,
           MPI.THREAD_MULTIPLE, MPI.Query_thread() in (MPI.THREAD_SINGLE, MPI.THREAD_FUNNELED,
                                                       MPI.THREAD_SERIALIZED, MPI.THREAD_MULTIPLE)]
    for datatype in (MPI.CHAR, MPI.SIGNED_CHAR, MPI.UNSIGNED_CHAR, MPI.BYTE, MPI.SHORT, MPI.INT, MPI.UNSIGNED, MPI.LONG,
                     MPI.LONG_LONG, MPI.UNSIGNED_LONG, MPI.FLOAT, MPI.DOUBLE, MPI.LONG_DOUBLE, MPI.C_BOOL, MPI.BOOL,
                     MPI.INT8_T, MPI.INT16_T, MPI.INT32_T, MPI.INT64_T, MPI.UINT8_T, MPI.UINT16_T, MPI.UINT32_T,
                     MPI.UINT64_T, MPI.WCHAR, MPI.COMPLEX, MPI.DOUBLE_COMPLEX, MPI.C_FLOAT_COMPLEX,
                     MPI.C_DOUBLE_COMPLEX, MPI.C_LONG_DOUBLE_COMPLEX, MPI.AINT, MPI.COUNT):
        out.append((datatype.Get_size(), datatype.size, datatype.extent, datatype.Get_extent(), datatype.name))
    out += [MPI.DOUBLE.typechar, MPI.INT.typestr, MPI.INT.Create_contiguous(3).Commit().Get_size(),
            MPI.BOOL == MPI.C_BOOL, MPI.DOUBLE == MPI.FLOAT, MPI._typedict["d"] == MPI.DOUBLE]
    return [repr(x) for x in out]


def derived_datatypes(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    right, left = (rank + 1) % size, (rank - 1) % size
    column = MPI.DOUBLE.Create_vector(4, 1, 4).Commit()             # a column of a 4x4 matrix
    inner = MPI.INT.Create_subarray([4, 4], [2, 2], [1, 1]).Commit()
    pieces = MPI.INT.Create_indexed([2, 1], [0, 5]).Commit()
    triple = MPI.FLOAT.Create_contiguous(3).Commit()
    spaced = MPI.INT.Create_vector(2, 1, 3).Create_resized(0, 4).Commit()
    strided = MPI.DOUBLE.Create_hvector(2, 2, 32).Commit()
    out = [(t.Get_size(), t.Get_extent(), t.Get_true_extent(), t.lb, t.ub)
           for t in (column, inner, pieces, triple, spaced, strided)]
    matrix = np.arange(16, dtype="d").reshape(4, 4) + 100 * rank
    got = np.zeros((4, 4))
    status = MPI.Status()
    comm.Sendrecv([matrix, 1, column], dest=right, sendtag=1, recvbuf=[got.reshape(-1)[2:], 1, column], source=left,
                  recvtag=1, status=status)
    out += [got.tolist(), status.Get_count(column), status.Get_elements(MPI.DOUBLE), status.Get_count(MPI.DOUBLE)]
    grid = np.arange(16, dtype="i").reshape(4, 4) * (rank + 1)
    middle = np.zeros(4, dtype="i")
    comm.Sendrecv([grid, 1, inner], dest=right, sendtag=2, recvbuf=middle, source=left, recvtag=2)
    back = np.full((4, 4), -1, dtype="i")
    comm.Sendrecv(middle, dest=left, sendtag=3, recvbuf=[back, 1, inner], source=right, recvtag=3)
    out += [middle.tolist(), back.tolist()]
    spread = np.full(6, -1, dtype="i")
    comm.Sendrecv(np.array([rank, rank + 1, rank + 2], dtype="i"), dest=right, sendtag=4,
                  recvbuf=[spread, 1, pieces], source=left, recvtag=4)
    floats = np.zeros(6, dtype="f")
    comm.Sendrecv([np.arange(6, dtype="f") + rank, 2, triple], dest=right, sendtag=5, recvbuf=[floats, triple],
                  source=left, recvtag=5)
    out += [spread.tolist(), floats.tolist()]
    table = np.arange(4 * size, dtype="i").reshape(size, 4) if rank == 0 else None
    mine = np.zeros(2, dtype="i")
    comm.Scatter([table, 1, spaced] if rank == 0 else None, mine, root=0)      # column pairs 0, 3 of a row
    sums = np.zeros((size, 4))
    comm.Allgather([matrix.reshape(-1)[1:], 1, column], [sums, 4, MPI.DOUBLE])     # everyone's column 1
    hv = np.zeros(8)
    comm.Bcast([hv if rank else np.arange(8.0), 1, strided], root=0)
    out += [mine.tolist(), sums.tolist(), hv.tolist(), column == MPI.DOUBLE.Create_vector(4, 1, 4)]
    for datatype in (column, inner, pieces, triple, spaced, strided):
        datatype.Free()
    return [repr(x) for x in out]


def sparse_exchange(MPI):
    """NBX (Hoefler et al., PPoPP 2010): receivers learn their senders by probing until a barrier
    entered after the synchronous sends completes; a barrier blocking at the call would deadlock."""
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    targets = sorted({(rank * 3 + 1) % size, (rank + 2) % size} - {rank})
    sends = [comm.issend([rank, target], dest=target, tag=7) for target in targets]
    got, barrier = [], None
    while True:
        status = MPI.Status()
        if comm.iprobe(source=MPI.ANY_SOURCE, tag=7, status=status):
            got.append(comm.recv(source=status.Get_source(), tag=7))
        if barrier is None:
            if MPI.Request.Testall(sends):
                barrier = comm.Ibarrier()
        elif barrier.Test():
            break
    return [repr(sorted(got)), repr(targets)]


def large_buffers(MPI):
    """Messages of 256 KiB around the ring (sent without a copy at the call), the senders changing their buffers
    as soon as MPI lets them; a receive posted early, a Sendrecv, a receive posted late."""
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    right, left = (rank + 1) % size, (rank - 1) % size
    send, got = np.full(1 << 15, float(rank)), np.zeros(1 << 15)
    req = comm.Irecv([got, MPI.DOUBLE], source=left, tag=1)
    comm.Isend([send, MPI.DOUBLE], dest=right, tag=1).Wait()
    send[:] = -1.0
    req.Wait()
    out = [float(got.min()), float(got.max())]
    send[:] = rank + 10.0
    comm.Sendrecv([send, MPI.DOUBLE], right, 2, [got, MPI.DOUBLE], left, 2)
    send[:] = -1.0
    out.append(float(got.sum()))
    send[:] = rank * 2.0
    req = comm.Isend([send, MPI.DOUBLE], dest=right, tag=3)
    comm.Barrier()                              # every send is out before its receive is posted
    comm.Recv([got, MPI.DOUBLE], source=left, tag=3)
    req.Wait()
    out.append(float(got.mean()))
    return [repr(x) for x in out]


PROGRAMS = {fn.__name__: fn for fn in (p2p_buffers, p2p_objects, requests, collectives_buffers,
                                       collectives_objects, communicators, environment, derived_datatypes,
                                       sparse_exchange, large_buffers)}

if __name__ == "__main__":
    import sys

    from mpi4py import MPI
    chosen = sys.argv[1:] or list(PROGRAMS)
    results = {name: MPI.COMM_WORLD.gather(PROGRAMS[name](MPI), root=0) for name in chosen}
    if MPI.COMM_WORLD.Get_rank() == 0:
        print(json.dumps(results))
