/*
 * halo3d.c: a 7-point Jacobi sweep on a 3-D grid split over a Cartesian grid of ranks.
 *
 * Each iteration exchanges the six faces of the rank's block with its neighbours
 * (Irecv/Isend, Waitall) and sums the squared update over all ranks with Allreduce.
 * Usage: halo3d [ITERATIONS [EDGE]]   (default 20 iterations of a 16^3 block per rank)
 */
#include <mpi.h>
#include <stdlib.h>
#include "count.h"

#define AT(i, j, k) (((i) * (e + 2) + (j)) * (e + 2) + (k))

int main(int argc, char **argv)
{
    CALL(MPI_Init, &argc, &argv);
    int iterations = argc > 1 ? atoi(argv[1]) : 20;
    int e = argc > 2 ? atoi(argv[2]) : 16;
    int size, rank, dims[3] = { 0, 0, 0 }, periods[3] = { 0, 0, 0 };
    CALL(MPI_Comm_size, MPI_COMM_WORLD, &size);
    CALL(MPI_Dims_create, size, 3, dims);
    MPI_Comm grid;
    CALL(MPI_Cart_create, MPI_COMM_WORLD, 3, dims, periods, 1, &grid);
    CALL(MPI_Comm_rank, grid, &rank);

    int n = (e + 2) * (e + 2) * (e + 2), face = e * e;
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    double *out = malloc(6 * face * sizeof *out), *in = malloc(6 * face * sizeof *in);
    for (int i = 0; i < n; i++)
        u[i] = (rank + i) % 7;

    for (int it = 0; it < iterations; it++) {
        MPI_Request req[12];
        int nreq = 0;
        for (int d = 0; d < 3; d++)
            for (int side = 0; side < 2; side++) {
                int f = 2 * d + side, src, dst, c = side ? e : 1;
                CALL(MPI_Cart_shift, grid, d, side ? 1 : -1, &src, &dst);
                for (int a = 0; a < e; a++)
                    for (int b = 0; b < e; b++)
                        out[f * face + a * e + b] = d == 0 ? u[AT(c, a + 1, b + 1)]
                                                  : d == 1 ? u[AT(a + 1, c, b + 1)] : u[AT(a + 1, b + 1, c)];
                CALL(MPI_Irecv, in + f * face, face, MPI_DOUBLE, dst, f ^ 1, grid, &req[nreq++]);
                CALL(MPI_Isend, out + f * face, face, MPI_DOUBLE, dst, f, grid, &req[nreq++]);
            }
        CALL(MPI_Waitall, nreq, req, MPI_STATUSES_IGNORE);
        double local = 0.0, total;
        for (int i = 1; i <= e; i++)
            for (int j = 1; j <= e; j++)
                for (int k = 1; k <= e; k++) {
                    v[AT(i, j, k)] = (u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)]
                                      + u[AT(i, j + 1, k)] + u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)]) / 6.0;
                    local += (v[AT(i, j, k)] - u[AT(i, j, k)]) * (v[AT(i, j, k)] - u[AT(i, j, k)]);
                }
        double *t = u; u = v; v = t;
        CALL(MPI_Allreduce, &local, &total, 1, MPI_DOUBLE, MPI_SUM, grid);
        if (rank == 0 && it == iterations - 1)
            printf("halo3d: %d ranks (%dx%dx%d), %d iterations, residual %.6e\n",
                   size, dims[0], dims[1], dims[2], iterations, total);
    }
    CALL(MPI_Comm_free, &grid);
    free(u); free(v); free(out); free(in);
    print_counts(rank);
    MPI_Finalize();
    return 0;
}
