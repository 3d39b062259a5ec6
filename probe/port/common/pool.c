/*
 * The fixed-block pool of rtscope/port.h (rts_pool_*) for every port whose
 * OS has none: blocks carved from one allocation of the port's heap, the
 * free ones linked through their first bytes. Each call is what a user of
 * the OS would write for a lean pool, because tm.memory times it: one pop
 * or push of the free list under the port's pool lock (pool_lock.h on the
 * port's include path: a mutex on POSIX, a critical section on an RTOS,
 * each the cheapest lock its platform has around a few instructions,
 * inline), and no check of the block given back, as the kernels' own pools
 * (ThreadX's tx_block_release) check none. An OS with a pool of its own
 * (ThreadX's block pool, Zephyr's k_mem_slab) implements rts_pool_*
 * itself instead.
 */
#include "rtscope/port.h"

#include "pool_lock.h"

/* The distance between blocks of block_size bytes, pointer-aligned (a free
 * block holds a pointer); 0 when block_size or count is 0, or count blocks
 * would not fit in a size_t. */
static size_t block_stride(size_t block_size, unsigned count)
{
    size_t align = sizeof(void *);
    if (block_size == 0 || count == 0 || block_size > (SIZE_MAX - align) / count)
        return 0;
    return (block_size + align - 1) / align * align;
}

/* Link the count blocks at base, stride apart, in address order; the head. */
static void *link_blocks(unsigned char *base, size_t stride, unsigned count)
{
    void *head = NULL;
    for (unsigned i = count; i-- > 0;) {
        void **block = (void **)(base + (size_t)i * stride);
        *block = head;
        head = block;
    }
    return head;
}

/* Take the first free block, NULL when none is left. */
static void *take_free(void **head)
{
    void **block = *head;
    if (block)
        *head = *block;
    return block;
}

/* Give block back. */
static void give_free(void **head, void *block)
{
    *(void **)block = *head;
    *head = block;
}

struct rts_pool {
    rts_pool_lock lock;
    unsigned char *base;
    void *free_list;
};

rts_status rts_pool_create(rts_pool **out, size_t block_size, unsigned count)
{
    size_t stride = block_stride(block_size, count);
    if (!stride)
        return RTS_EINVAL;
    rts_pool *p = rts_heap_calloc(1, sizeof *p);
    if (!p)
        return RTS_ENOMEM;
    p->base = rts_heap_calloc(count, stride);
    if (!p->base || !rts_pool_lock_init(&p->lock)) {
        rts_heap_free(p->base);
        rts_heap_free(p);
        return RTS_ENOMEM;
    }
    p->free_list = link_blocks(p->base, stride, count);
    *out = p;
    return RTS_OK;
}

rts_status rts_pool_alloc(rts_pool *p, void **block)
{
    rts_pool_lock_take(&p->lock);
    void *taken = take_free(&p->free_list);
    rts_pool_lock_give(&p->lock);
    if (!taken)
        return RTS_ENOMEM;
    *block = taken;
    return RTS_OK;
}

rts_status rts_pool_free(rts_pool *p, void *block)
{
    rts_pool_lock_take(&p->lock);
    give_free(&p->free_list, block);
    rts_pool_lock_give(&p->lock);
    return RTS_OK;
}

void rts_pool_destroy(rts_pool *p)
{
    if (!p)
        return;
    rts_pool_lock_destroy(&p->lock);
    rts_heap_free(p->base);
    rts_heap_free(p);
}
