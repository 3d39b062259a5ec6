/*
 * tm.memory — Thread-Metric's memory allocation test: one thread takes a
 * 128-byte block from a fixed-block pool and returns it. A period's count
 * is the pairs made. The pool is the kernel's own where it has one
 * (ThreadX's block pool), else rtscope's free list (port/common/pool.c),
 * which checks nothing in the measured path; so the pool is checked once
 * the test has ended: every block is there, once.
 */
#include "thread_metric.h"

#define BLOCK_BYTES 128
#define BLOCKS 16 /* Thread-Metric's 2048-byte pool */

typedef struct {
    rts_pool *pool;
    bench_counter pairs;
    bool failed;
} memory_state;

static inline void memory_loop(tm_thread *th, memory_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    while (tm_in_phase(t, phase)) {
        void *block;
        if (work && (rts_pool_alloc(s->pool, &block) != RTS_OK || rts_pool_free(s->pool, block) != RTS_OK)) {
            s->failed = true;
            break;
        }
        bench_count(&s->pairs);
    }
}

TM_ONE_THREAD(worker, memory_loop, memory_state)

/* The blocks the pool hands out until it has none left, each once (at most
 * BLOCKS + 1 are asked for); all given back. */
static unsigned distinct_blocks(rts_pool *pool)
{
    void *blocks[BLOCKS + 1];
    unsigned n = 0;
    bool distinct = true;
    while (n < BLOCKS + 1 && rts_pool_alloc(pool, &blocks[n]) == RTS_OK) {
        for (unsigned i = 0; i < n; i++)
            distinct = distinct && blocks[i] != blocks[n];
        n++;
    }
    for (unsigned i = 0; i < n; i++)
        rts_pool_free(pool, blocks[i]);
    return distinct ? n : 0;
}

static int run(rts_ctx *ctx)
{
    memory_state s = { .pool = NULL };
    tm_test t = { 0 };
    if (rts_pool_create(&s.pool, BLOCK_BYTES, BLOCKS) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a block pool");
        return 1;
    }
    if (tm_init(&t, ctx, "tm.memory", "128-byte block allocate and release pairs per period (fixed-block pool)",
                &s)) {
        tm_add_counter(&t, &s.pairs, TM_COUNTED | TM_LOOP);
        tm_spawn(&t, "tm.memory", 0, worker);
        tm_measure(&t);
        unsigned blocks = distinct_blocks(s.pool);
        rts_metric_check_bool(t.m, "pool_failed", s.failed);
        rts_metric_check_int(t.m, "blocks_after", blocks);
        if (s.failed)
            rts_metric_invalidate(t.m, "an allocation from a pool with free blocks, or its release, failed");
        else if (blocks != BLOCKS)
            rts_metric_invalidate(t.m, "after the test the pool held %u distinct free blocks of its %u", blocks,
                                  BLOCKS);
    }
    rts_pool_destroy(s.pool);
    return t.m ? 0 : 1;
}

RTS_BENCH_DEFINE(rts_bench_tm_memory) =
    TM_BENCH("tm.memory", "Thread-Metric memory allocation: take and return a 128-byte block from a pool", 0);
