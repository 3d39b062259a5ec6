/*
 * Preemption latency: a low-priority thread keeps the measuring CPU busy;
 * an event makes a blocked higher-priority thread ready; a sample is the
 * time from the event to the higher thread's first instruction.
 *
 * lat.preempt — the event is the low thread itself giving a semaphore the
 *   high thread waits on (stamp before the give, stamp after the take;
 *   the wake_pair checks that the high thread really blocked and
 *   preempted). Between events the low thread computes for busy_us, and
 *   leaves the CPU for a share of every 10 ms (rest) so that RT
 *   throttling never stops the pair. A
 *   sample over threshold_us may keep the kernel's trace from the give to
 *   the take (trace=first|each: the wake_pair keeps it).
 * lat.preempt_timer — the event is a timer: the high thread sleeps until
 *   absolute times (cyclictest's loop) while the low thread spins without
 *   pause but one: for a share of each interval (rest), half an interval
 *   after each planned time, it sleeps, so that RT throttling (95 % of a
 *   second by default) never stops it while the CPU is still busy at
 *   every expiry. A sample is the wake-up's lateness. The low thread's
 *   progress is checked: it really kept the CPU busy.
 */
#include "wake_pair.h"

/* Busy work the compiler cannot drop: bounded by the clock, not a count. */
static void compute_for(uint64_t ns)
{
    uint64_t end = rts_time_ns() + ns;
    while (rts_time_ns() < end)
        ;
}

/* ------------------------------------------------- semaphore (lat.preempt) */

typedef struct {
    rts_ctx *ctx;
    wake_pair pair;
    uint64_t busy_ns, warmup;
    uint64_t rests;
} sem_source;

static void busy_giver(void *p)
{
    sem_source *s = p;
    bool ok = true;
    bench_rest rest;
    bench_rest_start(&rest, s->ctx);
    for (uint64_t i = 0; ok && bench_more(s->ctx, i, s->warmup, 0); i++) {
        bench_rest_due(&rest);
        compute_for(s->busy_ns);
        ok = wake_pair_round(&s->pair, i >= s->warmup);
    }
    s->rests = rest.rests;
    rts_ctx_stop(s->ctx);
}

static int run_sem(rts_ctx *ctx)
{
    sem_source s = { .ctx = ctx, .busy_ns = (uint64_t)(rts_ctx_param(ctx, "busy_us") * 1000.0),
                     .warmup = (uint64_t)rts_ctx_param(ctx, "warmup") };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    rts_metric *m = bench_stamp_metric(ctx, "lat.preempt", "a busy low-priority thread gives a semaphore: give to "
                                                           "the first instruction of the higher-priority taker");
    rts_sem *sem = NULL;
    if (!m)
        return 1;
    m->threshold_ns = bench_threshold_ns(ctx);
    if (rts_sem_create(&sem, 0, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return 1;
    }
    bool started = wake_pair_start(&s.pair, ctx, m, &wake_pair_sem_ops, sem, cpu);
    if (started)
        s.pair.tracer = spike_trace_start(ctx, m);
    bool ran = started && bench_run_measurer(ctx, "lat-preempt-low", cpu, s.pair.waker_offset, busy_giver, &s, m);
    if (started) {
        wake_pair_finish(&s.pair);
        if (s.pair.tracer)
            rts_metric_check_int(m, "trace_skipped", (long long)s.pair.trace_skipped);
        spike_trace_stop(ctx, s.pair.tracer, m);
    }
    rts_metric_check_int(m, "busy_ns", (long long)s.busy_ns);
    rts_metric_check_int(m, "rests", (long long)s.rests);
    rts_sem_destroy(sem);
    return ran ? 0 : 1;
}

/* ------------------------------------------------ timer (lat.preempt_timer) */

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    uint64_t origin_ns, interval_ns, rest_ns, warmup;
    bench_periodic counts;
    bench_counter spins, rests;
    bench_watch high_watch, low_watch;
} timer_source;

/* Spin; rest for rest_ns centred half an interval after each planned time
 * (the grid of bench_periodic_wakeups), so the CPU is busy at every expiry. */
static void spinner(void *p)
{
    timer_source *s = p;
    bench_watch_begin(&s->low_watch, rts_self_cpu());
    uint64_t now = rts_time_ns(), offset = s->interval_ns / 2 - s->rest_ns / 2;
    uint64_t rest_at = s->origin_ns + ((now - s->origin_ns) / s->interval_ns + 1) * s->interval_ns + offset;
    while (!rts_ctx_stopping(s->ctx)) {
        bench_count(&s->spins);
        if (s->rest_ns && rts_time_ns() >= rest_at) {
            rts_sleep_until_ns(rest_at + s->rest_ns);
            bench_count(&s->rests);
            now = rts_time_ns();
            while (rest_at <= now)
                rest_at += s->interval_ns;
        }
    }
    bench_watch_end(&s->low_watch);
}

static void sleeper(void *p)
{
    timer_source *s = p;
    bench_watch_begin(&s->high_watch, rts_self_cpu());
    bench_periodic_wakeups(s->ctx, s->m, s->origin_ns, s->interval_ns, s->warmup, &s->counts);
    bench_watch_end(&s->high_watch);
    rts_ctx_stop(s->ctx);
}

static int run_timer(rts_ctx *ctx)
{
    timer_source s = { .ctx = ctx, .interval_ns = (uint64_t)(rts_ctx_param(ctx, "interval_us") * 1000.0),
                       .warmup = (uint64_t)rts_ctx_param(ctx, "warmup") };
    s.rest_ns = (uint64_t)(rts_ctx_param(ctx, "rest") * (double)s.interval_ns);
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    s.origin_ns = rts_time_ns();
    s.m = bench_latency_metric(ctx, "lat.preempt_timer", "a timer readies a sleeping higher-priority thread while "
                                                         "a lower one computes on its CPU: planned expiry to its "
                                                         "first instruction", s.origin_ns);
    if (!s.m)
        return 1;
    s.m->threshold_ns = bench_threshold_ns(ctx);
    /* Trace before the spinner starts: setting tracefs up waits for work on every CPU (a kworker), which
     * a spinner that never rests would hold off until RT throttling stopped it. */
    s.counts.tracer = spike_trace_start(ctx, s.m);
    rts_thread *low = rts_ctx_spawn(ctx, "lat-preempt-spin", cpu, -1, spinner, &s);
    if (!low) {
        spike_trace_stop(ctx, s.counts.tracer, NULL);
        return 1;
    }
    bool ran = bench_run_measurer(ctx, "lat-preempt-high", cpu, 0, sleeper, &s, s.m);
    rts_ctx_stop(ctx);
    rts_thread_join(low);
    uint64_t spins = bench_read(&s.spins);
    rts_metric_check_int(s.m, "interval_ns", (long long)s.interval_ns);
    rts_metric_check_int(s.m, "wakeups", (long long)s.counts.wakeups);
    rts_metric_check_int(s.m, "overruns", (long long)s.counts.overruns);
    if (s.counts.tracer)
        rts_metric_check_int(s.m, "trace_skipped", (long long)s.counts.trace_skipped);
    spike_trace_stop(ctx, s.counts.tracer, s.m);
    rts_metric_check_int(s.m, "low_spins", (long long)spins);
    rts_metric_check_int(s.m, "rests", (long long)bench_read(&s.rests));
    bench_check_same_cpu(s.m, &s.high_watch, &s.low_watch);
    if (ran && spins == 0)
        rts_metric_invalidate(s.m, "the low-priority thread never ran: nothing was preempted");
    return ran ? 0 : 1;
}

/* ------------------------------------------------------------ the benches */

static const rts_param_decl sem_params[] = {
    { "busy_us", "100", 0, 1000000, false, "the low thread's computing between two gives, in microseconds" },
    RTS_PARAM_CPU("the last CPU"),
    BENCH_PARAM_WARMUP("100"),
    BENCH_PARAM_THRESHOLD,
    BENCH_PARAM_REST,
    SPIKE_TRACE_PARAMS,
};

static const char *const sem_metrics[] = { "lat.preempt", NULL };

RTS_BENCH_DEFINE(rts_bench_lat_preempt) = {
    .id = "lat.preempt",
    .summary = "preemption latency: a busy low-priority thread gives a semaphore, to the higher-priority taker",
    .metrics = sem_metrics,
    .params = sem_params,
    .nparams = sizeof sem_params / sizeof sem_params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .run = run_sem,
};

static const rts_param_decl timer_params[] = {
    { "interval_us", "1000", 10, 10000000, false, "period of the higher-priority thread in microseconds" },
    RTS_PARAM_CPU("the last CPU"),
    { "warmup", "0", 0, 1e9, true, "wake-ups not recorded at the start" },
    BENCH_PARAM_THRESHOLD,
    { "rest", "0.1", 0, 0.5, false, "share of each interval the low thread sleeps, half an interval after each "
                                    "planned time, so that RT throttling never stops it (0: never)" },
    SPIKE_TRACE_PARAMS,
};

static const char *const timer_metrics[] = { "lat.preempt_timer", NULL };

RTS_BENCH_DEFINE(rts_bench_lat_preempt_timer) = {
    .id = "lat.preempt_timer",
    .summary = "preemption latency: a timer readies a higher-priority thread over a busy lower one",
    .metrics = timer_metrics,
    .params = timer_params,
    .nparams = sizeof timer_params / sizeof timer_params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .run = run_timer,
};
