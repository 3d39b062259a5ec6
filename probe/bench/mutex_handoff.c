/*
 * mutex.handoff — a contended mutex changing hands: the holder unlocks
 * while a higher-priority waiter is blocked in lock on the same CPU; one
 * sample is the unlock's start to the waiter's return from lock. With
 * inherit=1 the mutex applies priority inheritance (the holder runs at the
 * waiter's priority while it blocks it).
 *
 * Each round: the holder locks, releases the waiter, which calls lock and
 * blocks; the holder stamps and unlocks; the waiter stamps on return from
 * lock and unlocks (see wake_pair.h for how blocking is made sure of and
 * checked).
 */
#include "wake_pair.h"

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    rts_mutex *mx;
    wake_pair pair;
    uint64_t warmup, count;
} handoff_state;

static bool lock(void *obj) { return rts_mutex_lock(obj) == RTS_OK; }

static bool unlock_round(void *obj, uint64_t round)
{
    (void)round;
    return rts_mutex_unlock(obj) == RTS_OK;
}

static bool lock_round(void *obj, uint64_t round)
{
    (void)round;
    return lock(obj);
}

static const wake_ops handoff_ops = {
    .prepare = lock, .wake = unlock_round, .wait = lock_round, .after = unlock_round,
};

static void holder(void *p)
{
    handoff_state *s = p;
    bool ok = true;
    for (uint64_t i = 0; ok && bench_more(s->ctx, i, s->warmup, s->count); i++)
        ok = wake_pair_round(&s->pair, i >= s->warmup);
    rts_ctx_stop(s->ctx);
}

static int run(rts_ctx *ctx)
{
    handoff_state s = { .ctx = ctx, .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                        .count = (uint64_t)rts_ctx_param(ctx, "count") };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    s.m = bench_stamp_metric(ctx, "mutex.handoff", "unlock of a mutex a higher-priority thread is blocked "
                                                   "on, to that thread's return from lock");
    if (!s.m || !(s.mx = bench_mutex_create(ctx)))
        return 1;
    bool started = wake_pair_start(&s.pair, ctx, s.m, &handoff_ops, s.mx, cpu);
    bool ran = started && bench_run_measurer(ctx, "mutex-holder", cpu, s.pair.waker_offset, holder, &s, s.m);
    if (started)
        wake_pair_finish(&s.pair);
    rts_mutex_destroy(s.mx);
    return ran ? 0 : 1;
}

static const rts_param_decl params[] = {
    BENCH_PARAM_COUNT,
    RTS_PARAM_CPU("the last CPU"),
    BENCH_PARAM_INHERIT,
    BENCH_PARAM_WARMUP("1000"),
};

static const char *const metrics[] = { "mutex.handoff", NULL };

RTS_BENCH_DEFINE(rts_bench_mutex_handoff) = {
    .id = "mutex.handoff",
    .summary = "contended mutex: unlock to the return from lock of a higher-priority waiter blocked on it, "
               "on one CPU",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .run = run,
};
