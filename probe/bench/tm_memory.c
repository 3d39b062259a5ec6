/*
 * tm.memory — Thread-Metric's memory allocation test: one thread takes a
 * 128-byte block from a fixed-block pool and returns it. A period's count
 * is the pairs made.
 */
#include "thread_metric.h"

#define BLOCK_BYTES 128
#define BLOCKS 16 /* Thread-Metric's 2048-byte pool */

static bool allocate_and_release(void *pool)
{
    void *block;
    return rts_pool_alloc(pool, &block) == RTS_OK && rts_pool_free(pool, block) == RTS_OK;
}

static int run(rts_ctx *ctx)
{
    rts_pool *pool = NULL;
    tm_test t = { 0 };
    if (rts_pool_create(&pool, BLOCK_BYTES, BLOCKS) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a block pool");
        return 1;
    }
    if (tm_init(&t, ctx, "tm.memory", "128-byte block allocate and release pairs per period (fixed-block pool)",
                pool)) {
        tm_run_loop(&t, allocate_and_release);
        rts_metric_check_bool(t.m, "pool_failed", t.op_failed);
        if (t.op_failed)
            rts_metric_invalidate(t.m, "an allocation from a pool with free blocks, or its release, failed");
    }
    rts_pool_destroy(pool);
    return t.m ? 0 : 1;
}

RTS_BENCH_DEFINE(rts_bench_tm_memory) =
    TM_BENCH("tm.memory", "Thread-Metric memory allocation: take and return a 128-byte block from a pool", 0);
