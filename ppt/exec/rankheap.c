/* A heap of a rank's own for numpy's array data, behaving as glibc's malloc behaves in a process of its
 * own, so that the page faults (and huge-page faults) a rank's arrays cost under `ppt exec` are those the
 * same code costs under `mpiexec`, where every rank is a fresh process.
 *
 * Under `ppt exec` all ranks share one process and one glibc heap, grown and fragmented by the simulator
 * and by every rank: a rank's 8 MB temporaries are then recycled from memory already mapped, where a
 * real rank maps fresh pages for them, fault by fault, and gives them back when they are freed.  That
 * difference is 20-40 % of the compute of a numpy program that allocates large temporaries in its loop.
 *
 * The rules followed are those glibc 2.x documents for its main arena (mallopt(3), malloc.c's
 * comments), with its default parameters:
 *  - a request is served from the best-fitting free chunk (within its size class, as glibc's large bins
 *    are searched), else from the top chunk, else by a mapping of
 *    its own if it is at least the mmap threshold, else by growing the heap by what is missing plus
 *    TOP_PAD_B, page-rounded;
 *  - freeing a mapped chunk unmaps it and, if it was larger than the threshold (up to MMAP_MAX_B),
 *    raises the threshold to its size and the trim threshold to twice that;
 *  - freeing a heap chunk merges it with free neighbours (and the top); when the merged chunk is at
 *    least CONSOLIDATE_B and the top exceeds the trim threshold, the top beyond TOP_PAD_B is given
 *    back to the kernel, so growing again faults fresh zero pages;
 *  - numpy advises huge pages on every allocation of HUGE_B or more, as its default allocator does.
 * The heap lives in an address range reserved per rank (no swap reserved); a heap that outgrows its range
 * serves the rest by mappings of their own.  A chunk keeps its size in a 16-byte header before it, and
 * a free chunk its list links in its first bytes, so the pages a real heap touches are touched here. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>
#include <pthread.h>
#include <stdint.h>
#include <malloc.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEADER_B 16                  /* a chunk's header: the previous chunk's size (if free), its own size */
#define MIN_CHUNK_B 32
#define SMALL_B 1024                 /* smaller requests go to the process's malloc, as numpy caches them */
#define MMAP_THRESHOLD_B (128u << 10)
#define TRIM_THRESHOLD_B (128u << 10)
#define TOP_PAD_B (128u << 10)
#define MMAP_MAX_B (32u << 20)       /* the dynamic mmap threshold's ceiling on 64-bit glibc */
#define CONSOLIDATE_B (64u << 10)
#define HUGE_B (4u << 20)
#define PREV_INUSE 1u
#define IS_MAPPED 2u
#define MAPPED_MARK 0x7070742d68656170ull  /* in a mapping of ours' prev_size: glibc's mapped chunks hold 0 there */
#define FLAGS 7u
#define BINS 128                     /* size classes of free chunks: four per power of two, from MIN_CHUNK_B */

typedef struct chunk {
    size_t prev_size;                /* the previous chunk's size, when it is free */
    size_t size;                     /* this chunk's size, header included, | flags */
    struct chunk *next, *prev;       /* free chunks only: the free list */
} chunk_t;

typedef struct {
    pthread_mutex_t lock;
    size_t reserve;                  /* bytes of address range to reserve at the first request */
    char *base, *end;                /* the reserved range (none yet: NULL) */
    char *top, *brk;                 /* the top chunk is [top, brk); pages from brk on are not the heap's */
    char *dirty_to;                  /* memory from here to brk is as the kernel gave it: zero */
    chunk_t *bins[BINS];             /* free chunks (not the top) by size class, most recently freed first */
    size_t mmap_threshold, trim_threshold;
    size_t page;
    int64_t live;                    /* chunks handed out and not yet freed (mapped ones included) */
    int retired;                     /* the run ended: release the range once nothing is live */
} heap_t;

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
static size_t chunk_size(const chunk_t *c) { return c->size & ~(size_t)FLAGS; }
static chunk_t *chunk_at(void *p) { return (chunk_t *)((char *)p - HEADER_B); }
static void *user(chunk_t *c) { return (char *)c + HEADER_B; }
static chunk_t *after(chunk_t *c) { return (chunk_t *)((char *)c + chunk_size(c)); }

/* The size class of a chunk of size bytes: its power of two and which quarter of it (as glibc's large
 * bins, so that finding a fit looks at chunks of about the size asked, not at every free chunk). */
static int bin_of(size_t size)
{
    int power = 63 - __builtin_clzll((unsigned long long)size);
    int bin = (power - 5) * 4 + (int)((size >> (power - 2)) & 3);
    return bin < BINS ? bin : BINS - 1;
}

static void unlink_free(heap_t *h, chunk_t *c)
{
    if (c->prev) c->prev->next = c->next; else h->bins[bin_of(chunk_size(c))] = c->next;
    if (c->next) c->next->prev = c->prev;
}

/* A free chunk goes on the list, and the chunk after it learns its size.  Free chunks never border the
 * top (they merge into it), so the chunk after a free one is a real chunk. */
static void link_free(heap_t *h, chunk_t *c)
{
    chunk_t **bin = &h->bins[bin_of(chunk_size(c))];
    c->prev = NULL;
    c->next = *bin;
    if (*bin) (*bin)->prev = c;
    *bin = c;
    after(c)->prev_size = chunk_size(c);
    after(c)->size &= ~(size_t)PREV_INUSE;
}

static void advise_huge(void *p, size_t n)
{
    if (n < HUGE_B)
        return;
    uintptr_t from = round_up((uintptr_t)p, 4096), to = (uintptr_t)p + n;
    madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/* A chunk of a mapping of its own: the mapping starts at the chunk. */
static chunk_t *map_chunk(heap_t *h, size_t nb)
{
    size_t len = round_up(nb, h->page);
    void *at = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED)
        return NULL;
    chunk_t *c = at;
    c->prev_size = MAPPED_MARK;
    c->size = len | IS_MAPPED;
    return c;
}

/* Give the top back to the kernel beyond TOP_PAD_B, whole pages. */
static void trim(heap_t *h)
{
    size_t top = (size_t)(h->brk - h->top);
    if (top < h->trim_threshold || top <= MIN_CHUNK_B + TOP_PAD_B)
        return;
    size_t extra = (top - MIN_CHUNK_B - 1 - TOP_PAD_B) / h->page * h->page;
    if (!extra)
        return;
    mmap(h->brk - extra, extra, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    h->brk -= extra;
    if (h->dirty_to > h->brk)
        h->dirty_to = h->brk;
}

/* Reserve the heap's address range (on its first request, so ranks that make no large arrays take none);
 * if that fails, the heap stays empty and every request gets a mapping of its own. */
static void reserve_range(heap_t *h)
{
    void *at = mmap(NULL, h->reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED)
        at = NULL;
    h->base = h->end = h->top = h->brk = h->dirty_to = at;
    if (at)
        h->end += h->reserve;
    h->reserve = 0;
}

/* Grow the heap by grow bytes (whole pages) where it ends, as brk does: the pages become the heap's. */
static int extend(heap_t *h, size_t grow)
{
    if (mmap(h->brk, grow, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
        return 0;
    h->brk += grow;
    return 1;
}

/* The free chunk that fits nb bytes best: the smallest of nb's size class that fits, else the first of the
 * next class that has one (every chunk there fits); NULL if none. */
static chunk_t *best_fit(heap_t *h, size_t nb)
{
    int bin = bin_of(nb);
    chunk_t *best = NULL;
    for (chunk_t *c = h->bins[bin]; c; c = c->next)
        if (chunk_size(c) >= nb && (!best || chunk_size(c) < chunk_size(best)))
            best = c;
    while (!best && ++bin < BINS)
        best = h->bins[bin];
    return best;
}

/* A chunk of nb bytes (header included, 16-aligned); *clean_from: where the memory the kernel gave zeroed
 * and nobody has written since begins (NULL: all of it). */
static chunk_t *take(heap_t *h, size_t nb, char **clean_from)
{
    chunk_t *best = best_fit(h, nb);
    if (best) {
        unlink_free(h, best);
        size_t size = chunk_size(best);
        if (size - nb >= MIN_CHUNK_B) {
            chunk_t *rest = (chunk_t *)((char *)best + nb);
            rest->size = (size - nb) | PREV_INUSE;
            best->size = nb | (best->size & PREV_INUSE);
            link_free(h, rest);
        } else {
            after(best)->size |= PREV_INUSE;
        }
        *clean_from = (char *)after(best);
        return best;
    }
    if (!h->base && h->reserve)
        reserve_range(h);
    if ((size_t)(h->brk - h->top) < nb + MIN_CHUNK_B) {
        size_t grow = round_up(nb + TOP_PAD_B + MIN_CHUNK_B - (size_t)(h->brk - h->top), h->page);
        if (nb >= h->mmap_threshold || (size_t)(h->end - h->brk) < grow || !extend(h, grow)) {
            *clean_from = NULL;
            return map_chunk(h, nb);
        }
    }
    chunk_t *c = (chunk_t *)h->top;
    c->size = nb | PREV_INUSE;              /* the chunk before the top is never free */
    h->top += nb;
    *clean_from = h->dirty_to;
    if (h->dirty_to < h->top)
        h->dirty_to = h->top;
    return c;
}

static void give_back(heap_t *h, chunk_t *c)
{
    size_t size = chunk_size(c);
    if (c->size & IS_MAPPED) {
        if (size > h->mmap_threshold && size <= MMAP_MAX_B) {
            h->mmap_threshold = size;
            h->trim_threshold = 2 * size;
        }
        munmap(c, size);
        return;
    }
    chunk_t *next = after(c);
    if (!(c->size & PREV_INUSE)) {             /* merge with the free chunk before it */
        chunk_t *before = (chunk_t *)((char *)c - c->prev_size);
        unlink_free(h, before);
        size += chunk_size(before);
        c = before;
    }
    if ((char *)next == h->top) {               /* into the top */
        h->top = (char *)c;
    } else {
        if ((char *)after(next) != h->top && !(after(next)->size & PREV_INUSE)) {
            unlink_free(h, next);               /* merge with the free chunk after it */
            size += chunk_size(next);
        }
        c->size = size | PREV_INUSE;
        link_free(h, c);
    }
    if (size >= CONSOLIDATE_B)
        trim(h);
}

/* Whether p came from this heap (its range, or a mapping of its own with our mark) rather than from the
 * process's malloc (requests under SMALL_B, and every request once neither the heap nor a mapping could
 * be had). */
static int from_heap(const heap_t *h, void *p)
{
    if ((char *)p >= h->base && (char *)p < h->end)
        return 1;
    chunk_t *c = chunk_at(p);
    return ((uintptr_t)c & (h->page - 1)) == 0 && (c->size & IS_MAPPED) && c->prev_size == MAPPED_MARK;
}

static void release_if_done(heap_t *h)
{
    if (h->retired && h->live == 0) {
        if (h->base)
            munmap(h->base, (size_t)(h->end - h->base));
        pthread_mutex_unlock(&h->lock);
        pthread_mutex_destroy(&h->lock);
        PyMem_RawFree(h);
        return;
    }
    pthread_mutex_unlock(&h->lock);
}

/* -- numpy's allocator interface (NEP 49) -------------------------------------------------------- */
static void *heap_calloc_or_malloc(heap_t *h, size_t n, int zero)
{
    if (n < SMALL_B)
        return zero ? calloc(1, n ? n : 1) : malloc(n ? n : 1);
    size_t nb = round_up(n + HEADER_B, 16);
    char *clean_from;
    pthread_mutex_lock(&h->lock);
    chunk_t *c = take(h, nb, &clean_from);
    if (c)
        h->live++;
    pthread_mutex_unlock(&h->lock);
    if (!c)                                     /* out of address space or mappings: the process's heap */
        return zero ? calloc(1, n) : malloc(n);
    char *p = user(c);
    if (zero && clean_from && clean_from > p)
        memset(p, 0, (size_t)(clean_from - p) < n ? (size_t)(clean_from - p) : n);
    advise_huge(p, n);
    return p;
}

static void *rank_malloc(void *ctx, size_t n) { return heap_calloc_or_malloc(ctx, n, 0); }

static void *rank_calloc(void *ctx, size_t nelem, size_t elsize)
{
    if (elsize && nelem > SIZE_MAX / elsize)
        return NULL;
    return heap_calloc_or_malloc(ctx, nelem * elsize, 1);
}

static void rank_free(void *ctx, void *p, size_t n)
{
    heap_t *h = ctx;
    (void)n;
    if (!p)
        return;
    if (!from_heap(h, p)) {
        free(p);
        return;
    }
    pthread_mutex_lock(&h->lock);
    give_back(h, chunk_at(p));
    h->live--;
    release_if_done(h);
}

/* numpy passes no old size: a chunk of ours says it in its header, the process's malloc by its own call. */
static void *rank_realloc(void *ctx, void *p, size_t n)
{
    heap_t *h = ctx;
    if (!p)
        return rank_malloc(ctx, n);
    size_t old = from_heap(h, p) ? chunk_size(chunk_at(p)) - HEADER_B : malloc_usable_size(p);
    void *q = rank_malloc(ctx, n);
    if (q) {
        memcpy(q, p, old < n ? old : n);
        rank_free(ctx, p, old);
    }
    return q;
}

static void handler_free(PyObject *capsule)
{
    PyDataMem_Handler *handler = PyCapsule_GetPointer(capsule, "mem_handler");
    heap_t *h = handler->allocator.ctx;
    pthread_mutex_lock(&h->lock);
    h->retired = 1;
    release_if_done(h);
    PyMem_RawFree(handler);
}

/* install(reserve_B): from now on numpy's arrays made in the calling greenlet's (or thread's) context come
 * from a new heap of that context's own, in a range of reserve_B bytes; returns the previous handler. */
static PyObject *install(PyObject *Py_UNUSED(self), PyObject *arg)
{
    size_t reserve = PyLong_AsSize_t(arg);
    if (reserve == (size_t)-1 && PyErr_Occurred())
        return NULL;
    heap_t *h = PyMem_RawCalloc(1, sizeof *h);
    PyDataMem_Handler *handler = PyMem_RawCalloc(1, sizeof *handler);
    if (!h || !handler)
        return PyErr_NoMemory();
    h->page = (size_t)sysconf(_SC_PAGESIZE);
    h->reserve = round_up(reserve, h->page);
    pthread_mutex_init(&h->lock, NULL);
    h->mmap_threshold = MMAP_THRESHOLD_B;
    h->trim_threshold = TRIM_THRESHOLD_B;
    snprintf(handler->name, sizeof handler->name, "ppt_rank_heap");
    handler->version = 1;
    handler->allocator = (PyDataMemAllocator){h, rank_malloc, rank_calloc, rank_realloc, rank_free};
    PyObject *capsule = PyCapsule_New(handler, "mem_handler", handler_free);
    if (!capsule)
        return NULL;
    PyObject *old = PyDataMem_SetHandler(capsule);
    Py_DECREF(capsule);
    return old;
}

/* restore(handler): numpy's handler of the calling context becomes handler again (what install returned). */
static PyObject *restore(PyObject *Py_UNUSED(self), PyObject *handler)
{
    PyObject *old = PyDataMem_SetHandler(handler);
    if (!old)
        return NULL;
    Py_DECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"install", install, METH_O, "install(reserve_B): numpy's arrays in this context come from a heap of its own"},
    {"restore", restore, METH_O, "restore(handler): put back the handler install returned"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, .m_name = "_rankheap", .m_size = -1, .m_methods = methods};

PyMODINIT_FUNC PyInit__rankheap(void)
{
    import_array();
    return PyModule_Create(&module);
}
