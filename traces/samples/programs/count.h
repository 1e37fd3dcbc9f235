/*
 * count.h: the sample programs count their own MPI calls and print them, so a recording of a run
 * can be checked against what the program did.
 *
 * CALL(MPI_Send, buf, n, ...) counts one MPI_Send and makes the call.  print_counts() prints one
 * line per rank: "counts rank=R MPI_Init=1 MPI_Send=40 ...", every call the rank counted,
 * MPI_Finalize included (call it just before MPI_Finalize, which it counts).
 */
#ifndef COUNT_H
#define COUNT_H

#include <stdio.h>
#include <string.h>

#define MAX_COUNTED 32

static struct { const char *name; long n; } counted[MAX_COUNTED];
static int ncounted;

static void count(const char *name)
{
    for (int i = 0; i < ncounted; i++)
        if (strcmp(counted[i].name, name) == 0) {
            counted[i].n++;
            return;
        }
    if (ncounted < MAX_COUNTED) {
        counted[ncounted].name = name;
        counted[ncounted++].n = 1;
    }
}

#define CALL(f, ...) (count(#f), f(__VA_ARGS__))

/* The line is written at once, so lines of ranks printing together do not mix. */
static void print_counts(int rank)
{
    char line[2048];
    int used;
    count("MPI_Finalize");
    fflush(stdout);
    used = snprintf(line, sizeof line, "counts rank=%d", rank);
    for (int i = 0; i < ncounted && used < (int)sizeof line; i++)
        used += snprintf(line + used, sizeof line - used, " %s=%ld", counted[i].name, counted[i].n);
    if (used < (int)sizeof line - 1) {
        line[used++] = '\n';
        fwrite(line, 1, used, stdout);
    }
    fflush(stdout);
}

#endif
