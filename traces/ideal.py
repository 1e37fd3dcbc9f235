"""An ideal network for validating trace replay: (almost) no latency, infinite bandwidth.

Replaying a trace on it leaves only the recorded compute gaps and the waits
that the program's own dependencies impose, so the predicted time shows what
the replay itself adds or loses against the recorded span.

The eager threshold is that of the library the shared traces were recorded
with: Open MPI 4.1's shared-memory transport (``btl/vader``) sends up to
4 KiB eagerly when XPMEM is absent (``btl_eager_limit = 4 * 1024`` in
``opal/mca/btl/vader/btl_vader_component.c``, https://github.com/open-mpi/ompi,
v4.1.x), so larger sends wait for their receiver, as they did when traced.
"""
from __future__ import annotations

import math

from ppt.interconnects.networks.analytic import AnalyticNetwork

#: One-way latency of the ideal network, s (non-zero: it is also the engine's lookahead).
IDEAL_LATENCY_S = 1e-9
#: Messages up to this size are sent eagerly, bytes (Open MPI 4.1 btl/vader without XPMEM).
IDEAL_EAGER_B = 4096


def ideal_network(num_nodes: int) -> AnalyticNetwork:
    """A contention-free network of ``num_nodes`` nodes with 1 ns latency and infinite bandwidth
    (replay it with ``MPIJob(..., settings=MPISettings(IDEAL_EAGER_B))``)."""
    return AnalyticNetwork(num_nodes, latency_s=IDEAL_LATENCY_S, bandwidth_Bps=math.inf)
