"""The network studies: ``ppt topology`` (an interconnect's size and shape), ``ppt traffic`` (synthetic
load), ``ppt pingpong`` and ``ppt latency-survey`` (message latency) and ``ppt plot`` (figures of a
run's sampled network state)."""
