/*
 * cg.c: conjugate gradients on the 2-D Poisson matrix (5-point stencil, CSR), rows split in bands.
 *
 * Each iteration's sparse matrix-vector product first swaps the band's edge rows with the ranks
 * above and below (Sendrecv); its two dot products are Allreduces.  Rank 0 broadcasts the problem.
 * Usage: cg [ITERATIONS [EDGE]]   (default 25 iterations on a 256x256 grid)
 */
#include <mpi.h>
#include <stdlib.h>
#include "count.h"

static double dot(const double *a, const double *b, int n, MPI_Comm comm)
{
    double local = 0.0, total;
    for (int i = 0; i < n; i++)
        local += a[i] * b[i];
    CALL(MPI_Allreduce, &local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    return total;
}

int main(int argc, char **argv)
{
    CALL(MPI_Init, &argc, &argv);
    int rank, size, setup[2] = { 25, 256 };
    CALL(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    CALL(MPI_Comm_size, MPI_COMM_WORLD, &size);
    if (rank == 0 && argc > 1)
        setup[0] = atoi(argv[1]);
    if (rank == 0 && argc > 2)
        setup[1] = atoi(argv[2]);
    CALL(MPI_Bcast, setup, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int iterations = setup[0], e = setup[1];
    int first = rank * e / size, rows = (rank + 1) * e / size - first;   /* grid rows of this band */
    int n = rows * e, up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    /* the band's matrix in CSR; column j of a row refers to x with one ghost grid row above and below */
    int *start = malloc((n + 1) * sizeof *start), *col = malloc(5 * n * sizeof *col);
    double *val = malloc(5 * n * sizeof *val);
    int nz = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < e; c++) {
            int i = r * e + c;
            start[i] = nz;
            int nb[5][2] = { { r, c }, { r - 1, c }, { r + 1, c }, { r, c - 1 }, { r, c + 1 } };
            for (int k = 0; k < 5; k++) {
                int rr = nb[k][0], cc = nb[k][1];
                if (cc < 0 || cc >= e || first + rr < 0 || first + rr >= e)
                    continue;
                col[nz] = (rr + 1) * e + cc;
                val[nz++] = k ? -1.0 : 4.0;
            }
        }
    start[n] = nz;

    double *x = calloc(n, sizeof *x), *r = malloc(n * sizeof *r), *q = malloc(n * sizeof *q);
    double *p = calloc(n + 2 * e, sizeof *p);          /* with a ghost row above and below */
    for (int i = 0; i < n; i++)
        r[i] = p[e + i] = 1.0;
    double rho = dot(r, r, n, MPI_COMM_WORLD);
    for (int it = 0; it < iterations; it++) {
        CALL(MPI_Sendrecv, p + e, e, MPI_DOUBLE, up, 0, p + e + n, e, MPI_DOUBLE, down, 0,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CALL(MPI_Sendrecv, p + n, e, MPI_DOUBLE, down, 1, p, e, MPI_DOUBLE, up, 1,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) {
            q[i] = 0.0;
            for (int k = start[i]; k < start[i + 1]; k++)
                q[i] += val[k] * p[col[k]];
        }
        double alpha = rho / dot(p + e, q, n, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[e + i];
            r[i] -= alpha * q[i];
        }
        double next = dot(r, r, n, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            p[e + i] = r[i] + next / rho * p[e + i];
        rho = next;
    }
    if (rank == 0)
        printf("cg: %d ranks, %dx%d grid, %d iterations, residual %.6e\n", size, e, e, iterations, rho);
    free(start); free(col); free(val); free(x); free(r); free(q); free(p);
    print_counts(rank);
    MPI_Finalize();
    return 0;
}
