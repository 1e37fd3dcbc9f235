"""MPI collectives: named algorithms (:mod:`.calls`), each a per-rank schedule of plain integers
(:mod:`.algorithms`, :mod:`.schedule`; NCCL's in :mod:`.nccl`) that the MPI engine executes, with the
reduction ops (:mod:`.ops`) and payload slicing (:mod:`.payload`) their slots need."""
