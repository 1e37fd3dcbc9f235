"""cffi (ABI mode) binding of SST-DUMPI's trace parser, ``libundumpi``.

The shared library is the one built into the ``pydumpi`` wheel
(``pydumpi/lib/libundumpi.so.8.0.0``); only the library file is used, not that
package's Python layer.  The declarations below were written from the public
sst-dumpi headers (https://github.com/sstsimulator/sst-dumpi,
``dumpi/common/{types,argtypes,funclabels,constants}.h``,
``dumpi/libundumpi/{libundumpi,bindings}.h``) of the release that matches
library version 8 (commit 1e94511^).  Two facts of that ABI matter here:

* function ids follow ``enum dumpi_function``: 282 MPI functions (0..281, with
  ``MPI_Pcontrol`` = 128, which DUMPI never records and has no reader), then
  8 ``MPIO_*`` request functions (282..289), ``DUMPI_ALL_FUNCTIONS`` = 290,
  ``Function_enter``/``exit`` = 291/292 and ``DUMPI_END_OF_STREAM`` = 293;
* the library aborts the process (``assert``) on a malformed file, so
  :func:`check_trace_file` validates a file's index and footer before the
  library sees it.

All integers in a DUMPI file are big-endian.
"""
from __future__ import annotations

import contextlib
import functools
import glob
import importlib.util
import os
import struct

from cffi import FFI

from ppt.errors import TraceError

ALL_FUNCTIONS = 290        # DUMPI_ALL_FUNCTIONS: number of traced functions
FUNCTION_ENTER, FUNCTION_EXIT = 291, 292   # user-function profiling records
END_OF_STREAM = 293        # DUMPI_END_OF_STREAM: size of the handler table

HEAD_MAGIC = 0xFFAADD44554D5049   # first and index-record magic (io.c)
FOOT_MAGIC = 0xF007FEE7           # footer magic (io.c)
INDEX_BYTES = 8 * 8               # magic + sizelbl, addrlbl, perflbl, header, body, footer, keyval
FOOTER_BYTES = 8 + 2 * 4 * (ALL_FUNCTIONS + 1)   # magic + call and ignored counts

# Handles predefined by DUMPI (dumpi/common/constants.h).
ANY_SOURCE = -1
ANY_TAG = -1
ROOT = -2
COMM_NULL, COMM_WORLD, COMM_SELF = 1, 2, 3
GROUP_NULL, GROUP_EMPTY = 1, 2
REQUEST_NULL = 1

_CDEF = """
typedef int16_t dumpi_comm, dumpi_datatype, dumpi_group, dumpi_op, dumpi_threadlevel, dumpi_topology;
typedef int8_t dumpi_ordering, dumpi_comparison;
typedef int32_t dumpi_request, dumpi_source, dumpi_dest, dumpi_tag;

typedef struct { int32_t bytes, source, tag; int8_t cancelled, error; } dumpi_status;
typedef struct { int32_t sec, nsec; } dumpi_clock;
typedef struct { dumpi_clock start, stop; } dumpi_time;
typedef struct dumpi_profile dumpi_profile;          /* used through pointers only */
typedef struct dumpi_perfinfo dumpi_perfinfo;        /* used through pointers only */

typedef struct {
    char version[3]; uint64_t starttime; char *hostname; char *username;
    int meshdim; int *meshcrd; int *meshsize;
} dumpi_header;
typedef struct { uint32_t call_count[291]; uint32_t ignored_count[291]; } dumpi_footer;
typedef struct { dumpi_datatype count; int *size; } dumpi_sizeof;

typedef int (*libundumpi_unsafe_fun)(const void *prm, uint16_t thread, const dumpi_time *cpu,
                                     const dumpi_time *wall, const dumpi_perfinfo *perf,
                                     void *userarg);
typedef int (*libdumpi_do_callback)(dumpi_profile *profile, libundumpi_unsafe_fun callout,
                                    void *userarg);
typedef struct { libdumpi_do_callback handler; libundumpi_unsafe_fun callout; } libundumpi_cbpair;
/* 291 callback pointers (no MPI_Pcontrol slot, plus function enter/exit); only
   ever passed zeroed to libundumpi_populate_handlers. */
typedef struct { libundumpi_unsafe_fun on[291]; } libundumpi_callbacks;

dumpi_profile *undumpi_open(const char *fname);
void undumpi_close(dumpi_profile *profile);
dumpi_header *undumpi_read_header(dumpi_profile *profile);
void dumpi_free_header(dumpi_header *header);
dumpi_footer *undumpi_read_footer(dumpi_profile *profile);
void dumpi_free_footer(dumpi_footer *footer);
dumpi_sizeof undumpi_read_datatype_sizes(dumpi_profile *profile);
int dumpi_start_stream_read(dumpi_profile *profile);
int undumpi_read_single_call(dumpi_profile *profile, libundumpi_cbpair *callarr,
                             void *userarg, int *mpi_finalized);
void libundumpi_populate_handlers(const libundumpi_callbacks *callback,
                                  libundumpi_cbpair *callarr);
const char *dumpi_function_label(int func);
void free(void *ptr);

/* The leading fields of struct dumpi_profile (dumpi/common/iodefs.h): the open
   file and the section offsets the library took from the index record. */
typedef struct {
    void *file; int32_t cpu_time_offset, wall_time_offset;
    int64_t header, body, footer, keyval, perflbl, addrlbl, sizelbl; char version[3];
} dumpi_profile_fields;
int64_t ftello(void *stream);

/* Arguments of the calls that are decoded (dumpi/common/argtypes.h). */
typedef struct { int count; dumpi_datatype datatype; dumpi_dest dest; dumpi_tag tag;
                 dumpi_comm comm; } dumpi_send;
typedef struct { int count; dumpi_datatype datatype; dumpi_source source; dumpi_tag tag;
                 dumpi_comm comm; dumpi_status *status; } dumpi_recv;
typedef struct { dumpi_status *status; dumpi_datatype datatype; int count; } dumpi_get_count;
typedef struct { int count; dumpi_datatype datatype; dumpi_dest dest; dumpi_tag tag;
                 dumpi_comm comm; dumpi_request request; } dumpi_isend;
typedef struct { int count; dumpi_datatype datatype; dumpi_source source; dumpi_tag tag;
                 dumpi_comm comm; dumpi_request request; } dumpi_irecv;
typedef struct { dumpi_request request; dumpi_status *status; } dumpi_wait;
typedef struct { dumpi_request request; int flag; dumpi_status *status; } dumpi_test;
typedef struct { dumpi_request request; } dumpi_request_free;
typedef struct { int count; dumpi_request *requests; int index; dumpi_status *status; } dumpi_waitany;
typedef struct { int count; dumpi_request *requests; int index; int flag;
                 dumpi_status *status; } dumpi_testany;
typedef struct { int count; dumpi_request *requests; dumpi_status *statuses; } dumpi_waitall;
typedef struct { int count; dumpi_request *requests; int flag; dumpi_status *statuses; } dumpi_testall;
typedef struct { int count; dumpi_request *requests; int outcount; int *indices;
                 dumpi_status *statuses; } dumpi_waitsome;
typedef struct { dumpi_source source; dumpi_tag tag; dumpi_comm comm; int flag;
                 dumpi_status *status; } dumpi_iprobe;
typedef struct { dumpi_source source; dumpi_tag tag; dumpi_comm comm; dumpi_status *status; } dumpi_probe;
typedef struct { int count; dumpi_request *requests; } dumpi_startall;
typedef struct { int sendcount; dumpi_datatype sendtype; dumpi_dest dest; dumpi_tag sendtag;
                 int recvcount; dumpi_datatype recvtype; dumpi_source source; dumpi_tag recvtag;
                 dumpi_comm comm; dumpi_status *status; } dumpi_sendrecv;
typedef struct { int count; dumpi_datatype datatype; dumpi_dest dest; dumpi_tag sendtag;
                 dumpi_source source; dumpi_tag recvtag; dumpi_comm comm;
                 dumpi_status *status; } dumpi_sendrecv_replace;

typedef struct { dumpi_comm comm; } dumpi_barrier;
typedef struct { int count; dumpi_datatype datatype; int root; dumpi_comm comm; } dumpi_bcast;
typedef struct { int commrank; int sendcount; dumpi_datatype sendtype; int recvcount;
                 dumpi_datatype recvtype; int root; dumpi_comm comm; } dumpi_gather;
typedef struct { int commrank; int commsize; int sendcount; dumpi_datatype sendtype;
                 int *recvcounts; int *displs; dumpi_datatype recvtype; int root;
                 dumpi_comm comm; } dumpi_gatherv;
typedef struct { int commrank; int commsize; int *sendcounts; int *displs;
                 dumpi_datatype sendtype; int recvcount; dumpi_datatype recvtype; int root;
                 dumpi_comm comm; } dumpi_scatterv;
typedef struct { int sendcount; dumpi_datatype sendtype; int recvcount; dumpi_datatype recvtype;
                 dumpi_comm comm; } dumpi_allgather;
typedef struct { int commsize; int sendcount; dumpi_datatype sendtype; int *recvcounts;
                 int *displs; dumpi_datatype recvtype; dumpi_comm comm; } dumpi_allgatherv;
typedef struct { int commsize; int *sendcounts; int *senddispls; dumpi_datatype sendtype;
                 int *recvcounts; int *recvdispls; dumpi_datatype recvtype;
                 dumpi_comm comm; } dumpi_alltoallv;
typedef struct { int commsize; int *sendcounts; int *senddispls; dumpi_datatype *sendtypes;
                 int *recvcounts; int *recvdispls; dumpi_datatype *recvtypes;
                 dumpi_comm comm; } dumpi_alltoallw;
typedef struct { int count; dumpi_datatype datatype; dumpi_op op; int root; dumpi_comm comm; } dumpi_reduce;
typedef struct { int count; dumpi_datatype datatype; dumpi_op op; dumpi_comm comm; } dumpi_allreduce;
typedef struct { int commsize; int *recvcounts; dumpi_datatype datatype; dumpi_op op;
                 dumpi_comm comm; } dumpi_reduce_scatter;
typedef struct { int commute; dumpi_op op; } dumpi_op_create;
typedef struct { dumpi_op op; } dumpi_op_free;

typedef struct { dumpi_group group; int size; } dumpi_group_size;
typedef struct { dumpi_group group; int rank; } dumpi_group_rank;
typedef struct { dumpi_group group1; int count; int *ranks1; dumpi_group group2;
                 int *ranks2; } dumpi_group_translate_ranks;
typedef struct { dumpi_group group1; dumpi_group group2; dumpi_comparison result; } dumpi_group_compare;
typedef struct { dumpi_comm comm; dumpi_group group; } dumpi_comm_group;
typedef struct { dumpi_group group1; dumpi_group group2; dumpi_group newgroup; } dumpi_group_union;
typedef struct { dumpi_group group; int count; int *ranks; dumpi_group newgroup; } dumpi_group_incl;
typedef struct { dumpi_group group; } dumpi_group_free;
typedef struct { dumpi_comm comm; int size; } dumpi_comm_size;
typedef struct { dumpi_comm comm; int rank; } dumpi_comm_rank;
typedef struct { dumpi_comm comm1; dumpi_comm comm2; dumpi_comparison result; } dumpi_comm_compare;
typedef struct { dumpi_comm oldcomm; dumpi_comm newcomm; } dumpi_comm_dup;
typedef struct { dumpi_comm oldcomm; dumpi_group group; dumpi_comm newcomm; } dumpi_comm_create;
typedef struct { dumpi_comm oldcomm; int color; int key; dumpi_comm newcomm; } dumpi_comm_split;
typedef struct { dumpi_comm comm; } dumpi_comm_free;
typedef struct { dumpi_comm localcomm; int localleader; dumpi_comm remotecomm; int remoteleader;
                 dumpi_tag tag; dumpi_comm newcomm; } dumpi_intercomm_create;
typedef struct { dumpi_comm comm; int high; dumpi_comm newcomm; } dumpi_intercomm_merge;

typedef struct { dumpi_comm comm; dumpi_topology topo; } dumpi_topo_test;
typedef struct { dumpi_comm oldcomm; int ndim; int *dims; int *periods; int reorder;
                 dumpi_comm newcomm; } dumpi_cart_create;
typedef struct { int nodes; int ndim; int *dims_in; int *dims_out; } dumpi_dims_create;
typedef struct { dumpi_comm comm; int ndim; } dumpi_cartdim_get;
typedef struct { int ndim; dumpi_comm comm; int maxdims; int *dims; int *periods;
                 int *coords; } dumpi_cart_get;
typedef struct { int ndim; dumpi_comm comm; int *coords; int rank; } dumpi_cart_rank;
typedef struct { int ndim; dumpi_comm comm; int rank; int maxdims; int *coords; } dumpi_cart_coords;
typedef struct { dumpi_comm comm; int direction; int displ; dumpi_source source;
                 dumpi_dest dest; } dumpi_cart_shift;
typedef struct { int ndim; dumpi_comm oldcomm; int *remain_dims; dumpi_comm newcomm; } dumpi_cart_sub;

typedef struct { int argc; char **argv; } dumpi_init;
typedef struct { int argc; char **argv; dumpi_threadlevel required;
                 dumpi_threadlevel provided; } dumpi_init_thread;
typedef struct { int result; } dumpi_initialized;
typedef struct { dumpi_comm comm; int errorcode; } dumpi_abort;

typedef struct { int count; dumpi_datatype oldtype; dumpi_datatype newtype; } dumpi_type_contiguous;
typedef struct { int count; int blocklength; int stride; dumpi_datatype oldtype;
                 dumpi_datatype newtype; } dumpi_type_vector;
typedef struct { int count; int *lengths; int *indices; dumpi_datatype oldtype;
                 dumpi_datatype newtype; } dumpi_type_indexed;
typedef struct { int count; int *lengths; int *indices; dumpi_datatype *oldtypes;
                 dumpi_datatype newtype; } dumpi_type_struct;
typedef struct { dumpi_datatype datatype; int size; } dumpi_type_size;
typedef struct { dumpi_datatype datatype; int extent; } dumpi_type_extent;
typedef struct { dumpi_datatype datatype; } dumpi_type_commit;
typedef struct { dumpi_datatype oldtype; dumpi_datatype newtype; } dumpi_type_dup;
typedef struct { int count; int blocklength; int *displacements; dumpi_datatype oldtype;
                 dumpi_datatype newtype; } dumpi_type_create_indexed_block;
typedef struct { dumpi_datatype oldtype; int lb; int extent; dumpi_datatype newtype; } dumpi_type_create_resized;
typedef struct { int ndims; int *sizes; int *subsizes; int *starts; dumpi_ordering order;
                 dumpi_datatype oldtype; dumpi_datatype newtype; } dumpi_type_create_subarray;
typedef struct { dumpi_datatype datatype; int lb; int extent; } dumpi_type_get_extent;
"""

ffi = FFI()
ffi.cdef(_CDEF)


def _library_path() -> str:
    spec = importlib.util.find_spec("pydumpi")
    if spec is None or not spec.submodule_search_locations:
        raise TraceError("libundumpi not found: install the 'pydumpi' package, which ships it "
                         "(pip install pydumpi)")
    for folder in spec.submodule_search_locations:
        found = sorted(glob.glob(os.path.join(folder, "lib", "libundumpi.so*")))
        if found:
            return found[0]
    raise TraceError("the installed 'pydumpi' package has no lib/libundumpi.so; "
                     "reinstall it (pip install --force-reinstall pydumpi)")


@functools.lru_cache(maxsize=None)
def library():
    """The loaded libundumpi (loaded once per process)."""
    return ffi.dlopen(_library_path())


@functools.lru_cache(maxsize=None)
def _libc():
    return ffi.dlopen(None)


def profile_fields(profile):
    """The open file and section offsets of a profile (``dumpi_profile_fields *``)."""
    return ffi.cast("dumpi_profile_fields *", profile)


def tell(profile_file) -> int:
    """Byte position of the library's read cursor in a profile's file."""
    return _libc().ftello(profile_file)


@functools.lru_cache(maxsize=None)
def function_labels() -> dict:
    """Label ("MPI_Send", ..., "MPIO_Testsome", "MPI_Function_enter") per function id, from the library."""
    lib = library()
    ids = [*range(ALL_FUNCTIONS), FUNCTION_ENTER, FUNCTION_EXIT]
    return {i: ffi.string(lib.dumpi_function_label(i)).decode() for i in ids}


def new_handler_table():
    """A ``libundumpi_cbpair[END_OF_STREAM]`` with the library's record readers filled in."""
    callarr = ffi.new("libundumpi_cbpair[]", END_OF_STREAM)
    library().libundumpi_populate_handlers(ffi.new("libundumpi_callbacks *"), callarr)
    return callarr


def check_trace_file(path: str, rank=None) -> None:
    """Validate the magic, index record and footer of one rank's ``.bin``.

    Raises :class:`TraceError` (naming the file, ``rank`` and byte offset) for a
    missing, unreadable, truncated or foreign file, so the library (which aborts on
    such input) only ever sees well-formed files.
    """
    where = f"{path}: rank {rank if rank is not None else '?'}, byte offset"

    def bad(offset, what):
        return TraceError(f"{where} {offset}: {what}; copy the whole trace set again")

    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 8 + INDEX_BYTES + FOOTER_BYTES:
                raise bad(size, f"the file is truncated ({size} bytes, too short for a DUMPI trace)")
            (head,) = struct.unpack(">Q", f.read(8))
            if head != HEAD_MAGIC:
                raise bad(0, "not a DUMPI trace file (bad magic), or damaged")
            f.seek(size - INDEX_BYTES)
            magic, *positions = struct.unpack(">8Q", f.read(INDEX_BYTES))
            header, body, footer = positions[3:6]
            if magic != HEAD_MAGIC or min(header, body, footer) <= 0 \
                    or any(p >= size for p in positions) \
                    or not body < header < footer < size - INDEX_BYTES \
                    or footer + FOOTER_BYTES > size - INDEX_BYTES:
                raise bad(size - INDEX_BYTES, "the file is truncated or damaged (no valid index record "
                                              "at its end)")
            f.seek(footer)
            (foot,) = struct.unpack(">Q", f.read(8))
            if foot != FOOT_MAGIC:
                raise bad(footer, "the file is damaged (footer magic missing)")
    except OSError as exc:
        raise TraceError(f"cannot read trace file {path}: {exc.strerror}") from None


@contextlib.contextmanager
def _stderr_silenced():
    """Send file descriptor 2 to /dev/null (the library prints a version warning per file)."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_profile(path: str):
    """Open a validated ``.bin`` with the library; the caller closes it with :func:`close_profile`."""
    check_trace_file(path)
    with _stderr_silenced():
        profile = library().undumpi_open(os.fsencode(path))
    if profile == ffi.NULL:
        raise TraceError(f"libundumpi cannot open {path}: check that it is a DUMPI trace file")
    return profile


def close_profile(profile) -> None:
    lib = library()
    lib.undumpi_close(profile)   # closes the file only
    lib.free(profile)


def read_footer_counts(profile) -> tuple:
    """The library's per-function call counts (index = function id) from the file's footer."""
    lib = library()
    footer = lib.undumpi_read_footer(profile)
    try:
        return tuple(footer.call_count[0:ALL_FUNCTIONS])
    finally:
        lib.dumpi_free_footer(footer)


def read_datatype_sizes(profile) -> tuple:
    """Size in bytes of every datatype id the rank used (index = DUMPI datatype id)."""
    lib = library()
    sizes = lib.undumpi_read_datatype_sizes(profile)
    try:
        return tuple(ffi.unpack(sizes.size, sizes.count)) if sizes.count > 0 else ()
    finally:
        lib.free(sizes.size)
