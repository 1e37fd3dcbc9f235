/* The packet core's calls, bound once at import: the engine is an extension of its own and reaches the
 * packet core through the table the packet core fills (interconnects/core/coreapi.h). */
#include "_mpicore.h"

const ppt_core_api_t *packet_core;

void ppt_mpi_bind_core(const struct ppt_core_api *api) { packet_core = api; }

/* The engine's tables, and its event heap (heap.h), get memory as the packet core's do (alloc.h). */
void *ppt_alloc(size_t count, size_t size) { return packet_core->alloc(count, size); }

void *ppt_grow(void *p, int64_t *cap, size_t item, int64_t need) { return packet_core->grow(p, cap, item, need); }
