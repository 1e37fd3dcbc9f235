"""mpi4py names PPT's simulated MPI does not model, and the one-line error that names them.

:data:`MPI4PY_API` lists every public name of mpi4py 4.1's ``MPI`` module and
classes.  Looking up one of them that the simulated MPI lacks raises an
:class:`~ppt.mpi.errors.UnsupportedCall` (an MPIError, and an AttributeError so
``hasattr`` finds the feature absent) naming the call and what it belongs to
(``MPI.File.Open is not supported by PPT's simulated MPI (MPI-IO)``);
a name mpi4py lacks too raises AttributeError, as Python would.
"""
from __future__ import annotations

from ppt.mpi.errors import UnsupportedCall

#: Public names of mpi4py 4.1.2 (on MPICH), by class; ``Cartcomm`` lists only what Intracomm lacks.
MPI4PY_API = {name: frozenset(text.split()) for name, text in {
    "MPI": """
    AINT ANY_SOURCE ANY_TAG APPNUM Add_error_class Add_error_code Add_error_string Aint_add Aint_diff
    Alloc_mem Attach_buffer BAND BFLOAT16_T BOOL BOR BOTTOM BSEND_OVERHEAD BUFFER_AUTOMATIC BXOR BYTE
    BottomType BufferAutomaticType CART CHAR CHARACTER COMBINER_CONTIGUOUS COMBINER_DARRAY COMBINER_DUP
    COMBINER_F90_COMPLEX COMBINER_F90_INTEGER COMBINER_F90_REAL COMBINER_HINDEXED COMBINER_HINDEXED_BLOCK
    COMBINER_HVECTOR COMBINER_INDEXED COMBINER_INDEXED_BLOCK COMBINER_NAMED COMBINER_RESIZED COMBINER_STRUCT
    COMBINER_SUBARRAY COMBINER_VALUE_INDEX COMBINER_VECTOR COMM_NULL COMM_SELF COMM_TYPE_HW_GUIDED
    COMM_TYPE_HW_UNGUIDED COMM_TYPE_RESOURCE_GUIDED COMM_TYPE_SHARED COMM_WORLD COMPLEX COMPLEX16 COMPLEX32
    COMPLEX4 COMPLEX8 CONGRUENT COUNT CXX_BOOL CXX_DOUBLE_COMPLEX CXX_FLOAT_COMPLEX CXX_LONG_DOUBLE_COMPLEX
    C_BOOL C_COMPLEX C_DOUBLE_COMPLEX C_FLOAT_COMPLEX C_LONG_DOUBLE_COMPLEX Cartcomm Close_port Comm
    Compute_dims DATATYPE_NULL DISPLACEMENT_CURRENT DISP_CUR DISTRIBUTE_BLOCK DISTRIBUTE_CYCLIC
    DISTRIBUTE_DFLT_DARG DISTRIBUTE_NONE DIST_GRAPH DOUBLE DOUBLE_COMPLEX DOUBLE_INT DOUBLE_PRECISION
    Datatype Detach_buffer Distgraphcomm ERRHANDLER_NULL ERRORS_ABORT ERRORS_ARE_FATAL ERRORS_RETURN ERR_ABI
    ERR_ACCESS ERR_AMODE ERR_ARG ERR_ASSERT ERR_BAD_FILE ERR_BASE ERR_BUFFER ERR_COMM ERR_CONVERSION
    ERR_COUNT ERR_DIMS ERR_DISP ERR_DUP_DATAREP ERR_ERRHANDLER ERR_FILE ERR_FILE_EXISTS ERR_FILE_IN_USE
    ERR_GROUP ERR_INFO ERR_INFO_KEY ERR_INFO_NOKEY ERR_INFO_VALUE ERR_INTERN ERR_IN_STATUS ERR_IO ERR_KEYVAL
    ERR_LASTCODE ERR_LOCKTYPE ERR_NAME ERR_NOT_SAME ERR_NO_MEM ERR_NO_SPACE ERR_NO_SUCH_FILE ERR_OP
    ERR_OTHER ERR_PENDING ERR_PORT ERR_PROC_ABORTED ERR_PROC_FAILED ERR_PROC_FAILED_PENDING ERR_QUOTA
    ERR_RANK ERR_READ_ONLY ERR_REQUEST ERR_REVOKED ERR_RMA_ATTACH ERR_RMA_CONFLICT ERR_RMA_FLAVOR
    ERR_RMA_RANGE ERR_RMA_SHARED ERR_RMA_SYNC ERR_ROOT ERR_SERVICE ERR_SESSION ERR_SIZE ERR_SPAWN ERR_TAG
    ERR_TOPOLOGY ERR_TRUNCATE ERR_TYPE ERR_UNKNOWN ERR_UNSUPPORTED_DATAREP ERR_UNSUPPORTED_OPERATION
    ERR_VALUE_TOO_LARGE ERR_WIN Errhandler Exception FILE_NULL FLOAT FLOAT16_T FLOAT32_T FLOAT64_T FLOAT_INT
    F_BOOL F_COMPLEX F_DOUBLE F_DOUBLE_COMPLEX F_ERROR F_FLOAT F_FLOAT_COMPLEX F_INT F_SOURCE F_STATUS_SIZE
    F_TAG File Finalize Flush_buffer Free_mem GRAPH GROUP_EMPTY GROUP_NULL Get_abi_fortran_info Get_abi_info
    Get_abi_version Get_address Get_error_class Get_error_string Get_hw_resource_info Get_library_version
    Get_processor_name Get_version Graphcomm Grequest Group IDENT INFO_ENV INFO_NULL INT INT16_T INT32_T
    INT64_T INT8_T INTEGER INTEGER1 INTEGER16 INTEGER2 INTEGER4 INTEGER8 INT_INT IN_PLACE IO Iflush_buffer
    InPlaceType Info Init Init_thread Intercomm Intracomm Is_finalized Is_initialized Is_thread_main
    KEYVAL_INVALID LAND LASTUSEDCODE LOCK_EXCLUSIVE LOCK_SHARED LOGICAL LOGICAL1 LOGICAL16 LOGICAL2 LOGICAL4
    LOGICAL8 LONG LONG_DOUBLE LONG_DOUBLE_INT LONG_INT LONG_LONG LOR LXOR Lookup_name MAX MAXLOC
    MAX_DATAREP_STRING MAX_ERROR_STRING MAX_INFO_KEY MAX_INFO_VAL MAX_LIBRARY_VERSION_STRING MAX_OBJECT_NAME
    MAX_PORT_NAME MAX_PROCESSOR_NAME MAX_PSET_NAME_LEN MAX_STRINGTAG_LEN MESSAGE_NO_PROC MESSAGE_NULL MIN
    MINLOC MODE_APPEND MODE_CREATE MODE_DELETE_ON_CLOSE MODE_EXCL MODE_NOCHECK MODE_NOPRECEDE MODE_NOPUT
    MODE_NOSTORE MODE_NOSUCCEED MODE_RDONLY MODE_RDWR MODE_SEQUENTIAL MODE_UNIQUE_OPEN MODE_WRONLY Message
    NO_OP OFFSET OP_NULL ORDER_C ORDER_F ORDER_FORTRAN Op Open_port PACKED PROC_NULL PROD Pcontrol Pickle
    Prequest Publish_name Query_thread REAL REAL16 REAL2 REAL4 REAL8 REPLACE REQUEST_NULL ROOT
    Register_datarep Remove_error_class Remove_error_code Remove_error_string Request SEEK_CUR SEEK_END
    SEEK_SET SESSION_NULL SHORT SHORT_INT SIGNED_CHAR SIGNED_INT SIGNED_LONG SIGNED_LONG_LONG SIGNED_SHORT
    SIMILAR SINT16_T SINT32_T SINT64_T SINT8_T SUBVERSION SUCCESS SUM Session Status TAG_UB THREAD_FUNNELED
    THREAD_MULTIPLE THREAD_SERIALIZED THREAD_SINGLE TWOINT TYPECLASS_COMPLEX TYPECLASS_INTEGER
    TYPECLASS_LOGICAL TYPECLASS_REAL Topocomm UINT16_T UINT32_T UINT64_T UINT8_T UNDEFINED UNEQUAL
    UNIVERSE_SIZE UNSIGNED UNSIGNED_CHAR UNSIGNED_INT UNSIGNED_LONG UNSIGNED_LONG_LONG UNSIGNED_SHORT
    UNWEIGHTED Unpublish_name VERSION WCHAR WEIGHTS_EMPTY WIN_BASE WIN_CREATE_FLAVOR WIN_DISP_UNIT
    WIN_FLAVOR WIN_FLAVOR_ALLOCATE WIN_FLAVOR_CREATE WIN_FLAVOR_DYNAMIC WIN_FLAVOR_SHARED WIN_MODEL WIN_NULL
    WIN_SEPARATE WIN_SIZE WIN_UNIFIED WTIME_IS_GLOBAL Win Wtick Wtime buffer get_vendor memory pickle""",
    "Comm": """
    Abort Accept Ack_failed Agree Allgather Allgather_init Allgatherv Allgatherv_init Allreduce
    Allreduce_init Alltoall Alltoall_init Alltoallv Alltoallv_init Alltoallw Alltoallw_init Attach_buffer
    Barrier Barrier_init Bcast Bcast_init Bsend Bsend_init Call_errhandler Cart_map Clone Compare Connect
    Create Create_cart Create_dist_graph Create_dist_graph_adjacent Create_errhandler Create_from_group
    Create_graph Create_group Create_intercomm Create_keyval Delete_attr Detach_buffer Disconnect Dup
    Dup_with_info Exscan Exscan_init Flush_buffer Free Free_keyval Gather Gather_init Gatherv Gatherv_init
    Get_attr Get_errhandler Get_failed Get_group Get_info Get_name Get_parent Get_rank Get_size Get_topology
    Graph_map Iagree Iallgather Iallgatherv Iallreduce Ialltoall Ialltoallv Ialltoallw Ibarrier Ibcast
    Ibsend Idup Idup_with_info Iexscan Iflush_buffer Igather Igatherv Improbe Iprobe Irecv Ireduce
    Ireduce_scatter Ireduce_scatter_block Irsend Is_inter Is_intra Is_revoked Iscan Iscatter Iscatterv Isend
    Isendrecv Isendrecv_replace Ishrink Issend Join Mprobe Precv_init Probe Psend_init Recv Recv_init Reduce
    Reduce_init Reduce_scatter Reduce_scatter_block Reduce_scatter_block_init Reduce_scatter_init Revoke
    Rsend Rsend_init Scan Scan_init Scatter Scatter_init Scatterv Scatterv_init Send Send_init Sendrecv
    Sendrecv_replace Set_attr Set_errhandler Set_info Set_name Shrink Spawn Spawn_multiple Split Split_type
    Ssend Ssend_init allgather allreduce alltoall barrier bcast bsend exscan f2py free fromhandle fromint
    gather group handle ibsend improbe info iprobe irecv is_inter is_intra is_topo isend issend mprobe name
    probe py2f rank recv reduce scan scatter send sendrecv size ssend toint topology""",
    "Cartcomm": """
    Get_cart_rank Get_coords Get_dim Get_topo Ineighbor_allgather Ineighbor_allgatherv Ineighbor_alltoall
    Ineighbor_alltoallv Ineighbor_alltoallw Neighbor_allgather Neighbor_allgather_init Neighbor_allgatherv
    Neighbor_allgatherv_init Neighbor_alltoall Neighbor_alltoall_init Neighbor_alltoallv
    Neighbor_alltoallv_init Neighbor_alltoallw Neighbor_alltoallw_init Shift Sub coords degrees dim dims
    indegree inedges inoutedges ndim neighbor_allgather neighbor_alltoall outdegree outedges periods topo""",
    "Group": """
    Compare Create_from_session_pset Difference Dup Excl Free Get_rank Get_size Incl Intersect Intersection
    Range_excl Range_incl Translate_ranks Union f2py free fromhandle fromint handle py2f rank size toint""",
    "Status": """
    Get_count Get_elements Get_error Get_source Get_tag Is_cancelled Set_cancelled Set_elements Set_error
    Set_source Set_tag cancelled count error f2py py2f source tag tomemory""",
    "Request": """
    Cancel Free Get_status Get_status_all Get_status_any Get_status_some Parrived Pready Pready_list
    Pready_range Start Startall Test Testall Testany Testsome Wait Waitall Waitany Waitsome cancel f2py free
    fromhandle fromint get_status get_status_all get_status_any get_status_some handle py2f test testall
    testany testsome toint wait waitall waitany waitsome""",
    "Datatype": """
    Commit Create_contiguous Create_darray Create_dup Create_f90_complex Create_f90_integer Create_f90_real
    Create_hindexed Create_hindexed_block Create_hvector Create_indexed Create_indexed_block Create_keyval
    Create_resized Create_struct Create_subarray Create_vector Delete_attr Dup Free Free_keyval Get_attr
    Get_contents Get_envelope Get_extent Get_name Get_size Get_true_extent Get_value_index Match_size Pack
    Pack_external Pack_external_size Pack_size Resized Set_attr Set_name Unpack Unpack_external combiner
    contents decode envelope extent f2py free fromcode fromhandle fromint handle is_named is_predefined lb
    name py2f size tocode toint true_extent true_lb true_ub typechar typestr ub""",
    "Op": """
    Create Free Is_commutative Reduce_local f2py free fromhandle fromint handle is_commutative is_predefined
    py2f toint""",
    "Message": """
    Iprobe Irecv Probe Recv f2py free fromhandle fromint handle iprobe irecv probe py2f recv toint""",
    "Win": """
    Accumulate Allocate Allocate_shared Attach Call_errhandler Compare_and_swap Complete Create Create_dynamic
    Create_errhandler Create_keyval Delete_attr Detach Fence Fetch_and_op Flush Flush_all Flush_local
    Flush_local_all Free Free_keyval Get Get_accumulate Get_attr Get_errhandler Get_group Get_info Get_name Lock
    Lock_all Post Put Raccumulate Rget Rget_accumulate Rput Set_attr Set_errhandler Set_info Set_name
    Shared_query Start Sync Test Unlock Unlock_all Wait attrs f2py flavor free fromhandle fromint group
    group_rank group_size handle info model name py2f toint tomemory""",
}.items()}

#: Which part of MPI a name belongs to, for the error message: (name prefixes or names, what).
_AREAS = [
    (("Win", "WIN_", "LOCK_", "MODE_NO", "Alloc_mem", "Free_mem"), "RMA windows"),
    (("File", "FILE_", "MODE_", "SEEK_", "DISP", "Register_datarep", "MAX_DATAREP", "IO",
      "DISTRIBUTE_", "ORDER_"), "MPI-IO"),
    (("Spawn", "Get_parent", "Accept", "Connect", "Join", "Disconnect", "Open_port", "Close_port",
      "Publish_name", "Lookup_name", "Unpublish_name", "APPNUM", "UNIVERSE_SIZE", "MAX_PORT_NAME"),
     "dynamic process management"),
    (("Session", "SESSION_", "Create_from", "MAX_PSET"), "MPI sessions"),
    (("Graph", "Distgraph", "Create_graph", "Create_dist_graph", "Neighbor", "Ineighbor", "neighbor",
      "DIST_GRAPH", "GRAPH", "UNWEIGHTED", "WEIGHTS_EMPTY", "Cart_map", "Graph_map", "degrees", "indegree",
      "outdegree", "inedges", "outedges", "inoutedges"), "graph topologies"),
    (("Psend_init", "Precv_init", "Parrived", "Pready"), "partitioned communication"),
    (("Send_init", "Recv_init", "Bsend_init", "Ssend_init", "Rsend_init", "Start"), "persistent requests"),
    (("Agree", "Iagree", "Revoke", "Is_revoked", "Shrink", "Ishrink", "Ack_failed", "Get_failed"),
     "fault tolerance (ULFM)"),
    (("Info", "INFO_"), "info objects"),
    (("Errhandler", "ERRHANDLER_", "Create_errhandler", "Call_errhandler", "Add_error", "Remove_error"),
     "error handlers"),
    (("keyval", "Keyval", "KEYVAL_", "_attr"), "attribute caching"),
    (("Cancel", "cancel", "Grequest", "Set_cancelled"), "request cancellation"),
    (("Create_", "Get_contents", "Get_envelope", "contents", "envelope", "decode", "combiner", "COMBINER_",
      "Pack", "Unpack", "Resized", "Match_size", "Get_value_index", "TYPECLASS_", "Get_address", "Aint_"),
     "derived datatypes and packing"),
]


def area(name: str) -> str:
    """What part of MPI ``name`` belongs to (``'RMA windows'``), or a generic phrase."""
    for prefixes, what in _AREAS:
        if any(name.startswith(p) or name.endswith(p) for p in prefixes):
            return what
    return "not modelled"


def unsupported(call: str, rank=None) -> UnsupportedCall:
    """The error for ``call`` (``'MPI.File.Open'``), made on world rank ``rank`` if known: named by the part
    of MPI the call belongs to, else by its class's (``MPI.Win.Sync``: RMA windows)."""
    where = f"rank {rank}: " if rank is not None else ""
    parts = call.split(".")
    what = area(parts[-1] if len(parts) < 3 or parts[1] in MPI4PY_API else parts[1])
    if what == "not modelled" and len(parts) == 3:
        what = area(parts[1])
    return UnsupportedCall(f"{where}{call} is not supported by PPT's simulated MPI ({what}); "
                    "run the program on a real MPI library or leave the call out")


#: Classes whose mpi4py names are those of another listed class.
_SAME_NAMES = {"Prequest": "Request", "Intracomm": "Comm"}


def mpi4py_api(owner: str):
    """mpi4py's public names of class ``owner`` (:data:`MPI4PY_API`), None for a class it does not list."""
    return MPI4PY_API.get(_SAME_NAMES.get(owner, owner))


def refuse(owner: str, name: str, rank=None):
    """Fail a lookup of ``name`` on ``owner`` (a key of :data:`MPI4PY_API`, or an mpi4py class the
    simulation lacks such as ``'File'``): MPIError if mpi4py has the name, else AttributeError."""
    known = mpi4py_api(owner)
    if known is None:
        raise AttributeError(f"{owner!r} object has no attribute {name!r}")
    if owner == "Cartcomm" and name in MPI4PY_API["Comm"]:
        known = MPI4PY_API["Comm"]
    if name in known:
        raise unsupported(f"MPI.{owner}.{name}" if owner != "MPI" else f"MPI.{name}", rank)
    raise AttributeError(f"module 'mpi4py.MPI' has no attribute {name!r}" if owner == "MPI"
                         else f"{owner!r} object has no attribute {name!r}")


class Refusing(type):
    """Metaclass of the simulated MPI's mpi4py classes: a class-level lookup of an mpi4py name the class
    lacks (``MPI.Comm.Get_parent()``) fails in one line as an instance's does."""

    def __getattr__(cls, name):
        if name.startswith("_"):
            raise AttributeError(f"type object {cls.__name__!r} has no attribute {name!r}")
        return refuse(cls.__name__, name)


class Unsupported:
    """A class of mpi4py the simulation lacks (``MPI.File``): using it or any attribute raises the error."""

    __slots__ = ("_name", "_rank")

    def __init__(self, name: str, rank=None):
        self._name = name
        self._rank = rank

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise unsupported(f"MPI.{self._name}.{attr}", self._rank)

    def __call__(self, *args, **kwargs):
        raise unsupported(f"MPI.{self._name}", self._rank)

    def __repr__(self):
        return f"<unsupported MPI.{self._name}>"
