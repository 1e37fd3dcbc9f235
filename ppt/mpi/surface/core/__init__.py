"""What every call of the surface stands on: the bookkeeping of an MPI call (``calls``), the compiled hot
point-to-point calls, waits and engine requests (``fast``, Cython), the requests and statuses a program holds
(``requests``) and the null handles it makes itself (``nulls``).  It imports only ``buffers`` of the surface."""
