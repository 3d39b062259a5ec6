/*
 * Fixed-size blocks carved from one allocation, the free ones linked
 * through their first bytes: the block pool (rts_pool_*) of ports whose OS
 * has none. The caller allocates the blocks, and holds its own lock around
 * rts_free_list_pop and rts_free_list_push.
 */
#ifndef RTSCOPE_FREE_LIST_H
#define RTSCOPE_FREE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The distance between blocks of block_size bytes, pointer-aligned (a free
 * block holds a pointer); 0 when block_size or count is 0, or count blocks
 * would not fit in a size_t. */
static inline size_t rts_free_list_stride(size_t block_size, unsigned count)
{
    size_t align = sizeof(void *);
    if (block_size == 0 || count == 0 || block_size > (SIZE_MAX - align) / count)
        return 0;
    return (block_size + align - 1) / align * align;
}

/* Link the count blocks at base, stride apart, in address order; the head. */
static inline void *rts_free_list_link(unsigned char *base, size_t stride, unsigned count)
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
static inline void *rts_free_list_pop(void **head)
{
    void **block = *head;
    if (block)
        *head = *block;
    return block;
}

/* Give block back. */
static inline void rts_free_list_push(void **head, void *block)
{
    *(void **)block = *head;
    *head = block;
}

/* Whether block is one of the count blocks at base, stride apart. */
static inline bool rts_free_list_owns(const unsigned char *base, size_t stride, unsigned count, const void *block)
{
    const unsigned char *b = block;
    return b >= base && b < base + (size_t)count * stride && (size_t)(b - base) % stride == 0;
}

#endif
