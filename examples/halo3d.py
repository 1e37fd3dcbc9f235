"""3-D halo exchange on a Cartesian communicator (see ppt.apps.halo).

    ppt run examples/halo3d.py --system edison --ranks 96 --network analytic --script-args '32 32 32 5'
"""
from ppt.apps.halo import main  # noqa: F401  (ppt run calls main(mpi))
