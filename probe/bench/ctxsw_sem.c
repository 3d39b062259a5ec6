/*
 * ctxsw.sem — the cost of one context switch: two threads pinned to one CPU
 * hand control back and forth through two semaphores. One round trip holds
 * two switches, so one sample is round trip / 2. The measurer leaves the
 * CPU for a share of every 10 ms between round trips (parameter rest), so
 * that RT throttling never stops the pair; the round trip after a pause
 * (caches the idle CPU may have let go) is not recorded.
 */
#include "bench_util.h"

/* A round trip on one CPU is two switches. A few more come from other
 * tasks preempting; far more means a hand-off itself costs extra switches
 * (e.g. a woken thread blocking again at once), so a sample is not one switch. */
#define MAX_SWITCHES_PER_ROUND_TRIP 2.5

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    rts_sem *ping, *pong;
    int cpu;
    uint64_t warmup;
    _Atomic bool done;
    uint64_t rounds, partner_rounds;
    bench_rest rest;
    bench_watch watch, partner_watch;
    bool partner_timed_out;
} ctxsw_state;

/* The partner answers every ping with a pong until told it is done. */
static void partner(void *p)
{
    ctxsw_state *s = p;
    bench_watch_begin(&s->partner_watch, s->cpu);
    for (;;) {
        if (rts_sem_take(s->ping, BENCH_TIMEOUT_NS) != RTS_OK) {
            s->partner_timed_out = true;
            break;
        }
        if (atomic_load(&s->done))
            break;
        s->partner_rounds++;
        rts_sem_give(s->pong);
    }
    bench_watch_end(&s->partner_watch);
}

/* One ping-pong; false if the partner did not answer. */
static bool round_trip(ctxsw_state *s)
{
    rts_sem_give(s->ping);
    return rts_sem_take(s->pong, BENCH_TIMEOUT_NS) == RTS_OK;
}

static void measurer(void *p)
{
    ctxsw_state *s = p;
    const rts_timing *t = rts_ctx_timing(s->ctx);
    bench_watch_begin(&s->watch, s->cpu);
    bool answered = true;
    /* 1. Warm up: caches, TLB and the scheduler's state settle. */
    for (uint64_t i = 0; i < s->warmup && answered && !rts_ctx_stopping(s->ctx); i++, s->rounds++)
        answered = round_trip(s);
    /* 2. Measure: stamp, hand over, be handed back, stamp; pause when due. */
    bench_rest_start(&s->rest, s->ctx);
    bool rested = false;
    while (answered && !rts_ctx_stopping(s->ctx)) {
        uint64_t t0 = rts_stamp(t);
        answered = round_trip(s);
        uint64_t t1 = rts_stamp(t);
        if (answered) {
            s->rounds++;
            if (!rested)
                rts_metric_add(s->m, (double)(t1 - t0) / 2.0);
        }
        rested = bench_rest_due(&s->rest);
    }
    if (!answered)
        rts_metric_invalidate(s->m, "the partner thread did not answer within 2 s");
    /* 3. Release the partner. */
    atomic_store(&s->done, true);
    rts_sem_give(s->ping);
    bench_watch_end(&s->watch);
    rts_ctx_stop(s->ctx);
}

static void record_checks(ctxsw_state *s)
{
    rts_metric *m = s->m;
    rts_metric_check_int(m, "round_trips", (long long)s->rounds);
    rts_metric_check_int(m, "partner_round_trips", (long long)s->partner_rounds);
    rts_metric_check_int(m, "rests", (long long)s->rest.rests);
    if (s->rounds != s->partner_rounds)
        rts_metric_invalidate(m, "round trips disagree: %llu measured, %llu answered",
                              (unsigned long long)s->rounds, (unsigned long long)s->partner_rounds);
    bench_check_same_cpu(m, &s->watch, &s->partner_watch);
    if (s->partner_timed_out && !m->invalid)
        rts_metric_invalidate(m, "the partner waited over 2 s for a ping");
    long long switches = s->watch.switches, partner_switches = s->partner_watch.switches;
    if (switches >= 0 && partner_switches >= 0 && s->rounds > 0) {
        double per_round = (double)(switches + partner_switches) / (double)s->rounds;
        rts_metric_check_double(m, "switches_per_round_trip", per_round);
        if (per_round > MAX_SWITCHES_PER_ROUND_TRIP)
            rts_metric_invalidate(m, "%.2f context switches per round trip, not 2: a sample is not one switch",
                                  per_round);
    }
}

static int run(rts_ctx *ctx)
{
    ctxsw_state s = { .ctx = ctx, .warmup = (uint64_t)rts_ctx_param(ctx, "warmup") };
    s.cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    s.m = rts_ctx_metric(ctx, "ctxsw.sem", "one switch between two threads on one CPU alternating through "
                                           "semaphores (round trip / 2)", true);
    if (!s.m)
        return 1;
    s.m->overhead_ns = rts_stamp_overhead_ns(rts_ctx_timing(ctx)) / 2.0;
    if (rts_sem_create(&s.ping, 0, 1) != RTS_OK || rts_sem_create(&s.pong, 0, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create semaphores");
        rts_sem_destroy(s.ping);
        return 1;
    }
    rts_thread *b = rts_ctx_spawn(ctx, "ctxsw-partner", s.cpu, 0, partner, &s);
    rts_thread *a = b ? rts_ctx_spawn(ctx, "ctxsw-measure", s.cpu, 0, measurer, &s) : NULL;
    if (a) {
        rts_ctx_wait(ctx, s.m);
        rts_thread_join(a);
    } else if (b) { /* the measurer never started: release the partner */
        atomic_store(&s.done, true);
        rts_sem_give(s.ping);
    }
    if (b)
        rts_thread_join(b);
    if (a)
        record_checks(&s);
    rts_sem_destroy(s.ping);
    rts_sem_destroy(s.pong);
    return a ? 0 : 1;
}

static const rts_param_decl params[] = {
    RTS_PARAM_CPU("the last CPU"),
    { "warmup", "1000", 0, 1e9, true, "round trips before measuring" },
    BENCH_PARAM_REST,
};

static const char *const metrics[] = { "ctxsw.sem", NULL };

RTS_BENCH_DEFINE(rts_bench_ctxsw_sem) = {
    .id = "ctxsw.sem",
    .summary = "context switch: two threads on one CPU alternating through semaphores (round trip / 2)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .run = run,
};
