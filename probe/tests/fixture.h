/*
 * A run made by hand for the tests of the result and its output: one bench
 * (fix.bench) with a parameter, fixed identity and times, metrics added by
 * the test with rts_metric_new.
 */
#ifndef RTSCOPE_FIXTURE_H
#define RTSCOPE_FIXTURE_H

#include <string.h>

#include "context.h"
#include "metrics.h"
#include "params.h"

static int fixture_bench_run(rts_ctx *ctx)
{
    (void)ctx;
    return 0;
}

static const rts_param_decl fixture_params[] = { { "n", "3", 0, 10, true, "a number" } };
static const char *const fixture_metric_ids[] = { "fix.metric", NULL };
static const rts_bench fixture_bench = {
    .id = "fix.bench",
    .summary = "a bench of the tests",
    .metrics = fixture_metric_ids,
    .params = fixture_params,
    .nparams = 1,
    .run = fixture_bench_run,
};

static char *fixture_argv[] = { "rtscope-probe", "run", "fix.bench" };

/* A complete run of fixture_bench, without metrics yet. */
static inline void fixture_run(rts_run *run, rts_run_request *req)
{
    memset(req, 0, sizeof *req);
    memset(run, 0, sizeof *run);
    req->benches[0] = &fixture_bench;
    req->nbenches = 1;
    req->argc = 3;
    req->argv = fixture_argv;
    req->duration_s = 1;
    req->series_window_ns = RTS_SERIES_WINDOW_DEFAULT_NS;
    req->requested = (rts_rtconfig){ .policy = RTS_POLICY_OTHER, .cpu_latency_us = -1 };
    run->req = req;
    char err[64];
    rts_params_resolve(run, err, sizeof err);
    memcpy(run->id, "0123456789abcdef", 17);
    run->started_sec = run->finished_sec = 1700000000;
    run->status = RTS_RUN_COMPLETE;
    run->sys = (rts_sysinfo){ .realtime_kernel = -1, .cpu_count = 1, .rt_runtime_us = -2, .rt_period_us = -2 };
    memcpy(run->sys.os, "TestOS", 7);
    memcpy(run->sys.arch, "test", 5);
    memcpy(run->sys.preempt_model, "unknown", 8);
    run->timing = (rts_timing){ .clock_resolution_ns = 1, .clock_overhead_ns = 20 };
    run->granted = req->requested;
    run->results[0].status = RTS_BENCH_OK;
    run->results[0].elapsed_s = 1;
}

/* A metric of the run's bench (NULL and a failed CHECK by the caller if not made). */
static inline rts_metric *fixture_metric(rts_run *run, const char *id, rts_unit unit, double resolution)
{
    char why[RTS_MESSAGE_TEXT];
    rts_bench_result *r = &run->results[0];
    rts_metric *m = rts_metric_new(id, "a metric of the tests", unit, resolution, &run->timing, 4, why, sizeof why);
    if (m)
        r->metrics[r->nmetrics++] = m;
    return m;
}

#endif
