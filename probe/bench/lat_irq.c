/*
 * lat.irq — interrupt latency: a periodic timer interrupt's planned expiry
 * to the first instruction of its handler, on a thread that sleeps between
 * interrupts (pinned, at the granted priority).
 *
 * Source, recorded in the result: on POSIX a POSIX timer delivering a
 * real-time signal to the measuring thread, so a sample is the kernel's
 * timer interrupt, the signal's delivery and the thread's wake-up — what a
 * user-space handler of a timer gets, not the bare hardware IRQ entry
 * (which only an in-kernel tracer such as timerlat sees).
 */
#include "bench_util.h"

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    uint64_t interval_ns, warmup;
    uint64_t handled, early, missed;
    rts_status start_status;
    bench_watch watch;
    /* A sample over the threshold, for the measuring thread to keep the
     * trace of (the handler cannot read one): its planned and entered
     * times, posted by the handler when none is pending (the flag is
     * pointer-wide: lock-free on a 32-bit MCU too). */
    spike_tracer *tracer;
    _Atomic uintptr_t spike_posted;
    uint64_t spike_planned, spike_entered;
} irq_state;

/* Interrupt context: record only. */
static void on_expiry(void *arg, uint64_t planned, uint64_t entered)
{
    irq_state *s = arg;
    if (entered < planned) {
        s->early++;
        return;
    }
    if (s->handled++ >= s->warmup) {
        rts_metric_add_at(s->m, (double)(entered - planned), planned);
        if (s->tracer && s->m->threshold_ns && entered - planned >= s->m->threshold_ns &&
            !atomic_load_explicit(&s->spike_posted, memory_order_relaxed)) {
            s->spike_planned = planned;
            s->spike_entered = entered;
            atomic_store_explicit(&s->spike_posted, 1, memory_order_release);
        }
    }
}

/* Keep the trace of the spike the handler posted, if any: the events are
 * still in the trace's buffer, which the capture reads back to them. */
static void trace_posted_spike(irq_state *s)
{
    if (!atomic_load_explicit(&s->spike_posted, memory_order_acquire))
        return;
    spike_trace_sample(s->tracer, s->m, s->spike_planned, s->spike_entered);
    atomic_store_explicit(&s->spike_posted, 0, memory_order_release);
}

static void measurer(void *p)
{
    irq_state *s = p;
    bench_watch_begin(&s->watch, rts_self_cpu());
    s->start_status = rts_timer_irq_start(rts_time_ns() + s->interval_ns, s->interval_ns, on_expiry, s);
    if (s->start_status == RTS_OK) {
        while (!rts_ctx_stopping(s->ctx)) {
            rts_sleep_ns(s->interval_ns * 50); /* the interrupts arrive meanwhile */
            trace_posted_spike(s);
        }
        rts_timer_irq_stop(&s->missed);
        trace_posted_spike(s);
    }
    bench_watch_end(&s->watch);
    rts_ctx_stop(s->ctx);
}

static int run(rts_ctx *ctx)
{
    irq_state s = {
        .ctx = ctx,
        .interval_ns = (uint64_t)(rts_ctx_param(ctx, "interval_us") * 1000.0),
        .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
    };
    int cpu = rts_ctx_cpu(ctx, -1);
    s.m = bench_latency_metric(ctx, "lat.irq", "periodic timer interrupt: planned expiry to handler entry (POSIX "
                                               "timer, signal directed at the sleeping measuring thread)",
                               rts_time_ns());
    if (!s.m)
        return 1;
    s.m->threshold_ns = bench_threshold_ns(ctx);
    s.tracer = spike_trace_start(ctx, s.m);
    bool ran = bench_run_measurer(ctx, "lat-irq", cpu, 0, measurer, &s, s.m);
    spike_trace_stop(ctx, s.tracer, s.m);
    if (!ran)
        return 1;
    if (s.start_status != RTS_OK) {
        rts_ctx_fail(ctx, "cannot start the timer interrupt: %s", rts_status_str(s.start_status));
        return 1;
    }
    rts_metric_check_int(s.m, "interval_ns", (long long)s.interval_ns);
    rts_metric_check_int(s.m, "interrupts", (long long)s.handled);
    rts_metric_check_int(s.m, "merged_expiries", (long long)s.missed);
    rts_metric_check_int(s.m, "early", (long long)s.early);
    rts_metric_check_bool(s.m, "timerlat", false);
    if (cpu >= 0)
        bench_check_same_cpu(s.m, &s.watch, NULL);
    if (s.early)
        rts_metric_invalidate(s.m, "%llu handlers ran before their planned expiry", (unsigned long long)s.early);
    return 0;
}

static const rts_param_decl params[] = {
    { "interval_us", "1000", 50, 10000000, false, "timer period in microseconds" },
    RTS_PARAM_CPU("not pinned"),
    { "warmup", "0", 0, 1e9, true, "interrupts not recorded at the start" },
    BENCH_PARAM_THRESHOLD,
    SPIKE_TRACE_PARAMS,
};

static const char *const metrics[] = { "lat.irq", NULL };

RTS_BENCH_DEFINE(rts_bench_lat_irq) = {
    .id = "lat.irq",
    .summary = "interrupt latency: periodic timer expiry to handler entry (POSIX timer signal)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_TIMER_IRQ,
    .run = run,
};
