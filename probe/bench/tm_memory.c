/*
 * tm.memory — Thread-Metric's memory allocation test: one thread takes a
 * 128-byte block from a fixed-block pool and returns it. A period's count
 * is the pairs made.
 */
#include "thread_metric.h"

#define BLOCK_BYTES 128
#define BLOCKS 16 /* Thread-Metric's 2048-byte pool */

typedef struct {
    _Atomic uint64_t pairs;
    rts_pool *pool;
    uint64_t pool_errors;
} memory_state;

static void worker(void *p)
{
    tm_thread *th = p;
    memory_state *s = th->t->state;
    tm_thread_begin(th);
    while (!rts_ctx_stopping(th->t->ctx)) {
        void *block;
        if (rts_pool_alloc(s->pool, &block) != RTS_OK || rts_pool_free(s->pool, block) != RTS_OK) {
            s->pool_errors++;
            break;
        }
        tm_count(&s->pairs);
    }
    tm_thread_end(th);
}

static int run(rts_ctx *ctx)
{
    memory_state s = { .pool_errors = 0 };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.memory", "128-byte block allocate and release pairs per period (fixed-block pool)",
                 &s))
        return 1;
    if (rts_pool_create(&s.pool, BLOCK_BYTES, BLOCKS) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a block pool");
        return 1;
    }
    tm_add_counter(&t, &s.pairs);
    tm_spawn(&t, "tm-memory", 0, worker);
    tm_measure(&t);
    rts_metric_check_int(t.m, "pool_errors", (long long)s.pool_errors);
    if (s.pool_errors)
        rts_metric_invalidate(t.m, "an allocation from a pool with free blocks, or its release, failed");
    rts_pool_destroy(s.pool);
    return 0;
}

static const rts_param_decl params[] = { TM_PARAMS };
static const char *const metrics[] = { "tm.memory", NULL };

const rts_bench rts_bench_tm_memory = {
    .id = "tm.memory",
    .summary = "Thread-Metric memory allocation: take and return a 128-byte block from a pool",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .planned_s = tm_planned_s,
    .run = run,
};
