"""MPI's special rank, tag and colour values (the same meaning as in mpi4py)."""

#: Receive from any source (``recv``, ``irecv``, ``probe``).
ANY_SOURCE = -1
#: Receive with any tag.
ANY_TAG = -1
#: The null process: sends and receives with it complete at once and move no data.
PROC_NULL = -2
#: "No such rank / index" (``Group.rank`` outside the group, ``split`` colour for no communicator,
#: ``waitany`` on inactive requests).
UNDEFINED = -32766

#: Size of a rendezvous control message (RTS, CTS) on the wire, bytes.
CONTROL_B = 64
