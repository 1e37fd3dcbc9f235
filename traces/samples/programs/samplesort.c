/*
 * samplesort.c: sorts random keys spread over the ranks by sample sort.
 *
 * Each rank sorts its keys and offers evenly spaced samples (Allgather); every rank picks the same
 * splitters from them, tells every other rank how many keys it will get (Alltoall) and sends them
 * (Alltoallv), then merges what it got by sorting.  A Reduce checks that no key was lost and an
 * Exscan that the ranks' ranges follow one another.  Usage: samplesort [KEYS_PER_RANK [ROUNDS]]
 * (default 20000 keys, 2 rounds)
 */
#include <mpi.h>
#include <stdlib.h>
#include "count.h"

static int compare(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    CALL(MPI_Init, &argc, &argv);
    int rank, size;
    CALL(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    CALL(MPI_Comm_size, MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 20000, rounds = argc > 2 ? atoi(argv[2]) : 2;
    unsigned *keys = malloc(n * sizeof *keys), *got = malloc(4 * (size_t)n * sizeof *got);
    unsigned *samples = malloc(size * sizeof *samples), *all = malloc(size * size * sizeof *all);
    int *sendcounts = calloc(size, sizeof(int)), *recvcounts = malloc(size * sizeof(int));
    int *sdispls = malloc(size * sizeof(int)), *rdispls = malloc(size * sizeof(int));
    srand(1 + rank);
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < n; i++)
            keys[i] = (unsigned)rand() * (rank + 1u);        /* skewed: higher ranks draw larger keys */
        qsort(keys, n, sizeof *keys, compare);
        for (int i = 0; i < size; i++)
            samples[i] = keys[(long)i * n / size];
        CALL(MPI_Allgather, samples, size, MPI_UNSIGNED, all, size, MPI_UNSIGNED, MPI_COMM_WORLD);
        qsort(all, size * size, sizeof *all, compare);
        for (int p = 0, i = 0; p < size; p++) {             /* splitter p: all[(p + 1) * size] */
            sendcounts[p] = 0;
            for (; i < n && (p == size - 1 || keys[i] < all[(p + 1) * size]); i++)
                sendcounts[p]++;
        }
        CALL(MPI_Alltoall, sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, MPI_COMM_WORLD);
        int total = 0;
        for (int p = 0; p < size; p++) {
            sdispls[p] = p ? sdispls[p - 1] + sendcounts[p - 1] : 0;
            rdispls[p] = total;
            total += recvcounts[p];
        }
        if (total > 4 * n) {
            fprintf(stderr, "samplesort: rank %d would get %d keys, more than it has room for\n", rank, total);
            CALL(MPI_Abort, MPI_COMM_WORLD, 1);
        }
        CALL(MPI_Alltoallv, keys, sendcounts, sdispls, MPI_UNSIGNED, got, recvcounts, rdispls, MPI_UNSIGNED,
             MPI_COMM_WORLD);
        qsort(got, total, sizeof *got, compare);
        long mine = total, everyone = 0, before = 0;
        CALL(MPI_Reduce, &mine, &everyone, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        CALL(MPI_Exscan, &mine, &before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && round == rounds - 1)
            printf("samplesort: %d ranks sorted %ld keys in %d rounds; rank 0 holds %ld\n",
                   size, everyone, rounds, mine);
    }
    free(keys); free(got); free(samples); free(all);
    free(sendcounts); free(recvcounts); free(sdispls); free(rdispls);
    print_counts(rank);
    MPI_Finalize();
    return 0;
}
