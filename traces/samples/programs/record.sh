#!/bin/sh
# Builds the sample programs with the mpich wheel's mpicc and records each with 'ppt record' into
# traces/samples/NAME_nRANKS, the traces 'ppt samples' lists.  Run from the repository's top:
#   sh traces/samples/programs/record.sh
set -e
here=traces/samples/programs
bin=$(dirname "$(command -v ppt)")
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
record() {  # NAME RANKS [ARGS...]
    name=$1 ranks=$2
    shift 2
    "$bin/mpicc" -O2 -o "$build/$name" "$here/$name.c" -lm
    rm -rf "traces/samples/${name}_n$ranks"
    ppt record -n "$ranks" -o "traces/samples/${name}_n$ranks" "$build/$name" "$@" > /dev/null
}
record halo3d 8
record cg 8
record cg 16
record fft 8
record samplesort 8
record master_worker 6
