"""Several jobs sharing one machine: the job list (``joblist``), node allocation policies
(``allocation``), the run that mixes them in one simulation (``mix``) and when the synthetic
traffic beside them stops (``finish``)."""
