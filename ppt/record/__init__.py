"""Recording real MPI runs as op-stream traces (``ppt record``).

A PMPI library of the project's own (``pmpi_record.c``), built with the MPI's ``mpicc``
(:mod:`ppt.record.build`) and preloaded into every rank of a program run under the real
``mpiexec`` (:mod:`ppt.record.run`), writes one binary record per MPI call to per-rank files;
:mod:`ppt.record.rankfile` reads them and :mod:`ppt.record.trace` turns them into the op-stream
form (docs/op-stream.md), which :func:`ppt.traces.opstream.save` keeps as a folder.
"""
