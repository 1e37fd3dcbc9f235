"""MPI's special rank, tag and colour values: mpi4py's names, MPICH's values (so programs print the same)."""

#: Receive from any source (``recv``, ``irecv``, ``probe``).
ANY_SOURCE = -2
#: Receive with any tag.
ANY_TAG = -1
#: The null process: sends and receives with it complete at once and move no data.
PROC_NULL = -1
#: "No such rank / index" (``Group.rank`` outside the group, ``split`` colour for no communicator,
#: ``waitany`` on inactive requests).
UNDEFINED = -32766

#: Comm.Compare / Group.Compare results: same object, same ranks in the same order, the same ranks, other.
IDENT, CONGRUENT, SIMILAR, UNEQUAL = 0, 1, 2, 3
#: The root of an intercommunicator collective, in its own group (mpi4py's MPI.ROOT).
ROOT = -3
#: Topology kinds (Comm.Get_topology): a Cartesian communicator; UNDEFINED for none.
CART, GRAPH, DIST_GRAPH = 1, 2, 3
#: Largest tag value (the MPI_TAG_UB attribute of MPICH).
TAG_UB_VALUE = 2**29 - 1
#: Keys of the predefined communicator attributes (Comm.Get_attr), MPICH's values, by mpi4py name.
KEYVALS = {"TAG_UB": 0x64400001, "HOST": 0x64400003, "IO": 0x64400005, "WTIME_IS_GLOBAL": 0x64400007,
           "UNIVERSE_SIZE": 0x64400009, "APPNUM": 0x6440000d}

#: Size of a rendezvous control message (RTS, CTS) on the wire, bytes.
CONTROL_B = 64

#: Send modes (the compiled engine's numbers): standard (eager up to the threshold), synchronous (rendezvous
#: at any size: completes once the receive has matched), buffered (eager at any size: completes locally).
STANDARD, SYNC, BUFFERED = range(3)
#: Communicator ids of COMM_WORLD and COMM_SELF.
WORLD_ID, SELF_ID = 0, 1

#: RMA (one-sided communication), MPICH's values by mpi4py name: lock types, assertions (MPI_MODE_*), window
#: flavors and memory models, and the keys of the window attributes (Win.Get_attr).
RMA = {"LOCK_EXCLUSIVE": 234, "LOCK_SHARED": 235,
       "MODE_NOCHECK": 1024, "MODE_NOSTORE": 2048, "MODE_NOPUT": 4096, "MODE_NOPRECEDE": 8192,
       "MODE_NOSUCCEED": 16384,
       "WIN_FLAVOR_CREATE": 1, "WIN_FLAVOR_ALLOCATE": 2, "WIN_FLAVOR_DYNAMIC": 3, "WIN_FLAVOR_SHARED": 4,
       "WIN_SEPARATE": 1, "WIN_UNIFIED": 2,
       "WIN_BASE": 0x66000001, "WIN_SIZE": 0x66000003, "WIN_DISP_UNIT": 0x66000005, "WIN_CREATE_FLAVOR": 0x66000007,
       "WIN_MODEL": 0x66000009}
