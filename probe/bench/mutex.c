/*
 * mutex.ops — the cost of an uncontended mutex: one thread locks and
 * unlocks, each call timed on its own (mutex.lock, mutex.unlock). With
 * inherit=1 the mutex applies priority inheritance.
 */
#include "bench_util.h"

typedef struct {
    rts_ctx *ctx;
    rts_metric *lock, *unlock;
    rts_mutex *mx;
    uint64_t warmup, count;
    uint64_t pairs;
} mutex_state;

static void measurer(void *p)
{
    mutex_state *s = p;
    const rts_timing *t = rts_ctx_timing(s->ctx);
    for (uint64_t i = 0; bench_more(s->ctx, i, s->warmup, s->count); i++) {
        /* 1. Stamp, lock, stamp, unlock, stamp: the middle stamp ends one
         *    sample and starts the other. */
        uint64_t t0 = rts_stamp(t);
        rts_status locked = rts_mutex_lock(s->mx);
        uint64_t t1 = rts_stamp(t);
        rts_status unlocked = rts_mutex_unlock(s->mx);
        uint64_t t2 = rts_stamp(t);
        /* 2. Both calls must have worked; record after the warm-up. */
        if (locked != RTS_OK || unlocked != RTS_OK) {
            rts_metric_invalidate(s->lock, "lock: %s, unlock: %s", rts_status_str(locked),
                                  rts_status_str(unlocked));
            rts_metric_invalidate(s->unlock, "lock: %s, unlock: %s", rts_status_str(locked),
                                  rts_status_str(unlocked));
            break;
        }
        if (i >= s->warmup) {
            s->pairs++;
            rts_metric_add(s->lock, (double)(t1 - t0));
            rts_metric_add(s->unlock, (double)(t2 - t1));
        }
    }
    rts_ctx_stop(s->ctx);
}

static int run(rts_ctx *ctx)
{
    mutex_state s = { .ctx = ctx, .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                      .count = (uint64_t)rts_ctx_param(ctx, "count") };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    s.lock = bench_stamp_metric(ctx, "mutex.lock", "one lock of a free mutex");
    s.unlock = s.lock ? bench_stamp_metric(ctx, "mutex.unlock", "one unlock of a mutex nobody waits for") : NULL;
    if (!s.unlock || !(s.mx = bench_mutex_create(ctx)))
        return 1;
    bool ran = bench_run_measurer(ctx, "mutex-measure", cpu, 0, measurer, &s, s.lock);
    rts_metric_check_int(s.lock, "pairs", (long long)s.pairs);
    rts_metric_check_int(s.unlock, "pairs", (long long)s.pairs);
    rts_mutex_destroy(s.mx);
    return ran ? 0 : 1;
}

static const rts_param_decl params[] = {
    BENCH_PARAM_COUNT,
    RTS_PARAM_CPU("the last CPU"),
    BENCH_PARAM_INHERIT,
    BENCH_PARAM_WARMUP("1000"),
};

static const char *const metrics[] = { "mutex.lock", "mutex.unlock", NULL };

RTS_BENCH_DEFINE(rts_bench_mutex) = {
    .id = "mutex.ops",
    .summary = "uncontended mutex: one lock (mutex.lock) and one unlock (mutex.unlock) by one thread",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .run = run,
};
