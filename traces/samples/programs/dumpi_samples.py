"""Writes the DUMPI sample sets: some of the recorded samples converted to SST-DUMPI, with a MANIFEST.json.

Each set ``traces/samples/dumpi/NAME`` is ``ppt convert --to dumpi`` of the op-stream sample ``NAME``
(recorded with ``ppt record`` from ``programs/PROGRAM.c``).  ``MANIFEST.json`` says what each holds in
the schema of the real traces' manifest (calls per function over all ranks, point-to-point messages
and bytes, collective bytes per call), counted here straight from the op-stream sample's arrays, not
through any reader or trace summary of ppt's, so tests that read the DUMPI sets check the writer and
the DUMPI reader against numbers of the project's own.  Run from the repository's top:

    python traces/samples/programs/dumpi_samples.py
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter

import numpy as np

from ppt.oprecord import Op
from ppt.traces import bundled, opstream

#: The samples converted: nonblocking halo exchange on a Cartesian communicator, wildcard receives,
#: and collectives with per-rank counts (Alltoallv) and prefix reductions.
NAMES = ("halo3d_n8", "master_worker_n6", "samplesort_n8")
OUT = bundled.SAMPLES / "dumpi"

P2P_RULE = ("sum over Send/Isend/Ssend/Rsend/Bsend/Issend/Irsend/Ibsend of count*sizeof(datatype); Sendrecv counts "
            "sendcount*sizeof(sendtype); sizes from each rank's DUMPI datatype table")
COLLECTIVE_RULE = ("per call count*sizeof(type) (Alltoall/Allgather/Gather/Scatter: sendcount*sizeof(sendtype) per "
                   "peer; Alltoallv: sum(sendcounts)*sizeof(sendtype)), summed over all ranks")
_NBYTES = [int(k) for k in (Op.BCAST, Op.REDUCE, Op.ALLREDUCE, Op.SCAN, Op.EXSCAN, Op.GATHER, Op.SCATTER,
                            Op.ALLGATHER, Op.ALLGATHERV, Op.ALLTOALL)]
_SUMMED = [int(k) for k in (Op.SCATTERV, Op.ALLTOALLV, Op.REDUCE_SCATTER)]


def counts(trace) -> dict:
    """Calls, point-to-point and collective bytes of op-stream ``trace``, from its arrays."""
    calls, collective = Counter(), Counter()
    messages = sent = posted = 0
    for rank in range(trace.num_ranks):
        ops, aux, names = trace.read_rank(rank)
        call = np.array(names)[ops["call"]]
        calls.update(call.tolist())
        kind, nbytes = ops["kind"], ops["nbytes"]
        sends = np.isin(kind, [Op.SEND, Op.ISEND, Op.SENDRECV])
        messages += int(sends.sum())
        sent += int(nbytes[sends].sum())
        posted += int(nbytes[np.isin(kind, [Op.RECV, Op.IRECV])].sum())
        posted += int(sum(aux[s + 2] for s in ops["aux_start"][kind == Op.SENDRECV]))
        for i in np.nonzero(np.isin(kind, _NBYTES))[0]:
            collective[call[i]] += int(nbytes[i])
        for i in np.nonzero(np.isin(kind, _SUMMED))[0]:
            start = ops["aux_start"][i]
            collective[call[i]] += int(aux[start:start + ops["aux_len"][i]].sum())
    return {"calls_all_ranks": dict(sorted(calls.items(), key=lambda kv: (-kv[1], kv[0]))),
            "p2p": {"sent_msgs": messages, "sent_bytes": sent, "recv_posted_bytes": posted, "bytes_rule": P2P_RULE},
            "collective_payload_bytes": {"values": dict(sorted(collective.items(), key=lambda kv: (-kv[1], kv[0]))),
                                         "rule": COLLECTIVE_RULE}}


def main() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    sets = []
    for name in NAMES:
        subprocess.run([sys.executable, "-m", "ppt.cli.main", "convert", "--to", "dumpi", bundled.PREFIX + name,
                        str(OUT / name)], check=True)
        trace = opstream.load(bundled.path(name))
        start, stop = trace.span()
        sets.append({"name": name, "folder": f"{name}/",
                     "program": f"traces/samples/programs/{bundled.program(name).name} (the project's own)",
                     "source": {"sample": bundled.PREFIX + name, "recorded_with": "ppt record",
                                "converted_with": "ppt convert --to dumpi"},
                     "ranks": trace.num_ranks, "span_s": stop - start, **counts(trace)})
    manifest = {"description": "DUMPI trace sets the project made: its recorded samples written by ppt's DUMPI "
                               "writer (see traces/samples/programs/dumpi_samples.py).", "sets": sets}
    (OUT / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
