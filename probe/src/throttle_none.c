/*
 * RT throttling on an RTOS (every build of one; the Makefile's ON_LINUX):
 * its scheduler never stops a thread for using its time, so no metric
 * watches for it and the code that would (throttle.c) is left out.
 */
#include "context.h"
#include "metrics.h"
#include "rtsetup.h"

void rts_ctx_watch_throttling(rts_ctx *ctx, rts_metric *m) { (void)ctx, (void)m; }

bool rts_metric_watch_throttling(rts_metric *m, uint64_t period_ns, uint64_t stop_ns)
{
    (void)m, (void)period_ns, (void)stop_ns;
    return false;
}

/* Never called: a metric here has no throttle notes (m->throttle NULL). */
void rts_metric_note_throttling(rts_metric *m, double v) { (void)m, (void)v; }

void rts_metric_merge_throttling(rts_metric *m, const rts_metric *src) { (void)m, (void)src; }

void rts_metric_judge_throttling(rts_metric *m) { (void)m; }

void rts_warn_rt_throttling(const rts_sysinfo *sys, const rts_rtconfig *granted, rts_warnings *warnings)
{
    (void)sys, (void)granted, (void)warnings;
}
