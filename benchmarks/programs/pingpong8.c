/*
 * pingpong8.c: ranks 0 and 1 bounce an 8-byte message ITERATIONS times (MPI_Send, MPI_Recv) and
 * rank 0 prints the time of one iteration in seconds, by MPI_Wtime around the loop, best of 5 runs;
 * then the time of one MPI_Comm_rank (a call that does no communication) over as many calls.
 * Usage: pingpong8 [ITERATIONS]   (default 100000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 100000;
    char buf[8] = { 0 };
    double best = 1e30;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int run = 0; run < 5; run++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
        }
        double t = (MPI_Wtime() - t0) / n;
        best = t < best ? t : best;
    }
    double local = 1e30;
    for (int run = 0; run < 5; run++) {
        int r;
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        double t = (MPI_Wtime() - t0) / n;
        local = t < local ? t : local;
    }
    if (rank == 0)
        printf("%.9e %.9e\n", best, local);
    MPI_Finalize();
    return 0;
}
