/*
 * ctxsw.yield — the cost of one context switch by yielding: two threads of
 * equal priority on one CPU call rts_thread_relinquish in turn. The thread
 * whose turn it is stamps, passes the turn and yields; the other, on
 * getting the CPU back from its own yield, stamps and records one switch.
 *
 * Only a strict-priority policy promises that a yield switches to an equal
 * peer (Linux's sched_yield under SCHED_OTHER need not); each thread counts
 * yields that came back to it with the turn not passed back, and any such
 * return makes the metric invalid.
 */
#include "bench_util.h"

/* Context switches per hand-over: one each, and a few more from other
 * tasks. Outside these bounds a sample is not one switch. */
#define MIN_SWITCHES_PER_TURN 0.9
#define MAX_SWITCHES_PER_TURN 1.5

typedef struct yield_state yield_state;

typedef struct {
    yield_state *s;
    unsigned index;        /* 0 or 1 */
    uint64_t turns;        /* turns it took after a yield, once measuring */
    uint64_t idle_returns; /* yields that came back without the turn, once measuring */
    bench_watch watch;
} yielder;

struct yield_state {
    rts_ctx *ctx;
    rts_metric *m;
    int cpu;
    uint64_t warmup, count;
    bench_counter ready;  /* threads at the start line */
    _Atomic unsigned turn;   /* index of the thread whose turn it is */
    uint64_t stamp;          /* written by the turn's holder only */
    bench_counter passes; /* turns passed on; written by the turn's holder only */
    bool start_timed_out;
    yielder threads[2];
};

/* Count, and once warmed up record, the switch that brought the turn:
 * from the other thread's stamp before its yield to ours (woke) after. */
static void count_switch(yielder *y, uint64_t woke)
{
    yield_state *s = y->s;
    uint64_t passes = atomic_load_explicit(&s->passes, memory_order_relaxed);
    if (passes >= s->warmup && bench_more(s->ctx, passes, s->warmup, s->count)) {
        y->turns++;
        rts_metric_add(s->m, (double)(woke - s->stamp));
    }
    atomic_store_explicit(&s->passes, ++passes, memory_order_relaxed);
    if (s->count && passes >= s->warmup + s->count)
        rts_ctx_stop(s->ctx);
}

/* Take the turn (yielded: it came by our yield, which returned at woke),
 * then stamp and pass it on. */
static void take_turn(yielder *y, const rts_timing *t, uint64_t woke, bool yielded)
{
    yield_state *s = y->s;
    /* 2. One switch, unless this is the first turn of all. */
    if (yielded)
        count_switch(y, woke);
    /* 3. Stamp, then pass the turn: the stamp is visible with it. */
    s->stamp = rts_stamp(t);
    atomic_store_explicit(&s->turn, 1 - y->index, memory_order_release);
}

static void yield_thread(void *p)
{
    yielder *y = p;
    yield_state *s = y->s;
    const rts_timing *t = rts_ctx_timing(s->ctx);
    bench_watch_begin(&y->watch, s->cpu);
    /* 1. Start together: each yield must find its peer ready to run. */
    atomic_fetch_add(&s->ready, 1);
    if (!bench_await(&s->ready, 2, BENCH_TIMEOUT_NS)) {
        s->start_timed_out = true;
        rts_ctx_stop(s->ctx);
    }
    uint64_t woke = 0;
    bool yielded = false;
    for (;;) {
        if (atomic_load_explicit(&s->turn, memory_order_acquire) == y->index)
            take_turn(y, t, woke, yielded);
        else if (yielded && atomic_load_explicit(&s->passes, memory_order_relaxed) > s->warmup &&
                 !rts_ctx_stopping(s->ctx))
            y->idle_returns++;
        if (rts_ctx_stopping(s->ctx))
            break;
        /* 4. Yield; the first instruction back is the stamp. */
        rts_thread_relinquish();
        woke = rts_stamp(t);
        yielded = true;
    }
    bench_watch_end(&y->watch);
}

static void record_checks(yield_state *s)
{
    rts_metric *m = s->m;
    const yielder *a = &s->threads[0], *b = &s->threads[1];
    uint64_t idle = a->idle_returns + b->idle_returns, turns = a->turns + b->turns;
    rts_metric_check_int(m, "turns_a", (long long)a->turns);
    rts_metric_check_int(m, "turns_b", (long long)b->turns);
    rts_metric_check_int(m, "idle_returns", (long long)idle);
    bench_check_same_cpu(m, &a->watch, &b->watch);
    if (s->start_timed_out)
        rts_metric_invalidate(m, "the two threads did not both start within 2 s");
    if (idle)
        rts_metric_invalidate(m, "relinquish did not switch: needs an equal-priority real-time policy "
                                 "(%llu of %llu yields came back to the yielder)",
                              (unsigned long long)idle, (unsigned long long)(idle + turns));
    uint64_t passes = atomic_load(&s->passes);
    if (a->watch.switches < 0 || b->watch.switches < 0 || passes == 0)
        return;
    double per_turn = (double)(a->watch.switches + b->watch.switches) / (double)passes;
    rts_metric_check_double(m, "switches_per_turn", per_turn);
    if (per_turn < MIN_SWITCHES_PER_TURN || per_turn > MAX_SWITCHES_PER_TURN)
        rts_metric_invalidate(m, "%.2f context switches per turn, not 1: a sample is not one switch", per_turn);
}

static int run(rts_ctx *ctx)
{
    yield_state s = { .ctx = ctx, .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                      .count = (uint64_t)rts_ctx_param(ctx, "count") };
    s.cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    s.m = bench_stamp_metric(ctx, "ctxsw.yield", "one switch between two equal-priority threads on one CPU "
                                                 "yielding in turn");
    if (!s.m)
        return 1;
    s.threads[0] = (yielder){ .s = &s, .index = 0 };
    s.threads[1] = (yielder){ .s = &s, .index = 1 };
    rts_thread *t[2];
    t[0] = rts_ctx_spawn(ctx, "yield-a", s.cpu, 0, yield_thread, &s.threads[0]);
    t[1] = t[0] ? rts_ctx_spawn(ctx, "yield-b", s.cpu, 0, yield_thread, &s.threads[1]) : NULL;
    rts_ctx_wait(ctx, s.m); /* a failed start stopped the run: this returns at once */
    for (unsigned i = 0; i < 2; i++)
        if (t[i])
            rts_thread_join(t[i]);
    if (t[1])
        record_checks(&s);
    return t[1] ? 0 : 1;
}

static const rts_param_decl params[] = {
    BENCH_PARAM_COUNT,
    RTS_PARAM_CPU("the last CPU"),
    BENCH_PARAM_WARMUP("1000"),
};

static const char *const metrics[] = { "ctxsw.yield", NULL };

RTS_BENCH_DEFINE(rts_bench_ctxsw_yield) = {
    .id = "ctxsw.yield",
    .summary = "context switch: two equal-priority threads on one CPU yielding in turn (one sample per switch)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .run = run,
};
