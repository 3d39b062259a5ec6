/*
 * Metrics apart from any run: making and releasing them. What benches do
 * with a metric (record, merge, invalidate, check) is in rtscope/bench.h;
 * the context (context.c) makes metrics for a bench and fails the bench
 * when it cannot.
 */
#ifndef RTSCOPE_METRICS_H
#define RTSCOPE_METRICS_H

#include "rtscope/bench.h"

/* A fresh, empty metric called id (copied) with description (kept: it must
 * outlive the metric, e.g. a string literal), of unit, histogrammed in
 * steps of resolution in it, whose tick samples convert with timing,
 * keeping its first raw_cap samples. NULL with a reason in why when out of
 * memory, when id is longer than RTS_METRIC_ID_MAX - 1, when unit is not
 * an rts_unit or resolution not a positive number. Release with
 * rts_metric_free. */
rts_metric *rts_metric_new(const char *id, const char *description, rts_unit unit, double resolution,
                           const rts_timing *timing, uint64_t raw_cap, char *why, size_t whysize);

/* Keep the worst sample of each window of window_ns from origin_ns, for
 * windows windows (see rts_series), replacing any earlier series of m.
 * False when out of memory: m is unchanged then. */
bool rts_metric_keep_series(rts_metric *m, uint64_t origin_ns, uint64_t window_ns, uint64_t windows);

/* Note m's samples that may hold an RT-throttled stretch: the kernel
 * stops real-time threads for stop_ns of every period_ns (see
 * rts_throttle_notes). False when out of memory: m notes nothing then. */
bool rts_metric_watch_throttling(rts_metric *m, uint64_t period_ns, uint64_t stop_ns);

/* Note a sample of v ns of m that has just ended, long enough to hold a
 * throttled stretch (the clock read only for these rare long ones, after
 * the sample's own stamps); add src's notes to m's (rts_metric_merge). */
void rts_metric_note_throttling(rts_metric *m, double v);
void rts_metric_merge_throttling(rts_metric *m, const rts_metric *src);

/* Release m and everything it holds. NULL: nothing. */
void rts_metric_free(rts_metric *m);

#endif
