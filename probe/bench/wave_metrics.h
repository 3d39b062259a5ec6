/*
 * The metrics of a square wave (docs/wave.md), shared by every bench that
 * feeds edges to the edge analysis (rtscope/edges.h): wave.period,
 * wave.high, wave.rel_error and wave.duty labelled {"model": M,
 * "period_us": P}, one sample each per judged period, and the checks
 * recorded with wave.period that every observer of edges can give.
 */
#ifndef RTSCOPE_WAVE_METRICS_H
#define RTSCOPE_WAVE_METRICS_H

#include "rtscope/bench.h"
#include "rtscope/edges.h"

typedef struct {
    rts_metric *period, *high, *rel_error, *duty;
    uint64_t nominal_ns;
} wave_metrics;

/* The metric ids, NULL-terminated, for a bench's rts_bench.metrics. */
extern const char *const wave_metric_ids[];

/* Make w's four metrics for the bench of ctx, labelled with model and the
 * nominal period_us (an integer label when whole, else its text), and set
 * w->nominal_ns. False after rts_ctx_fail (no room for a metric). */
bool wave_metrics_make(rts_ctx *ctx, wave_metrics *w, const char *model, double period_us);

/* One judged period into w's metrics: the on_period of rts_edges_init,
 * with w as its arg. */
void wave_metrics_add(void *w, const rts_period *p);

/* Mark all of w's metrics invalid for one reason (printf-style): they all
 * come from the same edges. */
void wave_metrics_invalidate(const wave_metrics *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record on wave.period what the analysis counted (edges_seen,
 * periods_judged, periods_blind, missed_periods), the observer's
 * resolution_ns and the fraction of the time it was blind. */
void wave_metrics_check(const wave_metrics *w, const rts_edge_counts *c, uint64_t resolution_ns,
                        double blind_fraction);

#endif
