/* Private to the C sources: the report of memory that could not be had (alloc.h's calls make it). */
#ifndef PPT_UTIL_H
#define PPT_UTIL_H
#include <stddef.h>
#include "alloc.h"

/* Report that `bytes` more could not be had, and abort. */
_Noreturn void ppt_out_of_memory(size_t bytes);
#endif
