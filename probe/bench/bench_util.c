/* Helpers shared by the benches (see bench_util.h). */
#include "bench_util.h"

rts_metric *bench_stamp_metric(rts_ctx *ctx, const char *id, const char *description)
{
    rts_metric *m = rts_ctx_metric(ctx, id, description, true);
    if (m)
        m->overhead_ns = rts_stamp_overhead_ns(rts_ctx_timing(ctx));
    return m;
}

rts_metric *bench_latency_metric(rts_ctx *ctx, const char *id, const char *description, uint64_t origin_ns)
{
    rts_metric *m = rts_ctx_metric(ctx, id, description, false);
    if (!m)
        return NULL;
    m->overhead_ns = 0.0;
    return rts_ctx_metric_series(ctx, m, origin_ns) ? m : NULL;
}

bool bench_more(const rts_ctx *ctx, uint64_t i, uint64_t warmup, uint64_t count)
{
    return !rts_ctx_stopping(ctx) && (count == 0 || i < warmup + count);
}

uint64_t bench_threshold_ns(const rts_ctx *ctx)
{
    return (uint64_t)(rts_ctx_param(ctx, "threshold_us") * 1000.0);
}

void bench_rest_start(bench_rest *r, const rts_ctx *ctx)
{
    double share = rts_ctx_param(ctx, "rest");
    *r = (bench_rest){ .rest_ns = (uint64_t)(share * BENCH_REST_WINDOW_NS) };
    r->busy_ns = BENCH_REST_WINDOW_NS - r->rest_ns;
    r->next_ns = rts_time_ns() + r->busy_ns;
}

bool bench_rest_due(bench_rest *r)
{
    if (!r->rest_ns)
        return false;
    uint64_t now = rts_time_ns();
    if (now < r->next_ns)
        return false;
    rts_sleep_ns(r->rest_ns);
    r->rests++;
    r->next_ns = rts_time_ns() + r->busy_ns;
    return true;
}

bool bench_await(const bench_counter *v, uint64_t want, uint64_t timeout_ns)
{
    uint64_t deadline = 0;
    while (atomic_load_explicit(v, memory_order_acquire) != want) {
        uint64_t now = rts_time_ns();
        if (deadline == 0)
            deadline = now + timeout_ns;
        else if (now >= deadline)
            return false;
        rts_thread_relinquish();
    }
    return true;
}

bool bench_run_measurer(rts_ctx *ctx, const char *name, int cpu, int prio_offset, void (*fn)(void *), void *arg,
                        const rts_metric *progress)
{
    rts_thread *t = rts_ctx_spawn(ctx, name, cpu, prio_offset, fn, arg);
    if (!t)
        return false;
    rts_ctx_wait(ctx, progress);
    rts_thread_join(t);
    return true;
}

void bench_periodic_wakeups(rts_ctx *ctx, rts_metric *m, uint64_t origin_ns, uint64_t interval_ns, uint64_t warmup,
                            bench_periodic *out)
{
    /* Join the grid at its first point after now. */
    uint64_t now = rts_time_ns();
    uint64_t next = origin_ns + (now > origin_ns ? (now - origin_ns) / interval_ns + 1 : 1) * interval_ns;
    while (!rts_ctx_stopping(ctx)) {
        /* 1. Sleep until the planned time. */
        rts_sleep_until_ns(next);
        /* 2. Read the clock first thing after waking. */
        now = rts_time_ns();
        /* 3. Record lateness (the first warm-up wake-ups are dropped). */
        if (out->wakeups++ >= warmup) {
            rts_metric_add_at(m, (double)(now - next), next);
            /* 4. Over the threshold: keep the kernel's trace, then skip the periods its reading took. */
            if (spike_trace_sample(out->tracer, m, next, now)) {
                now = rts_time_ns();
                while (next + interval_ns <= now) {
                    next += interval_ns;
                    out->trace_skipped++;
                }
            }
        }
        /* 5. Plan the next wake-up; periods missed entirely are overruns. */
        next += interval_ns;
        while (next <= now) {
            next += interval_ns;
            out->overruns++;
        }
    }
}

rts_mutex *bench_mutex_create(rts_ctx *ctx)
{
    bool inherit = rts_ctx_param(ctx, "inherit") != 0.0;
    rts_mutex *m = NULL;
    rts_status st = rts_mutex_create(&m, inherit);
    if (st == RTS_ENOTSUP)
        rts_ctx_fail(ctx, "this port has no priority-inheritance mutexes (inherit=1)");
    else if (st != RTS_OK)
        rts_ctx_fail(ctx, "cannot create a%s mutex: %s", inherit ? " priority-inheritance" : "",
                     rts_status_str(st));
    return st == RTS_OK ? m : NULL;
}

void bench_watch_begin(bench_watch *w, int cpu)
{
    w->cpu = cpu;
    w->stayed = rts_self_cpu() == cpu;
    w->switches = rts_self_switches();
}

void bench_watch_end(bench_watch *w)
{
    w->stayed = w->stayed && rts_self_cpu() == w->cpu;
    w->switches = w->switches < 0 ? -1 : rts_self_switches() - w->switches;
}

void bench_check_same_cpu(rts_metric *m, const bench_watch *a, const bench_watch *b)
{
    bool same = a->stayed && (!b || b->stayed);
    rts_metric_check_bool(m, "same_cpu", same);
    if (!same)
        rts_metric_invalidate(m, "a thread left CPU %d while measuring: not all on one CPU", a->cpu);
}
