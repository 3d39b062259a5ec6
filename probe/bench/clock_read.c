/*
 * clock.read — the cost of reading the monotonic clock, the timestamp every
 * latency sample depends on: one sample is the delta of two back-to-back
 * reads. It also gives a quick way to record many samples (samples=N).
 */
#include "bench_util.h"

#define STOP_CHECK_EVERY 1024 /* reads between looks at the stop flag */

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    uint64_t limit; /* 0: until the duration ends */
    uint64_t zero_deltas;
} clock_state;

static void measurer(void *p)
{
    clock_state *s = p;
    uint64_t n = 0;
    while (!rts_ctx_stopping(s->ctx) && (s->limit == 0 || n < s->limit)) {
        for (unsigned i = 0; i < STOP_CHECK_EVERY && (s->limit == 0 || n < s->limit); i++, n++) {
            uint64_t a = rts_time_ns();
            uint64_t b = rts_time_ns();
            s->zero_deltas += b == a;
            rts_metric_add(s->m, (double)(b - a));
        }
    }
    rts_ctx_stop(s->ctx);
}

static int run(rts_ctx *ctx)
{
    clock_state s = { .ctx = ctx, .limit = (uint64_t)rts_ctx_param(ctx, "samples") };
    int cpu = rts_ctx_cpu(ctx, -1);
    s.m = rts_ctx_metric(ctx, "clock.read", "back-to-back monotonic clock reads (cost of one timestamp)", false);
    if (!s.m)
        return 1;
    if (!bench_run_measurer(ctx, "clock-read", cpu, 0, measurer, &s, s.m))
        return 1;
    /* Equal reads mean the clock is coarser than a read: the figure is then a
     * resolution, not a cost. */
    rts_metric_check_int(s.m, "zero_deltas", (long long)s.zero_deltas);
    return 0;
}

static const rts_param_decl params[] = {
    { "samples", "0", 0, 1e12, true, "stop after this many samples (0: run for the duration)" },
    RTS_PARAM_CPU("not pinned"),
};

static const char *const metrics[] = { "clock.read", NULL };

RTS_BENCH_DEFINE(rts_bench_clock_read) = {
    .id = "clock.read",
    .summary = "cost of one monotonic clock read (back-to-back reads)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .run = run,
};
