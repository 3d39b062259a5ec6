/*
 * lat.wakeup — how late a periodic thread wakes: it sleeps until absolute
 * times on the monotonic clock, one interval apart, and each sample is the
 * actual wake-up minus the planned one (cyclictest's method).
 */
#include "bench_util.h"

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    uint64_t interval_ns;
    uint64_t warmup;
    bench_periodic counts;
} wakeup_state;

static void measurer(void *p)
{
    wakeup_state *s = p;
    bench_periodic_wakeups(s->ctx, s->m, s->interval_ns, s->warmup, &s->counts);
    rts_ctx_stop(s->ctx);
}

static int run(rts_ctx *ctx)
{
    wakeup_state s = {
        .ctx = ctx,
        .interval_ns = (uint64_t)(rts_ctx_param(ctx, "interval_us") * 1000.0),
        .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
    };
    int cpu = rts_ctx_cpu(ctx, -1);
    s.m = rts_ctx_metric(ctx, "lat.wakeup", "actual minus planned wake-up of a periodic thread "
                                            "(clock_nanosleep, absolute time)", false);
    if (!s.m)
        return 1;
    /* The planned time is exact; only the read after waking is in the
     * sample, as in cyclictest, which does not subtract it either. */
    s.m->overhead_ns = 0.0;
    if (!bench_run_measurer(ctx, "lat-wakeup", cpu, 0, measurer, &s, s.m))
        return 1;
    rts_metric_check_int(s.m, "interval_ns", (long long)s.interval_ns);
    rts_metric_check_int(s.m, "wakeups", (long long)s.counts.wakeups);
    rts_metric_check_int(s.m, "overruns", (long long)s.counts.overruns);
    return 0;
}

static const rts_param_decl params[] = {
    { "interval_us", "1000", 10, 10000000, false, "period of the measuring thread in microseconds" },
    RTS_PARAM_CPU("not pinned"),
    { "warmup", "0", 0, 1e9, true, "wake-ups not recorded at the start" },
};

static const char *const metrics[] = { "lat.wakeup", NULL };

const rts_bench rts_bench_lat_wakeup = {
    .id = "lat.wakeup",
    .summary = "wake-up latency of a periodic thread on absolute clock_nanosleep (cyclictest's method)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .run = run,
};
