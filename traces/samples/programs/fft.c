/*
 * fft.c: a 2-D discrete Fourier transform of an N x N complex grid split by rows, with the
 * transpose between the two passes done by one Alltoall.
 *
 * Each pass transforms the rank's rows with a radix-2 FFT; the transpose sends every rank its
 * block of columns.  A forward and an inverse transform per iteration; an Allreduce checks that
 * the grid came back.  Usage: fft [ITERATIONS [N]]   (default 3 iterations, N = 64)
 */
#include <mpi.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "count.h"

static void fft(double complex *a, int n, int sign)
{
    for (int i = 1, j = 0; i < n; i++) {                 /* bit-reversal permutation */
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double complex t = a[i]; a[i] = a[j]; a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double complex w = cexp(sign * 2.0 * M_PI * I / len);
        for (int i = 0; i < n; i += len) {
            double complex wk = 1.0;
            for (int k = 0; k < len / 2; k++, wk *= w) {
                double complex u = a[i + k], v = a[i + k + len / 2] * wk;
                a[i + k] = u + v;
                a[i + k + len / 2] = u - v;
            }
        }
    }
}

/* Transforms the rank's rows, then transposes the grid (rows of `a` become columns). */
static void pass(double complex *a, double complex *t, int n, int rows, int size, int sign, MPI_Comm comm)
{
    for (int r = 0; r < rows; r++)
        fft(a + r * n, n, sign);
    for (int p = 0; p < size; p++)                       /* block p: the columns rank p will hold */
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < rows; c++)
                t[(p * rows + r) * rows + c] = a[r * n + p * rows + c];
    CALL(MPI_Alltoall, t, 2 * rows * rows, MPI_DOUBLE, a, 2 * rows * rows, MPI_DOUBLE, comm);
    for (int p = 0; p < size; p++)                       /* a[p-block][r][c] -> t[c][p*rows + r] */
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < rows; c++)
                t[c * n + p * rows + r] = a[(p * rows + r) * rows + c];
    for (int i = 0; i < rows * n; i++)
        a[i] = t[i];
}

int main(int argc, char **argv)
{
    CALL(MPI_Init, &argc, &argv);
    int rank, size;
    CALL(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
    CALL(MPI_Comm_size, MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 3, n = argc > 2 ? atoi(argv[2]) : 64;
    if (n % size) {
        if (rank == 0)
            fprintf(stderr, "fft: N = %d must be a multiple of the ranks (%d)\n", n, size);
        CALL(MPI_Abort, MPI_COMM_WORLD, 1);
    }
    int rows = n / size;
    double complex *a = malloc(rows * n * sizeof *a), *t = malloc(rows * n * sizeof *t);
    for (int i = 0; i < rows * n; i++)
        a[i] = sin(rank * rows * n + i);
    double error = 0.0, worst;
    for (int it = 0; it < iterations; it++) {
        pass(a, t, n, rows, size, -1, MPI_COMM_WORLD);
        pass(a, t, n, rows, size, -1, MPI_COMM_WORLD);
        pass(a, t, n, rows, size, 1, MPI_COMM_WORLD);
        pass(a, t, n, rows, size, 1, MPI_COMM_WORLD);
        for (int i = 0; i < rows * n; i++) {
            a[i] /= (double)n * n;
            error = fmax(error, cabs(a[i] - sin(rank * rows * n + i)));
        }
    }
    CALL(MPI_Allreduce, &error, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fft: %d ranks, %dx%d grid, %d forward and inverse transforms, largest error %.3e\n",
               size, n, n, iterations, worst);
    free(a); free(t);
    print_counts(rank);
    MPI_Finalize();
    return 0;
}
