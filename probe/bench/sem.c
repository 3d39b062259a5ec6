/*
 * sem.ops — the cost of semaphore operations. sem.signal: one give with no
 * waiter (the token is taken back, untimed). sem.wake: one give that wakes
 * a blocked higher-priority waiter, from just before the give to the
 * waiter's first instruction after its take returns. The measuring thread
 * alternates the two, one of each per iteration, on one CPU.
 */
#include "wake_pair.h"

typedef struct {
    rts_ctx *ctx;
    rts_metric *signal, *wake;
    rts_sem *plain, *wakeup;
    wake_pair pair;
    uint64_t warmup, count;
    uint64_t signals, lost_tokens;
} sem_state;

/* One timed give nobody waits for; false if the token was not there after. */
static bool signal_once(sem_state *s, bool record)
{
    const rts_timing *t = rts_ctx_timing(s->ctx);
    /* 1. Give with no waiter, between two stamps. */
    uint64_t t0 = rts_stamp(t);
    rts_status st = rts_sem_give(s->plain);
    uint64_t t1 = rts_stamp(t);
    /* 2. Take the token back without waiting: it must be there. */
    if (st != RTS_OK || rts_sem_take(s->plain, 0) != RTS_OK) {
        s->lost_tokens++;
        rts_metric_invalidate(s->signal, "a token given was not there to take back (%s)", rts_status_str(st));
        return false;
    }
    if (record) {
        s->signals++;
        rts_metric_add(s->signal, (double)(t1 - t0));
    }
    return true;
}

static void measurer(void *p)
{
    sem_state *s = p;
    bool ok = true;
    for (uint64_t i = 0; ok && bench_more(s->ctx, i, s->warmup, s->count); i++) {
        bool record = i >= s->warmup;
        ok = signal_once(s, record) && wake_pair_round(&s->pair, record);
    }
    rts_ctx_stop(s->ctx);
}

static int run(rts_ctx *ctx)
{
    sem_state s = { .ctx = ctx, .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                    .count = (uint64_t)rts_ctx_param(ctx, "count") };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    s.signal = bench_stamp_metric(ctx, "sem.signal", "one semaphore give with no waiter");
    s.wake = s.signal ? bench_stamp_metric(ctx, "sem.wake", "a semaphore give that wakes a blocked higher-"
                                           "priority waiter: give to the waiter's first instruction")
                      : NULL;
    if (!s.wake)
        return 1;
    if (rts_sem_create(&s.plain, 0, 1) != RTS_OK || rts_sem_create(&s.wakeup, 0, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create semaphores");
        rts_sem_destroy(s.plain);
        return 1;
    }
    bool started = wake_pair_start(&s.pair, ctx, s.wake, &wake_pair_sem_ops, s.wakeup, cpu);
    bool ran = started && bench_run_measurer(ctx, "sem-measure", cpu, s.pair.waker_offset, measurer, &s, s.wake);
    if (started)
        wake_pair_finish(&s.pair);
    rts_metric_check_int(s.signal, "signals", (long long)s.signals);
    rts_metric_check_int(s.signal, "lost_tokens", (long long)s.lost_tokens);
    rts_sem_destroy(s.plain);
    rts_sem_destroy(s.wakeup);
    return ran ? 0 : 1;
}

static const rts_param_decl params[] = {
    BENCH_PARAM_COUNT,
    RTS_PARAM_CPU("the last CPU"),
    BENCH_PARAM_WARMUP("1000"),
};

static const char *const metrics[] = { "sem.signal", "sem.wake", NULL };

RTS_BENCH_DEFINE(rts_bench_sem) = {
    .id = "sem.ops",
    .summary = "semaphore: one give with no waiter (sem.signal); one give that wakes a higher-priority "
               "waiter, to its first instruction (sem.wake)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .run = run,
};
