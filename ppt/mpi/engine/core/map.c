/* The MPI engine's hash map: two 64-bit keys to a 64-bit value, open addressing with linear
 * probing, deletion by backward shift (no tombstones), grown at half full. */
#include <string.h>
#include "_mpicore.h"

static inline uint64_t mix(uint64_t k1, uint64_t k2)
{
    uint64_t x = k1 * 0x9E3779B97F4A7C15ull ^ k2;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return x;
}

int map_get(const map_t *map, uint64_t k1, uint64_t k2, int64_t *v)
{
    if (!map->cap)
        return 0;
    uint64_t mask = (uint64_t)map->cap - 1;
    for (uint64_t i = mix(k1, k2) & mask;; i = (i + 1) & mask) {
        const map_slot_t *s = &map->slot[i];
        if (!s->k1)
            return 0;
        if (s->k1 == k1 && s->k2 == k2) {
            *v = s->v;
            return 1;
        }
    }
}

static void map_insert(map_slot_t *slot, int64_t cap, uint64_t k1, uint64_t k2, int64_t v)
{
    uint64_t mask = (uint64_t)cap - 1;
    uint64_t i = mix(k1, k2) & mask;
    while (slot[i].k1)
        i = (i + 1) & mask;
    slot[i].k1 = k1;
    slot[i].k2 = k2;
    slot[i].v = v;
}

int64_t *map_ref(map_t *map, uint64_t k1, uint64_t k2, int64_t dflt)
{
    if (map->cap) {
        uint64_t mask = (uint64_t)map->cap - 1;
        for (uint64_t i = mix(k1, k2) & mask; map->slot[i].k1; i = (i + 1) & mask)
            if (map->slot[i].k1 == k1 && map->slot[i].k2 == k2)
                return &map->slot[i].v;
    }
    map_put(map, k1, k2, dflt);
    uint64_t mask = (uint64_t)map->cap - 1;
    uint64_t i = mix(k1, k2) & mask;
    while (map->slot[i].k1 != k1 || map->slot[i].k2 != k2)
        i = (i + 1) & mask;
    return &map->slot[i].v;
}

void map_put(map_t *map, uint64_t k1, uint64_t k2, int64_t v)
{
    if (map->cap) {
        uint64_t mask = (uint64_t)map->cap - 1;
        for (uint64_t i = mix(k1, k2) & mask; map->slot[i].k1; i = (i + 1) & mask)
            if (map->slot[i].k1 == k1 && map->slot[i].k2 == k2) {
                map->slot[i].v = v;
                return;
            }
    }
    if (2 * (map->len + 1) > map->cap) {
        int64_t cap = map->cap ? 2 * map->cap : 16;
        map_slot_t *slot = ppt_alloc((size_t)cap, sizeof(map_slot_t));
        for (int64_t i = 0; i < map->cap; i++)
            if (map->slot[i].k1)
                map_insert(slot, cap, map->slot[i].k1, map->slot[i].k2, map->slot[i].v);
        free(map->slot);
        map->slot = slot;
        map->cap = cap;
    }
    map_insert(map->slot, map->cap, k1, k2, v);
    map->len++;
}

int map_del(map_t *map, uint64_t k1, uint64_t k2, int64_t *v)
{
    if (!map->cap)
        return 0;
    uint64_t mask = (uint64_t)map->cap - 1;
    uint64_t i = mix(k1, k2) & mask;
    for (;; i = (i + 1) & mask) {
        if (!map->slot[i].k1)
            return 0;
        if (map->slot[i].k1 == k1 && map->slot[i].k2 == k2)
            break;
    }
    if (v)
        *v = map->slot[i].v;
    /* shift later members of the probe run back over the hole */
    uint64_t hole = i;
    for (uint64_t j = (i + 1) & mask; map->slot[j].k1; j = (j + 1) & mask) {
        uint64_t home = mix(map->slot[j].k1, map->slot[j].k2) & mask;
        int between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!between) {
            map->slot[hole] = map->slot[j];
            hole = j;
        }
    }
    memset(&map->slot[hole], 0, sizeof(map_slot_t));
    map->len--;
    return 1;
}

void map_free(map_t *map)
{
    free(map->slot);
    map->slot = NULL;
    map->cap = map->len = 0;
}
