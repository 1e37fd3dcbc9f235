/* Memory for C tables: zeroed blocks, and arrays grown by doubling.
 *
 * Neither the packet core nor the MPI engine can go on without memory they ask for, so both calls
 * print one line and abort when it runs out; callers never see NULL.  The packet core defines them
 * (util.c); the MPI engine, an extension of its own, defines them as calls of the packet core's
 * through its table (coreapi.h), so both get memory the same way.
 */
#ifndef PPT_ALLOC_H
#define PPT_ALLOC_H
#include <stddef.h>
#include <stdint.h>

/* `count` (at least one) zeroed items of `size` bytes.  calloc's untouched pages stay unmapped, so
 * the rows of a large table that another simulation rank owns cost no memory. */
void *ppt_alloc(size_t count, size_t size);
/* Room for `need` items of `item` bytes in the array p of *cap items: p itself if it has it, else
 * p reallocated to the next of 16, 32, 64, ... items at or above need (*cap updated). */
void *ppt_grow(void *p, int64_t *cap, size_t item, int64_t need);
#endif
