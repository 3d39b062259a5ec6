/*
 * lat.wakeup — how late a periodic thread wakes: it sleeps until absolute
 * times on the monotonic clock, one interval apart, and each sample is the
 * actual wake-up minus the planned one (cyclictest's method).
 *
 * One measuring thread per selected CPU (cyclictest -a -t with one interval
 * for all, i.e. -d 0), all on one grid of planned times. With more than
 * one thread, lat.wakeup holds all their samples and lat.wakeup.cpuN (label
 * cpu: N) each thread's own.
 */
#include <stdio.h>

#include "bench_util.h"

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    int cpu;                  /* -1: not pinned */
    uint64_t origin_ns, interval_ns, warmup;
    bench_periodic counts;
    bench_watch watch;
    rts_thread *thread;
} wakeup_thread;

static void measurer(void *p)
{
    wakeup_thread *t = p;
    bench_watch_begin(&t->watch, t->cpu);
    bench_periodic_wakeups(t->ctx, t->m, t->origin_ns, t->interval_ns, t->warmup, &t->counts);
    bench_watch_end(&t->watch);
}

static const char description[] = "actual minus planned wake-up of a periodic thread (clock_nanosleep, absolute time)";

/* The metric thread t records into: its own, or all when it is alone. */
static rts_metric *thread_metric(rts_ctx *ctx, wakeup_thread *t, rts_metric *all, int nthreads)
{
    if (nthreads == 1)
        return all;
    char id[RTS_METRIC_ID_MAX];
    snprintf(id, sizeof id, "lat.wakeup.cpu%d", t->cpu);
    rts_metric *m = bench_latency_metric(ctx, id, description, t->origin_ns);
    if (m) {
        m->threshold_ns = all->threshold_ns;
        rts_metric_label_int(m, "cpu", t->cpu);
    }
    return m;
}

/* What thread t did, recorded on its metric. */
static void check_thread(wakeup_thread *t, int nthreads)
{
    if (nthreads > 1)
        rts_metric_check_int(t->m, "cpu", t->cpu);
    rts_metric_check_int(t->m, "interval_ns", (long long)t->interval_ns);
    rts_metric_check_int(t->m, "wakeups", (long long)t->counts.wakeups);
    rts_metric_check_int(t->m, "overruns", (long long)t->counts.overruns);
    if (t->counts.tracer)
        rts_metric_check_int(t->m, "trace_skipped", (long long)t->counts.trace_skipped);
    if (t->cpu >= 0)
        bench_check_same_cpu(t->m, &t->watch, NULL);
}

/* lat.wakeup over several threads: their samples merged, their counts summed. */
static void merge_threads(rts_metric *all, const wakeup_thread *threads, int n)
{
    long long wakeups = 0, overruns = 0, trace_skipped = 0;
    for (int i = 0; i < n; i++) {
        const rts_metric *m = threads[i].m;
        rts_metric_merge(all, m);
        wakeups += (long long)threads[i].counts.wakeups;
        overruns += (long long)threads[i].counts.overruns;
        trace_skipped += (long long)threads[i].counts.trace_skipped;
        if (m->invalid)
            rts_metric_invalidate(all, "%s: %s", m->id, m->invalid_reason);
    }
    rts_metric_check_int(all, "threads", n);
    rts_metric_check_int(all, "interval_ns", (long long)threads[0].interval_ns);
    rts_metric_check_int(all, "wakeups", wakeups);
    rts_metric_check_int(all, "overruns", overruns);
    if (threads[0].counts.tracer)
        rts_metric_check_int(all, "trace_skipped", trace_skipped);
}

static int run(rts_ctx *ctx)
{
    int cpus[RTS_MAX_CPUS];
    int n = rts_ctx_cpus(ctx, cpus);
    uint64_t origin = rts_time_ns();
    rts_metric *all = bench_latency_metric(ctx, "lat.wakeup", description, origin);
    wakeup_thread *threads = rts_heap_calloc((size_t)n, sizeof *threads);
    if (!all || !threads) {
        if (all)
            rts_ctx_fail(ctx, "out of memory for %d measuring threads", n);
        rts_heap_free(threads);
        return 1;
    }
    all->threshold_ns = bench_threshold_ns(ctx);
    rts_ctx_param_set(ctx, "duration_s", rts_ctx_planned_s(ctx));
    uint64_t interval_ns = (uint64_t)(rts_ctx_param(ctx, "interval_us") * 1000.0);
    uint64_t warmup = (uint64_t)rts_ctx_param(ctx, "warmup");
    spike_tracer *tracer = spike_trace_start(ctx, all);
    bool ok = true;
    int started = 0;
    for (int i = 0; ok && i < n; i++) {
        wakeup_thread *t = &threads[i];
        *t = (wakeup_thread){
            .ctx = ctx, .cpu = cpus[i], .origin_ns = origin, .interval_ns = interval_ns, .warmup = warmup,
            .counts = { .tracer = tracer },
        };
        t->m = thread_metric(ctx, t, all, n);
        t->thread = t->m ? rts_ctx_spawn(ctx, "lat-wakeup", t->cpu, 0, measurer, t) : NULL;
        ok = t->thread != NULL;
        started += ok;
    }
    if (ok)
        rts_ctx_wait(ctx, threads[0].m);
    rts_ctx_stop(ctx);
    for (int i = 0; i < started; i++) {
        rts_thread_join(threads[i].thread);
        check_thread(&threads[i], n);
    }
    if (ok && n > 1)
        merge_threads(all, threads, n);
    spike_trace_stop(ctx, tracer, all);
    rts_heap_free(threads);
    return ok ? 0 : 1;
}

/* Its own duration when set, so a suite can give it longer than the rest. */
static double planned_s(const rts_ctx *ctx)
{
    return rts_ctx_param(ctx, "duration_s");
}

static const rts_param_decl params[] = {
    { "interval_us", "1000", 10, 10000000, false, "period of each measuring thread in microseconds" },
    { "cpu", "-1", -1, RTS_MAX_CPUS - 1, true, "one thread on this CPU; -1: one per CPU of --cpus, else one unpinned" },
    { "warmup", "0", 0, 1e9, true, "wake-ups of each thread not recorded at the start" },
    BENCH_PARAM_THRESHOLD,
    { "duration_s", "0", 0, 1e7, false, "measuring time in seconds; 0: the run's --duration" },
    SPIKE_TRACE_PARAMS,
};

static const char *const metrics[] = { "lat.wakeup", "lat.wakeup.cpu<N>", NULL };

RTS_BENCH_DEFINE(rts_bench_lat_wakeup) = {
    .id = "lat.wakeup",
    .summary = "wake-up latency of periodic threads on absolute clock_nanosleep, one per CPU (cyclictest's method)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .planned_s = planned_s,
    .run = run,
};
