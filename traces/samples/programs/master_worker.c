/*
 * master_worker.c: rank 0 hands out tasks of uneven size; the other ranks work them off.
 *
 * The master sends each worker a task, then receives results from whichever worker is done first
 * (MPI_ANY_SOURCE) and sends that worker the next task, until all are done; a message with tag
 * STOP ends each worker.  A task is a count of terms of a series the worker sums.
 * Usage: master_worker [TASKS]   (default 60)
 */
#include <mpi.h>
#include <stdlib.h>
#include "count.h"

#define WORK 1
#define STOP 2

static double work(long terms)
{
    double sum = 0.0;
    for (long k = 1; k <= terms; k++)
        sum += 1.0 / ((double)k * k);
    return sum;
}

int main(int argc, char **argv)
{
    CALL(MPI_Init, &argc, &argv);
    int rank, size;
    CALL(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    CALL(MPI_Comm_size, MPI_COMM_WORLD, &size);
    int tasks = argc > 1 ? atoi(argv[1]) : 60;
    if (rank == 0) {
        int sent = 0, done = 0;
        double total = 0.0;
        for (int w = 1; w < size; w++) {
            long terms = sent < tasks ? 20000 + 15000 * (sent % 7) : 0;
            CALL(MPI_Send, &terms, 1, MPI_LONG, w, sent < tasks ? WORK : STOP, MPI_COMM_WORLD);
            sent += sent < tasks;
        }
        while (done < sent) {
            double result;
            MPI_Status status;
            CALL(MPI_Recv, &result, 1, MPI_DOUBLE, MPI_ANY_SOURCE, WORK, MPI_COMM_WORLD, &status);
            total += result;
            done++;
            long terms = sent < tasks ? 20000 + 15000 * (sent % 7) : 0;
            CALL(MPI_Send, &terms, 1, MPI_LONG, status.MPI_SOURCE, sent < tasks ? WORK : STOP, MPI_COMM_WORLD);
            sent += sent < tasks;
        }
        printf("master_worker: %d workers did %d tasks, sum %.9f\n", size - 1, done, total / tasks);
    } else {
        for (;;) {
            long terms;
            MPI_Status status;
            CALL(MPI_Recv, &terms, 1, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
            if (status.MPI_TAG == STOP)
                break;
            double result = work(terms);
            CALL(MPI_Send, &result, 1, MPI_DOUBLE, 0, WORK, MPI_COMM_WORLD);
        }
    }
    print_counts(rank);
    MPI_Finalize();
    return 0;
}
