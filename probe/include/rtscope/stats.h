/*
 * Statistics in bounded memory: exact count/min/max/mean/stddev (Welford)
 * and a log-linear histogram from which percentiles are read.
 */
#ifndef RTSCOPE_STATS_H
#define RTSCOPE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "rtscope/config.h"

/* Values below RTS_HIST_SUB are exact; above, each power of two is split
 * into RTS_HIST_SUB linear buckets, so a bucket is at most 1/RTS_HIST_SUB
 * of its lower bound wide. Values of 2^RTS_HIST_MAX_EXP and more are
 * counted as overflow. Sized in rtscope/config.h (by default 3840 buckets,
 * 30 KiB: 0.78 % wide, up to 68.7 s in ns). */
#define RTS_HIST_SUB (1u << RTS_HIST_SUB_BITS)
#define RTS_HIST_BUCKETS (RTS_HIST_SUB + (RTS_HIST_MAX_EXP - RTS_HIST_SUB_BITS) * RTS_HIST_SUB)
#define RTS_HIST_LIMIT (UINT64_C(1) << RTS_HIST_MAX_EXP)

typedef struct {
    uint64_t counts[RTS_HIST_BUCKETS];
    uint64_t total;     /* samples in buckets and overflow */
    uint64_t overflow;  /* samples >= RTS_HIST_LIMIT */
} rts_hist;

/* Empty histogram. */
void rts_hist_init(rts_hist *h);

/* Count value v. */
void rts_hist_add(rts_hist *h, uint64_t v);

/* Add every count of src to h (one histogram of several threads' samples). */
void rts_hist_merge(rts_hist *h, const rts_hist *src);

/* Bucket index of v (v < RTS_HIST_LIMIT). */
size_t rts_hist_index(uint64_t v);

/* Smallest value in bucket i, and the number of values it spans. */
uint64_t rts_hist_lower(size_t i);
uint64_t rts_hist_width(size_t i);

/* The q-quantile (0 < q <= 1) by nearest rank: the middle of the bucket
 * holding the ceil(q*total)-th smallest sample; INFINITY when that sample
 * overflowed; NAN when empty. Callers clamp to the exact min and max. */
double rts_hist_quantile(const rts_hist *h, double q);

/* Running mean and variance (Welford), exact min and max. */
typedef struct {
    uint64_t n;
    double mean, m2, min, max;
} rts_welford;

/* No samples yet; then one more sample x. */
void rts_welford_init(rts_welford *w);
void rts_welford_add(rts_welford *w, double x);
/* w becomes the state of w's and src's samples together (Chan et al.'s
 * pairwise update: exact, no second pass). */
void rts_welford_merge(rts_welford *w, const rts_welford *src);
/* Sample standard deviation (n-1); 0 for fewer than two samples. */
double rts_welford_stddev(const rts_welford *w);

/* What a result reports for one distribution. Fields are NAN when empty. */
typedef struct {
    uint64_t count;
    double min, max, mean, stddev;
    double p50, p90, p99, p999, p9999;
} rts_summary;

/* Summary of a distribution from its Welford state and its histogram, which
 * counts the same samples in whole steps of resolution (1: the unit itself):
 * percentiles are read in steps and scaled back. */
void rts_summarize(rts_summary *s, const rts_welford *w, const rts_hist *h, double resolution);

/* Sort v[0..n) in ascending order, in place: a Shell sort, since the
 * arrays sorted are small (periods, calibration pairs) and the C library's
 * qsort is 1.5 KiB that a microcontroller build cannot spare. */
void rts_sort_u64(uint64_t *v, size_t n);

/* Summary of values[0..n), all the samples of w: exact percentiles by
 * linear interpolation between the closest ranks (the median of an even
 * count is the mean of the middle two). For the few samples of a count
 * metric, where a histogram bucket would blur them. */
void rts_summarize_exact(rts_summary *s, const rts_welford *w, const uint64_t *values, size_t n);

/* s shifted down by offset (floored at 0) — overhead adjustment. */
rts_summary rts_summary_shift(const rts_summary *s, double offset);

/* s multiplied by factor — unit conversion (ns to cycles). */
rts_summary rts_summary_scale(const rts_summary *s, double factor);

#endif
