/* Private to the C sources: memory for the core's tables.
 *
 * The core cannot go on without memory it asks for, so both calls print one line and abort when
 * it runs out; callers never see NULL.
 */
#ifndef PPT_UTIL_H
#define PPT_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* `count` (at least one) zeroed items of `size` bytes.  calloc's untouched pages stay unmapped, so
 * the rows of a large table that another simulation rank owns cost no memory. */
void *ppt_alloc(size_t count, size_t size);
/* Room for `need` items of `item` bytes in the array p of *cap items: p itself if it has it, else
 * p reallocated to the next of 16, 32, 64, ... items at or above need (*cap updated). */
void *ppt_grow(void *p, int64_t *cap, size_t item, int64_t need);
/* Report that `bytes` more could not be had, and abort. */
_Noreturn void ppt_out_of_memory(size_t bytes);
#endif
