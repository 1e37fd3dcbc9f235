/*
 * pmpi_record.c: records the MPI calls of one rank of a program, for `ppt record`.
 *
 * Preloaded (LD_PRELOAD) into every rank of an MPI program, it defines the MPI
 * calls it records; each one calls the library's PMPI_ entry point and then
 * appends one fixed-size record to a buffer, which goes to the rank's files in
 * chunks (the memory used is bounded whatever the run's length):
 *
 *   rank-NNNNNN.rec  a header (magic, version, rank, size, the call-name table),
 *                    then one record_t per call, then an end record (call -1)
 *                    written by MPI_Finalize: a file without it is a run that
 *                    did not finish.
 *   rank-NNNNNN.aux  the records' variable-length values (request lists,
 *                    per-rank byte counts, ...), int64 each, in record order;
 *                    a record owns the next `naux` of them.
 *
 * Everything is resolved as the op-stream form wants it (docs/op-stream.md):
 * bytes are count x datatype size, peers and roots are ranks of the call's
 * communicator, communicators, groups, ops and requests are this rank's own
 * numbers.  Times are int64 nanoseconds: the wall clock (CLOCK_REALTIME) and
 * the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) at the call's start
 * and end.  ppt/record/rankfile.py reads these files; the two must agree on
 * the layout (RECORD_VERSION).
 *
 * Nothing is recorded unless PPT_RECORD_DIR names the folder to write to.  One
 * thread per rank calls MPI (no locking).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define RECORD_VERSION 1
#define RECORD_MAGIC "PPTREC\0\0"
#define RECORDS_PER_WRITE 4096
#define AUX_PER_WRITE 32768

/* The op stream's constants (ppt/oprecord.py). */
#define S_COMM_NULL (-1)
#define S_COMM_WORLD 0
#define S_COMM_SELF 1
#define S_PROC_NULL (-1)
#define S_ANY_SOURCE (-2)
#define S_ANY_TAG (-1)
#define S_UNDEFINED (-32766)
#define S_NO_INDEX (-1)
#define S_FIRST_USER_OP 15

/* Every call this library records, by name; a record names its call by index. */
#define CALLS(X) \
    X(Init) X(Init_thread) X(Finalize) X(Wtime) X(Comm_rank) X(Comm_size) X(Abort) \
    X(Get_count) X(Type_size) X(Type_contiguous) X(Type_vector) X(Type_commit) X(Type_free) \
    X(Cart_coords) X(Cart_rank) X(Cart_shift) X(Dims_create) \
    X(Send) X(Bsend) X(Ssend) X(Rsend) X(Isend) X(Ibsend) X(Issend) X(Irsend) X(Recv) X(Irecv) \
    X(Sendrecv) X(Sendrecv_replace) X(Probe) X(Iprobe) X(Mprobe) X(Improbe) X(Mrecv) X(Imrecv) \
    X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany) X(Testsome) \
    X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Scan) X(Exscan) X(Gather) X(Gatherv) \
    X(Scatter) X(Scatterv) X(Allgather) X(Allgatherv) X(Alltoall) X(Alltoallv) X(Alltoallw) \
    X(Reduce_scatter) \
    X(Comm_dup) X(Comm_split) X(Comm_create) X(Cart_create) X(Cart_sub) X(Comm_free) \
    X(Comm_group) X(Group_incl) X(Group_excl) X(Group_union) X(Group_intersection) \
    X(Group_difference) X(Group_free) X(Op_create) X(Op_free) \
    X(Send_init) X(Recv_init) X(Start) X(Startall) X(Request_free) X(Cancel) \
    X(Ibarrier) X(Ibcast) X(Ireduce) X(Iallreduce) X(Iscan) X(Iexscan) X(Igather) X(Igatherv) X(Iscatter) \
    X(Iscatterv) X(Iallgather) X(Iallgatherv) X(Ialltoall) X(Ialltoallv) X(Ialltoallw) X(Ireduce_scatter) \
    X(Reduce_scatter_block) X(Comm_split_type) X(Comm_create_group) X(Intercomm_create) \
    X(Intercomm_merge) X(Dist_graph_create_adjacent) X(Neighbor_alltoall) X(Comm_spawn) \
    X(Win_create) X(Win_allocate) X(Win_fence) X(Win_free) X(Put) X(Get) X(Accumulate) \
    X(File_open) X(File_close)

#define AS_ENUM(name) C_##name,
#define AS_NAME(name) "MPI_" #name,
enum call { CALLS(AS_ENUM) NCALLS };
static const char *const NAMES[NCALLS] = { CALLS(AS_NAME) };

/* One recorded call: 80 bytes, every field naturally aligned (no padding). */
typedef struct record {
    int32_t call, comm, peer, tag, root, op, flag, naux;
    int64_t wall0_ns, wall1_ns, cpu0_ns, cpu1_ns, nbytes, request;
} record_t;

typedef struct stamp { int64_t wall, cpu; } stamp_t;

/* A handle table: the library's handle -> this rank's stream number. */
typedef struct entry { int64_t handle; int id; } entry_t;
typedef struct table { entry_t *entries; int used, size, next; } table_t;

/* A message a matched probe found, until its receive: what the receive records. */
typedef struct found { MPI_Message message; int comm, peer, tag; } found_t;
#define MAX_FOUND 256

static struct {
    int on;                                  /* recording: PPT_RECORD_DIR set and files open */
    int rec_fd, aux_fd;
    record_t records[RECORDS_PER_WRITE];
    int64_t aux[AUX_PER_WRITE];
    int nrecords, naux;
    record_t now;                            /* the record being filled */
    table_t comms, groups, ops;
    found_t found[MAX_FOUND];                /* matched messages not yet received */
    int nfound;
} R = { .comms = { .next = 2 }, .ops = { .next = S_FIRST_USER_OP } };


/* ---- clocks and files ------------------------------------------------------------------ */
static int64_t ns(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static stamp_t stamp(void)
{
    stamp_t s = { ns(CLOCK_REALTIME), ns(CLOCK_THREAD_CPUTIME_ID) };
    return s;
}

static void stop_recording(const char *why)
{
    fprintf(stderr, "ppt record: %s; this rank's record stops here\n", why);
    R.on = 0;
}

static void write_all(int fd, const void *data, size_t bytes)
{
    const char *p = data;
    while (R.on && bytes > 0) {
        ssize_t done = write(fd, p, bytes);
        if (done <= 0) {
            stop_recording("cannot write the record file (disk full?)");
            return;
        }
        p += done;
        bytes -= (size_t)done;
    }
}

static void flush(void)
{
    write_all(R.rec_fd, R.records, sizeof(record_t) * (size_t)R.nrecords);
    write_all(R.aux_fd, R.aux, sizeof(int64_t) * (size_t)R.naux);
    R.nrecords = R.naux = 0;
}

static int open_file(const char *dir, int rank, const char *ext)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%06d.%s", dir, rank, ext);
    return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

/* Opens this rank's files and writes the header; recording starts. */
static void start_recording(void)
{
    const char *dir = getenv("PPT_RECORD_DIR");
    int rank, size;
    if (dir == NULL || *dir == '\0')
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    R.rec_fd = open_file(dir, rank, "rec");
    R.aux_fd = open_file(dir, rank, "aux");
    if (R.rec_fd < 0 || R.aux_fd < 0) {
        fprintf(stderr, "ppt record: cannot create the record files in %s\n", dir);
        return;
    }
    R.on = 1;
    int32_t head[4] = { RECORD_VERSION, rank, size, NCALLS };
    write_all(R.rec_fd, RECORD_MAGIC, 8);
    write_all(R.rec_fd, head, sizeof head);
    for (int i = 0; i < NCALLS; i++)
        write_all(R.rec_fd, NAMES[i], strlen(NAMES[i]) + 1);
    static const char zeros[8];
    int64_t written = 8 + (int64_t)sizeof head;
    for (int i = 0; i < NCALLS; i++)
        written += (int64_t)strlen(NAMES[i]) + 1;
    write_all(R.rec_fd, zeros, (size_t)((8 - written % 8) % 8));   /* records start 8-aligned */
}


/* ---- records ----------------------------------------------------------------------------- */
/* Starts the record of call `call`, begun at `t0` and ended now; NULL when not recording. */
static record_t *begin(enum call call, stamp_t t0)
{
    stamp_t t1 = stamp();
    if (!R.on)
        return NULL;
    memset(&R.now, 0, sizeof R.now);
    R.now.call = call;
    R.now.peer = S_PROC_NULL;
    R.now.wall0_ns = t0.wall;
    R.now.wall1_ns = t1.wall;
    R.now.cpu0_ns = t0.cpu;
    R.now.cpu1_ns = t1.cpu;
    return &R.now;
}

static void push(int64_t value)
{
    if (R.naux == AUX_PER_WRITE)
        flush();
    R.aux[R.naux++] = value;
    R.now.naux++;
}

static void commit(void)
{
    if (R.nrecords == RECORDS_PER_WRITE)
        flush();
    R.records[R.nrecords++] = R.now;
}

/* A call recorded with no arguments (local calls and the calls the op stream cannot express). */
static void plain(enum call call, stamp_t t0)
{
    if (begin(call, t0))
        commit();
}


/* ---- argument resolution ----------------------------------------------------------------- */
static int lookup(table_t *t, int64_t handle)
{
    for (int i = t->used - 1; i >= 0; i--)
        if (t->entries[i].handle == handle)
            return t->entries[i].id;
    return -1;
}

static int add_handle(table_t *t, int64_t handle)
{
    if (t->used == t->size) {
        t->size = t->size ? 2 * t->size : 64;
        t->entries = realloc(t->entries, sizeof(entry_t) * (size_t)t->size);
        if (t->entries == NULL) {
            fprintf(stderr, "ppt record: out of memory for handles\n");
            abort();
        }
    }
    t->entries[t->used].handle = handle;
    t->entries[t->used].id = t->next++;
    return t->entries[t->used++].id;
}

static void drop_handle(table_t *t, int64_t handle)
{
    for (int i = t->used - 1; i >= 0; i--)
        if (t->entries[i].handle == handle) {
            t->entries[i] = t->entries[--t->used];
            return;
        }
}

/* A communicator's stream number; one first seen (made by a call not recorded) gets a new one. */
static int comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return S_COMM_WORLD;
    if (comm == MPI_COMM_SELF)
        return S_COMM_SELF;
    if (comm == MPI_COMM_NULL)
        return S_COMM_NULL;
    int id = lookup(&R.comms, (int64_t)comm);
    return id >= 0 ? id : add_handle(&R.comms, (int64_t)comm);
}

static int group_id(MPI_Group group)
{
    int id = lookup(&R.groups, (int64_t)group);
    return id >= 0 ? id : add_handle(&R.groups, (int64_t)group);
}

/* Predefined ops as the op stream numbers them (MAX 1, MIN 2, SUM 3, PROD 4, ...), user ops from 15. */
static int op_id(MPI_Op op)
{
    static const MPI_Op predefined[] = { MPI_OP_NULL, MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
        MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP };
    for (int i = 0; i < (int)(sizeof predefined / sizeof predefined[0]); i++)
        if (op == predefined[i])
            return i;
    int id = lookup(&R.ops, (int64_t)op);
    return id >= 0 ? id : add_handle(&R.ops, (int64_t)op);
}

/* A request's id: the library's handle (unique among live requests), 0 for MPI_REQUEST_NULL. */
static int64_t request_id(MPI_Request request)
{
    return request == MPI_REQUEST_NULL ? 0 : (int64_t)request;
}

static int peer_of(int rank)
{
    if (rank == MPI_PROC_NULL)
        return S_PROC_NULL;
    if (rank == MPI_ANY_SOURCE)
        return S_ANY_SOURCE;
    return rank;
}

static int tag_of(int tag)
{
    return tag == MPI_ANY_TAG ? S_ANY_TAG : tag;
}

static int64_t bytes(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (type != MPI_DATATYPE_NULL)
        PMPI_Type_size_x(type, &size);
    return (int64_t)count * (int64_t)size;
}

static int comm_size(MPI_Comm comm)
{
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

static int comm_rank(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

/* The request ids of `requests`, read before a completion call resets them. */
static int64_t *request_ids(int n, const MPI_Request *requests)
{
    int64_t *ids = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (ids == NULL) {
        fprintf(stderr, "ppt record: out of memory for a request list\n");
        abort();
    }
    for (int i = 0; i < n; i++)
        ids[i] = request_id(requests[i]);
    return ids;
}

static void push_all(int n, const int64_t *values)
{
    for (int i = 0; i < n; i++)
        push(values[i]);
}


/* ---- start-up and shutdown ---------------------------------------------------------------- */
int MPI_Init(int *argc, char ***argv)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Init(argc, argv);
    start_recording();
    plain(C_Init, t0);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    start_recording();
    plain(C_Init_thread, t0);
    return rc;
}

int MPI_Finalize(void)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Finalize();
    plain(C_Finalize, t0);
    if (R.on) {
        record_t end;
        memset(&end, 0, sizeof end);
        end.call = -1;
        R.now = end;
        commit();
        flush();
    }
    if (R.on) {
        close(R.rec_fd);
        close(R.aux_fd);
        R.on = 0;
    }
    return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    plain(C_Abort, stamp());
    flush();
    return PMPI_Abort(comm, errorcode);
}


/* ---- local calls: counted, no communication ------------------------------------------------ */
double MPI_Wtime(void)
{
    stamp_t t0 = stamp();
    double t = PMPI_Wtime();
    plain(C_Wtime, t0);
    return t;
}

#define LOCAL(name, params, args) \
    int MPI_##name params \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name args; \
        plain(C_##name, t0); \
        return rc; \
    }

LOCAL(Comm_rank, (MPI_Comm comm, int *rank), (comm, rank))
LOCAL(Comm_size, (MPI_Comm comm, int *size), (comm, size))
LOCAL(Get_count, (const MPI_Status *status, MPI_Datatype type, int *count), (status, type, count))
LOCAL(Type_size, (MPI_Datatype type, int *size), (type, size))
LOCAL(Type_contiguous, (int count, MPI_Datatype old, MPI_Datatype *type), (count, old, type))
LOCAL(Type_vector, (int count, int length, int stride, MPI_Datatype old, MPI_Datatype *type),
      (count, length, stride, old, type))
LOCAL(Type_commit, (MPI_Datatype *type), (type))
LOCAL(Type_free, (MPI_Datatype *type), (type))
LOCAL(Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]), (comm, rank, maxdims, coords))
LOCAL(Cart_rank, (MPI_Comm comm, const int coords[], int *rank), (comm, coords, rank))
LOCAL(Cart_shift, (MPI_Comm comm, int direction, int disp, int *source, int *dest),
      (comm, direction, disp, source, dest))
LOCAL(Dims_create, (int nnodes, int ndims, int dims[]), (nnodes, ndims, dims))


/* ---- point to point ------------------------------------------------------------------------ */
static void message(enum call call, stamp_t t0, MPI_Comm comm, int peer, int tag, int64_t nbytes,
                    int64_t request)
{
    if (!begin(call, t0))
        return;
    R.now.comm = comm_id(comm);
    R.now.peer = peer_of(peer);
    R.now.tag = tag_of(tag);
    R.now.nbytes = nbytes;
    R.now.request = request;
    commit();
}

#define BLOCKING_SEND(name) \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name(buf, count, type, dest, tag, comm); \
        message(C_##name, t0, comm, dest, tag, bytes(count, type), 0); \
        return rc; \
    } \
    int MPI_##name##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name##_c(buf, count, type, dest, tag, comm); \
        message(C_##name, t0, comm, dest, tag, bytes(count, type), 0); \
        return rc; \
    }

#define NONBLOCKING_SEND(name) \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *request) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name(buf, count, type, dest, tag, comm, request); \
        message(C_##name, t0, comm, dest, tag, bytes(count, type), request_id(*request)); \
        return rc; \
    } \
    int MPI_##name##_c(const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                       MPI_Request *request) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name##_c(buf, count, type, dest, tag, comm, request); \
        message(C_##name, t0, comm, dest, tag, bytes(count, type), request_id(*request)); \
        return rc; \
    }

BLOCKING_SEND(Send)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Rsend)
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Ibsend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    message(C_Recv, t0, comm, source, tag, bytes(count, type), 0);
    return rc;
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Status *status)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Recv_c(buf, count, type, source, tag, comm, status);
    message(C_Recv, t0, comm, source, tag, bytes(count, type), 0);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    message(C_Irecv, t0, comm, source, tag, bytes(count, type), request_id(*request));
    return rc;
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Irecv_c(buf, count, type, source, tag, comm, request);
    message(C_Irecv, t0, comm, source, tag, bytes(count, type), request_id(*request));
    return rc;
}

static void sendrecv(enum call call, stamp_t t0, MPI_Comm comm, int dest, int sendtag, int64_t sent,
                     int source, int recvtag, int64_t posted)
{
    if (!begin(call, t0))
        return;
    R.now.comm = comm_id(comm);
    R.now.peer = peer_of(dest);
    R.now.tag = sendtag;
    R.now.nbytes = sent;
    push(peer_of(source));
    push(tag_of(recvtag));
    push(posted);
    commit();
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                           source, recvtag, comm, status);
    sendrecv(C_Sendrecv, t0, comm, dest, sendtag, bytes(sendcount, sendtype), source, recvtag,
             bytes(recvcount, recvtype));
    return rc;
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Status *status)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                             source, recvtag, comm, status);
    sendrecv(C_Sendrecv, t0, comm, dest, sendtag, bytes(sendcount, sendtype), source, recvtag,
             bytes(recvcount, recvtype));
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
    sendrecv(C_Sendrecv_replace, t0, comm, dest, sendtag, bytes(count, type), source, recvtag,
             bytes(count, type));
    return rc;
}

/* Probes name the message found (the status's source and tag), so a wildcard probe waits for it. */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &mine : status;
    stamp_t t0 = stamp();
    int rc = PMPI_Probe(source, tag, comm, s);
    message(C_Probe, t0, comm, s->MPI_SOURCE, s->MPI_TAG, 0, 0);
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &mine : status;
    stamp_t t0 = stamp();
    int rc = PMPI_Iprobe(source, tag, comm, flag, s);
    if (begin(C_Iprobe, t0)) {
        R.now.comm = comm_id(comm);
        R.now.peer = peer_of(*flag ? s->MPI_SOURCE : source);
        R.now.tag = tag_of(*flag ? s->MPI_TAG : tag);
        R.now.flag = *flag != 0;
        commit();
    }
    return rc;
}


/* Matched probes are recorded as the probe and the receive they stand for: the probe names the message it
 * found, and the receive of that message (Mrecv, Imrecv) its source and tag, which the probe kept. */
static void keep_found(MPI_Message message, MPI_Comm comm, const MPI_Status *s)
{
    if (message == MPI_MESSAGE_NULL)
        return;
    if (R.nfound == MAX_FOUND) {
        stop_recording("more than 256 probed messages wait for their receive");
        return;
    }
    found_t *f = &R.found[R.nfound++];
    f->message = message;
    f->comm = comm_id(comm);
    f->peer = message == MPI_MESSAGE_NO_PROC ? S_PROC_NULL : s->MPI_SOURCE;
    f->tag = message == MPI_MESSAGE_NO_PROC ? S_ANY_TAG : s->MPI_TAG;
}

/* Records the receive of a matched message; `message` is its handle before the call. */
static void matched_receive(enum call call, stamp_t t0, MPI_Message message, int64_t nbytes, int64_t request)
{
    found_t f = { message, S_COMM_WORLD, S_PROC_NULL, S_ANY_TAG };
    for (int i = 0; i < R.nfound; i++)
        if (R.found[i].message == message) {
            f = R.found[i];
            R.found[i] = R.found[--R.nfound];
            break;
        }
    if (!begin(call, t0))
        return;
    R.now.comm = f.comm;
    R.now.peer = f.peer;
    R.now.tag = f.tag;
    R.now.nbytes = nbytes;
    R.now.request = request;
    commit();
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &mine : status;
    stamp_t t0 = stamp();
    int rc = PMPI_Mprobe(source, tag, comm, msg, s);
    keep_found(*msg, comm, s);
    message(C_Mprobe, t0, comm, s->MPI_SOURCE, s->MPI_TAG, 0, 0);
    return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &mine : status;
    stamp_t t0 = stamp();
    int rc = PMPI_Improbe(source, tag, comm, flag, msg, s);
    if (*flag)
        keep_found(*msg, comm, s);
    if (begin(C_Improbe, t0)) {
        R.now.comm = comm_id(comm);
        R.now.peer = peer_of(*flag ? s->MPI_SOURCE : source);
        R.now.tag = tag_of(*flag ? s->MPI_TAG : tag);
        R.now.flag = *flag != 0;
        commit();
    }
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Status *status)
{
    MPI_Message m = *msg;
    stamp_t t0 = stamp();
    int rc = PMPI_Mrecv(buf, count, type, msg, status);
    matched_receive(C_Mrecv, t0, m, bytes(count, type), 0);
    return rc;
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *msg, MPI_Status *status)
{
    MPI_Message m = *msg;
    stamp_t t0 = stamp();
    int rc = PMPI_Mrecv_c(buf, count, type, msg, status);
    matched_receive(C_Mrecv, t0, m, bytes(count, type), 0);
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Request *request)
{
    MPI_Message m = *msg;
    stamp_t t0 = stamp();
    int rc = PMPI_Imrecv(buf, count, type, msg, request);
    matched_receive(C_Imrecv, t0, m, bytes(count, type), request_id(*request));
    return rc;
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *msg, MPI_Request *request)
{
    MPI_Message m = *msg;
    stamp_t t0 = stamp();
    int rc = PMPI_Imrecv_c(buf, count, type, msg, request);
    matched_receive(C_Imrecv, t0, m, bytes(count, type), request_id(*request));
    return rc;
}


/* ---- completion ---------------------------------------------------------------------------- */
int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int64_t id = request_id(*request);
    stamp_t t0 = stamp();
    int rc = PMPI_Wait(request, status);
    if (begin(C_Wait, t0)) {
        R.now.request = id;
        commit();
    }
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int64_t id = request_id(*request);
    stamp_t t0 = stamp();
    int rc = PMPI_Test(request, flag, status);
    if (begin(C_Test, t0)) {
        R.now.request = id;
        R.now.flag = *flag != 0;
        commit();
    }
    return rc;
}

/* A completion call over a request list: the requests, then `nindices` of `indices`; `flag` as the form says. */
static void completion(enum call call, stamp_t t0, int n, const int64_t *ids, int flag, int nindices,
                       const int *indices)
{
    if (begin(call, t0)) {
        push_all(n, ids);
        for (int i = 0; i < nindices; i++)
            push(indices[i]);
        R.now.flag = flag;
        commit();
    }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    int64_t *ids = request_ids(count, requests);
    stamp_t t0 = stamp();
    int rc = PMPI_Waitall(count, requests, statuses);
    completion(C_Waitall, t0, count, ids, 0, 0, NULL);
    free(ids);
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    int64_t *ids = request_ids(count, requests);
    stamp_t t0 = stamp();
    int rc = PMPI_Testall(count, requests, flag, statuses);
    completion(C_Testall, t0, count, ids, *flag != 0, 0, NULL);
    free(ids);
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    int64_t *ids = request_ids(count, requests);
    stamp_t t0 = stamp();
    int rc = PMPI_Waitany(count, requests, index, status);
    completion(C_Waitany, t0, count, ids, *index == MPI_UNDEFINED ? S_NO_INDEX : *index, 0, NULL);
    free(ids);
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    int64_t *ids = request_ids(count, requests);
    stamp_t t0 = stamp();
    int rc = PMPI_Testany(count, requests, index, flag, status);
    int done = *flag && *index != MPI_UNDEFINED;
    completion(C_Testany, t0, count, ids, done ? *index : S_NO_INDEX, 0, NULL);
    free(ids);
    return rc;
}

int MPI_Waitsome(int count, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    int64_t *ids = request_ids(count, requests);
    stamp_t t0 = stamp();
    int rc = PMPI_Waitsome(count, requests, outcount, indices, statuses);
    int n = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    completion(C_Waitsome, t0, count, ids, n, n, indices);
    free(ids);
    return rc;
}

int MPI_Testsome(int count, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    int64_t *ids = request_ids(count, requests);
    stamp_t t0 = stamp();
    int rc = PMPI_Testsome(count, requests, outcount, indices, statuses);
    int n = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    completion(C_Testsome, t0, count, ids, n, n, indices);
    free(ids);
    return rc;
}


/* ---- collectives --------------------------------------------------------------------------- */
/* Each collective is recorded by one function, which its nonblocking call (MPI_Iallreduce ...) shares, giving
 * the request it started (a blocking call: 0). */
static void collective(enum call call, stamp_t t0, MPI_Comm comm, int root, MPI_Op op, int64_t nbytes,
                       int64_t request)
{
    if (!begin(call, t0))
        return;
    R.now.comm = comm_id(comm);
    R.now.root = root;
    R.now.op = op == MPI_OP_NULL ? 0 : op_id(op);
    R.now.nbytes = nbytes;
    R.now.request = request;
    commit();
}

int MPI_Barrier(MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Barrier(comm);
    collective(C_Barrier, t0, comm, 0, MPI_OP_NULL, 0, 0);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    collective(C_Bcast, t0, comm, root, MPI_OP_NULL, bytes(count, type), 0);
    return rc;
}

int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Bcast_c(buf, count, type, root, comm);
    collective(C_Bcast, t0, comm, root, MPI_OP_NULL, bytes(count, type), 0);
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    collective(C_Reduce, t0, comm, root, op, bytes(count, type), 0);
    return rc;
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                 MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm);
    collective(C_Reduce, t0, comm, root, op, bytes(count, type), 0);
    return rc;
}

#define REDUCING(name) \
    int MPI_##name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name(sendbuf, recvbuf, count, type, op, comm); \
        collective(C_##name, t0, comm, 0, op, bytes(count, type), 0); \
        return rc; \
    } \
    int MPI_##name##_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, \
                       MPI_Comm comm) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name##_c(sendbuf, recvbuf, count, type, op, comm); \
        collective(C_##name, t0, comm, 0, op, bytes(count, type), 0); \
        return rc; \
    }

REDUCING(Allreduce)
REDUCING(Scan)
REDUCING(Exscan)

/* Bytes this rank contributes: with MPI_IN_PLACE its send arguments are ignored and its receive ones count. */
static int64_t contributed(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           MPI_Count recvcount, MPI_Datatype recvtype)
{
    if (sendbuf == MPI_IN_PLACE)
        return bytes(recvcount, recvtype);
    return bytes(sendcount, sendtype);
}

/* A per-rank count array, of ints (the classic calls) or of MPI_Counts (their large-count _c variants, which
 * mpi4py calls whenever the MPI has them). */
typedef struct { const int *i; const MPI_Count *c; } counts_t;
#define INTS(a) ((counts_t){(a), NULL})
#define COUNTS(a) ((counts_t){NULL, (a)})

static MPI_Count count_at(counts_t counts, int i)
{
    return counts.c ? counts.c[i] : (MPI_Count)counts.i[i];
}

/* A v-collective's per-rank bytes: counts[i] x the size of types[i] (types NULL: of type) for each of the n ranks,
 * as the record's aux; op: a reduction's (MPI_OP_NULL: none). */
static void per_rank(enum call call, stamp_t t0, MPI_Comm comm, int root, MPI_Op op, int n, counts_t counts,
                     const MPI_Datatype types[], MPI_Datatype type, int64_t request)
{
    if (!begin(call, t0))
        return;
    R.now.comm = comm_id(comm);
    R.now.root = root;
    R.now.op = op == MPI_OP_NULL ? 0 : op_id(op);
    R.now.request = request;
    for (int i = 0; i < n; i++)
        push(bytes(count_at(counts, i), types ? types[i] : type));
    commit();
}

/* Bytes this rank contributes to a Gatherv or Allgatherv (`at`: its rank; with MPI_IN_PLACE its receive count). */
static int64_t contributed_v(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, counts_t recvcounts,
                             int at, MPI_Datatype recvtype)
{
    return sendbuf == MPI_IN_PLACE ? bytes(count_at(recvcounts, at), recvtype) : bytes(sendcount, sendtype);
}

/* Bytes for each rank of a Scatter: the root's send, elsewhere the receive. */
static int64_t scattered(MPI_Comm comm, int root, MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
                         MPI_Datatype recvtype)
{
    return comm_rank(comm) == root ? bytes(sendcount, sendtype) : bytes(recvcount, recvtype);
}

/* An Alltoallv's or Alltoallw's (types: the send or receive types, NULL with one type) bytes to each rank. */
static void alltoallv(enum call call, stamp_t t0, MPI_Comm comm, const void *sendbuf, counts_t sendcounts,
                      const MPI_Datatype sendtypes[], MPI_Datatype sendtype, counts_t recvcounts,
                      const MPI_Datatype recvtypes[], MPI_Datatype recvtype, int64_t request)
{
    int n = comm_size(comm);
    if (sendbuf == MPI_IN_PLACE)
        per_rank(call, t0, comm, 0, MPI_OP_NULL, n, recvcounts, recvtypes, recvtype, request);
    else
        per_rank(call, t0, comm, 0, MPI_OP_NULL, n, sendcounts, sendtypes, sendtype, request);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    collective(C_Gather, t0, comm, root, MPI_OP_NULL,
               contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), 0);
    return rc;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    collective(C_Gatherv, t0, comm, root, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, INTS(recvcounts), root, recvtype), 0);
    return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    collective(C_Scatter, t0, comm, root, MPI_OP_NULL, scattered(comm, root, sendcount, sendtype, recvcount, recvtype),
               0);
    return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    per_rank(C_Scatterv, t0, comm, root, MPI_OP_NULL, comm_rank(comm) == root ? comm_size(comm) : 0, INTS(sendcounts),
             NULL, sendtype, 0);
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    collective(C_Allgather, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), 0);
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    collective(C_Allgatherv, t0, comm, 0, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, INTS(recvcounts), comm_rank(comm), recvtype), 0);
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    collective(C_Alltoall, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), 0);
    return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    alltoallv(C_Alltoallv, t0, comm, sendbuf, INTS(sendcounts), NULL, sendtype, INTS(recvcounts), NULL, recvtype, 0);
    return rc;
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    alltoallv(C_Alltoallw, t0, comm, sendbuf, INTS(sendcounts), sendtypes, MPI_DATATYPE_NULL, INTS(recvcounts), recvtypes,
              MPI_DATATYPE_NULL, 0);
    return rc;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
    per_rank(C_Reduce_scatter, t0, comm, 0, op, comm_size(comm), INTS(recvcounts), NULL, type, 0);
    return rc;
}


/* The large-count (_c) variants of the collectives above, recorded as their classic calls are: mpi4py calls these
 * whenever the MPI library has them (MPICH 4 does), so without them its Gather, Alltoallv ... would go unrecorded. */
int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    collective(C_Gather, t0, comm, root, MPI_OP_NULL,
               contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), 0);
    return rc;
}

int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    collective(C_Gatherv, t0, comm, root, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, COUNTS(recvcounts), root, recvtype), 0);
    return rc;
}

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    collective(C_Scatter, t0, comm, root, MPI_OP_NULL, scattered(comm, root, sendcount, sendtype, recvcount, recvtype),
               0);
    return rc;
}

int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    per_rank(C_Scatterv, t0, comm, root, MPI_OP_NULL, comm_rank(comm) == root ? comm_size(comm) : 0,
             COUNTS(sendcounts), NULL, sendtype, 0);
    return rc;
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    collective(C_Allgather, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), 0);
    return rc;
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    collective(C_Allgatherv, t0, comm, 0, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, COUNTS(recvcounts), comm_rank(comm), recvtype), 0);
    return rc;
}

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    collective(C_Alltoall, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), 0);
    return rc;
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    alltoallv(C_Alltoallv, t0, comm, sendbuf, COUNTS(sendcounts), NULL, sendtype, COUNTS(recvcounts), NULL, recvtype,
              0);
    return rc;
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    alltoallv(C_Alltoallw, t0, comm, sendbuf, COUNTS(sendcounts), sendtypes, MPI_DATATYPE_NULL, COUNTS(recvcounts),
              recvtypes, MPI_DATATYPE_NULL, 0);
    return rc;
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm);
    per_rank(C_Reduce_scatter, t0, comm, 0, op, comm_size(comm), COUNTS(recvcounts), NULL, type, 0);
    return rc;
}

/* ---- nonblocking collectives: recorded as their blocking calls are, with the request they start -------------- */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ibarrier(comm, request);
    collective(C_Ibarrier, t0, comm, 0, MPI_OP_NULL, 0, request_id(*request));
    return rc;
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ibcast(buf, count, type, root, comm, request);
    collective(C_Ibcast, t0, comm, root, MPI_OP_NULL, bytes(count, type), request_id(*request));
    return rc;
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
    collective(C_Ireduce, t0, comm, root, op, bytes(count, type), request_id(*request));
    return rc;
}

#define IREDUCING(name) \
    int MPI_##name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, \
                   MPI_Request *request) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name(sendbuf, recvbuf, count, type, op, comm, request); \
        collective(C_##name, t0, comm, 0, op, bytes(count, type), request_id(*request)); \
        return rc; \
    }

IREDUCING(Iallreduce)
IREDUCING(Iscan)
IREDUCING(Iexscan)

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    collective(C_Igather, t0, comm, root, MPI_OP_NULL,
               contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), request_id(*request));
    return rc;
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
    collective(C_Igatherv, t0, comm, root, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, INTS(recvcounts), root, recvtype), request_id(*request));
    return rc;
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    collective(C_Iscatter, t0, comm, root, MPI_OP_NULL, scattered(comm, root, sendcount, sendtype, recvcount, recvtype),
               request_id(*request));
    return rc;
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    per_rank(C_Iscatterv, t0, comm, root, MPI_OP_NULL, comm_rank(comm) == root ? comm_size(comm) : 0, INTS(sendcounts),
             NULL, sendtype, request_id(*request));
    return rc;
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    collective(C_Iallgather, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype),
               request_id(*request));
    return rc;
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
    collective(C_Iallgatherv, t0, comm, 0, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, INTS(recvcounts), comm_rank(comm), recvtype), request_id(*request));
    return rc;
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    collective(C_Ialltoall, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype),
               request_id(*request));
    return rc;
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                             request);
    alltoallv(C_Ialltoallv, t0, comm, sendbuf, INTS(sendcounts), NULL, sendtype, INTS(recvcounts), NULL, recvtype,
              request_id(*request));
    return rc;
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                             request);
    alltoallv(C_Ialltoallw, t0, comm, sendbuf, INTS(sendcounts), sendtypes, MPI_DATATYPE_NULL, INTS(recvcounts), recvtypes,
              MPI_DATATYPE_NULL, request_id(*request));
    return rc;
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
    per_rank(C_Ireduce_scatter, t0, comm, 0, op, comm_size(comm), INTS(recvcounts), NULL, type, request_id(*request));
    return rc;
}


/* Their large-count (_c) variants (mpi4py's Ibcast, Ialltoallv ... call these when the MPI has them). */
int MPI_Ibcast_c(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ibcast_c(buf, count, type, root, comm, request);
    collective(C_Ibcast, t0, comm, root, MPI_OP_NULL, bytes(count, type), request_id(*request));
    return rc;
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ireduce_c(sendbuf, recvbuf, count, type, op, root, comm, request);
    collective(C_Ireduce, t0, comm, root, op, bytes(count, type), request_id(*request));
    return rc;
}

#define IREDUCING_C(name) \
    int MPI_##name##_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op, \
                       MPI_Comm comm, MPI_Request *request) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name##_c(sendbuf, recvbuf, count, type, op, comm, request); \
        collective(C_##name, t0, comm, 0, op, bytes(count, type), request_id(*request)); \
        return rc; \
    }

IREDUCING_C(Iallreduce)
IREDUCING_C(Iscan)
IREDUCING_C(Iexscan)

int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    collective(C_Igather, t0, comm, root, MPI_OP_NULL,
               contributed(sendbuf, sendcount, sendtype, recvcount, recvtype), request_id(*request));
    return rc;
}

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Igatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
    collective(C_Igatherv, t0, comm, root, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, COUNTS(recvcounts), root, recvtype), request_id(*request));
    return rc;
}

int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    collective(C_Iscatter, t0, comm, root, MPI_OP_NULL, scattered(comm, root, sendcount, sendtype, recvcount, recvtype),
               request_id(*request));
    return rc;
}

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iscatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    per_rank(C_Iscatterv, t0, comm, root, MPI_OP_NULL, comm_rank(comm) == root ? comm_size(comm) : 0,
             COUNTS(sendcounts), NULL, sendtype, request_id(*request));
    return rc;
}

int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    collective(C_Iallgather, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype),
               request_id(*request));
    return rc;
}

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Iallgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
    collective(C_Iallgatherv, t0, comm, 0, MPI_OP_NULL,
               contributed_v(sendbuf, sendcount, sendtype, COUNTS(recvcounts), comm_rank(comm), recvtype),
               request_id(*request));
    return rc;
}

int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    collective(C_Ialltoall, t0, comm, 0, MPI_OP_NULL, contributed(sendbuf, sendcount, sendtype, recvcount, recvtype),
               request_id(*request));
    return rc;
}

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               request);
    alltoallv(C_Ialltoallv, t0, comm, sendbuf, COUNTS(sendcounts), NULL, sendtype, COUNTS(recvcounts), NULL, recvtype,
              request_id(*request));
    return rc;
}

int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                               request);
    alltoallv(C_Ialltoallw, t0, comm, sendbuf, COUNTS(sendcounts), sendtypes, MPI_DATATYPE_NULL, COUNTS(recvcounts),
              recvtypes, MPI_DATATYPE_NULL, request_id(*request));
    return rc;
}

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm, request);
    per_rank(C_Ireduce_scatter, t0, comm, 0, op, comm_size(comm), COUNTS(recvcounts), NULL, type,
             request_id(*request));
    return rc;
}

/* ---- communicators, groups and ops ----------------------------------------------------------- */
/* A new communicator's stream number (COMM_NULL for none), taken for it now. */
static int new_comm(MPI_Comm comm)
{
    return comm == MPI_COMM_NULL ? S_COMM_NULL : add_handle(&R.comms, (int64_t)comm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (begin(C_Comm_dup, t0)) {
        R.now.comm = comm_id(comm);
        push(new_comm(*newcomm));
        commit();
    }
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (begin(C_Comm_split, t0)) {
        R.now.comm = comm_id(comm);
        push(new_comm(*newcomm));
        push(color == MPI_UNDEFINED ? S_UNDEFINED : color);
        push(key);
        commit();
    }
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Comm_create(comm, group, newcomm);
    if (begin(C_Comm_create, t0)) {
        R.now.comm = comm_id(comm);
        push(new_comm(*newcomm));
        push(group_id(group));
        commit();
    }
    return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
    if (begin(C_Cart_create, t0)) {
        R.now.comm = comm_id(comm);
        push(new_comm(*newcomm));
        push(reorder != 0);
        push(ndims);
        for (int i = 0; i < ndims; i++)
            push(dims[i]);
        for (int i = 0; i < ndims; i++)
            push(periods[i] != 0);
        commit();
    }
    return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    stamp_t t0 = stamp();
    int rc = PMPI_Cart_sub(comm, remain_dims, newcomm);
    if (begin(C_Cart_sub, t0)) {
        R.now.comm = comm_id(comm);
        push(new_comm(*newcomm));
        for (int i = 0; i < ndims; i++)
            push(remain_dims[i] != 0);
        commit();
    }
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    MPI_Comm old = *comm;
    stamp_t t0 = stamp();
    int rc = PMPI_Comm_free(comm);
    if (begin(C_Comm_free, t0)) {
        R.now.comm = comm_id(old);
        commit();
    }
    drop_handle(&R.comms, (int64_t)old);
    return rc;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Comm_group(comm, group);
    if (begin(C_Comm_group, t0)) {
        R.now.comm = comm_id(comm);
        push(add_handle(&R.groups, (int64_t)*group));
        commit();
    }
    return rc;
}

static void group_pick(enum call call, stamp_t t0, MPI_Group group, int n, const int ranks[], MPI_Group made)
{
    if (begin(call, t0)) {
        push(add_handle(&R.groups, (int64_t)made));
        push(group_id(group));
        for (int i = 0; i < n; i++)
            push(ranks[i]);
        commit();
    }
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Group_incl(group, n, ranks, newgroup);
    group_pick(C_Group_incl, t0, group, n, ranks, *newgroup);
    return rc;
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Group_excl(group, n, ranks, newgroup);
    group_pick(C_Group_excl, t0, group, n, ranks, *newgroup);
    return rc;
}

#define GROUP_SET(name) \
    int MPI_Group_##name(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_Group_##name(group1, group2, newgroup); \
        if (begin(C_Group_##name, t0)) { \
            push(add_handle(&R.groups, (int64_t)*newgroup)); \
            push(group_id(group1)); \
            push(group_id(group2)); \
            commit(); \
        } \
        return rc; \
    }

GROUP_SET(union)
GROUP_SET(intersection)
GROUP_SET(difference)

int MPI_Group_free(MPI_Group *group)
{
    MPI_Group old = *group;
    stamp_t t0 = stamp();
    int rc = PMPI_Group_free(group);
    if (begin(C_Group_free, t0)) {
        push(group_id(old));
        commit();
    }
    drop_handle(&R.groups, (int64_t)old);
    return rc;
}

int MPI_Op_create(MPI_User_function *function, int commute, MPI_Op *op)
{
    stamp_t t0 = stamp();
    int rc = PMPI_Op_create(function, commute, op);
    if (begin(C_Op_create, t0)) {
        R.now.op = add_handle(&R.ops, (int64_t)*op);
        R.now.flag = commute != 0;
        commit();
    }
    return rc;
}

int MPI_Op_free(MPI_Op *op)
{
    MPI_Op old = *op;
    stamp_t t0 = stamp();
    int rc = PMPI_Op_free(op);
    if (begin(C_Op_free, t0)) {
        R.now.op = op_id(old);
        commit();
    }
    drop_handle(&R.ops, (int64_t)old);
    return rc;
}


/* ---- calls the op stream cannot express: recorded by name only --------------------------------- */
#define UNSUPPORTED(name, params, args) \
    int MPI_##name params \
    { \
        stamp_t t0 = stamp(); \
        int rc = PMPI_##name args; \
        plain(C_##name, t0); \
        return rc; \
    }

UNSUPPORTED(Send_init, (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request), (buf, count, type, dest, tag, comm, request))
UNSUPPORTED(Recv_init, (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                        MPI_Request *request), (buf, count, type, source, tag, comm, request))
UNSUPPORTED(Start, (MPI_Request *request), (request))
UNSUPPORTED(Startall, (int count, MPI_Request requests[]), (count, requests))
UNSUPPORTED(Request_free, (MPI_Request *request), (request))
UNSUPPORTED(Cancel, (MPI_Request *request), (request))
UNSUPPORTED(Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm), (sendbuf, recvbuf, recvcount, type, op, comm))
UNSUPPORTED(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm),
            (comm, split_type, key, info, newcomm))
UNSUPPORTED(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),
            (comm, group, tag, newcomm))
UNSUPPORTED(Intercomm_create, (MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader, int tag,
                               MPI_Comm *newcomm), (local, local_leader, peer, remote_leader, tag, newcomm))
UNSUPPORTED(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newcomm), (intercomm, high, newcomm))
UNSUPPORTED(Dist_graph_create_adjacent, (MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                         int outdegree, const int destinations[], const int destweights[],
                                         MPI_Info info, int reorder, MPI_Comm *newcomm),
            (comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, newcomm))
UNSUPPORTED(Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
            (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
UNSUPPORTED(Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                         MPI_Comm *intercomm, int errcodes[]), (command, argv, maxprocs, info, root, comm, intercomm,
                                                                errcodes))
UNSUPPORTED(Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),
            (base, size, disp_unit, info, comm, win))
UNSUPPORTED(Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
            (size, disp_unit, info, comm, base, win))
UNSUPPORTED(Win_fence, (int assertion, MPI_Win win), (assertion, win))
UNSUPPORTED(Win_free, (MPI_Win *win), (win))
UNSUPPORTED(Put, (const void *origin, int origin_count, MPI_Datatype origin_type, int target_rank,
                  MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win),
            (origin, origin_count, origin_type, target_rank, target_disp, target_count, target_type, win))
UNSUPPORTED(Get, (void *origin, int origin_count, MPI_Datatype origin_type, int target_rank,
                  MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win),
            (origin, origin_count, origin_type, target_rank, target_disp, target_count, target_type, win))
UNSUPPORTED(Accumulate, (const void *origin, int origin_count, MPI_Datatype origin_type, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win),
            (origin, origin_count, origin_type, target_rank, target_disp, target_count, target_type, op, win))
UNSUPPORTED(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh),
            (comm, filename, amode, info, fh))
UNSUPPORTED(File_close, (MPI_File *fh), (fh))
