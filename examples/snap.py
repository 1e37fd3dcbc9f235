"""SNAP (the study inputs of ``ppt snap``) as a ``ppt run`` job on however many ranks the job has:
``--script-args 'STUDY'`` (1 by default; one inner iteration).

What it teaches: a script can be a thin wrapper around a model kept in a
library (here :mod:`ppt.apps.snap`, the KBA transport sweep that ``ppt snap``
runs), so that the same model serves ``ppt run``, job lists and sweeps.
Run it::

    ppt run examples/snap.py --system edison --ranks 96 --ranks-per-node 1
"""
from ppt.apps.scaling import study_sim
from ppt.apps.snap import snap_main


def main(mpi):
    study = int(mpi.argv[0]) if mpi.argv else 1
    return snap_main(mpi, study_sim(study, mpi.COMM_WORLD.size))
