/* Welford moments and the log-linear histogram (see rtscope/stats.h). */
#include "rtscope/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rtscope/port.h"

void rts_hist_init(rts_hist *h) { memset(h, 0, sizeof *h); }

size_t rts_hist_index(uint64_t v)
{
    if (v < RTS_HIST_SUB)
        return (size_t)v;
    unsigned msb = 63u - (unsigned)__builtin_clzll(v); /* >= RTS_HIST_SUB_BITS */
    unsigned shift = msb - RTS_HIST_SUB_BITS;
    size_t sub = (size_t)(v >> shift) - RTS_HIST_SUB; /* 0 .. SUB-1 */
    return RTS_HIST_SUB + (size_t)shift * RTS_HIST_SUB + sub;
}

uint64_t rts_hist_lower(size_t i)
{
    if (i < RTS_HIST_SUB)
        return i;
    size_t shift = (i - RTS_HIST_SUB) / RTS_HIST_SUB;
    size_t sub = (i - RTS_HIST_SUB) % RTS_HIST_SUB;
    return (uint64_t)(RTS_HIST_SUB + sub) << shift;
}

uint64_t rts_hist_width(size_t i)
{
    if (i < RTS_HIST_SUB)
        return 1;
    return UINT64_C(1) << ((i - RTS_HIST_SUB) / RTS_HIST_SUB);
}

void rts_hist_add(rts_hist *h, uint64_t v)
{
    h->total++;
    if (v >= RTS_HIST_LIMIT)
        h->overflow++;
    else
        h->counts[rts_hist_index(v)]++;
}

void rts_hist_merge(rts_hist *h, const rts_hist *src)
{
    for (size_t i = 0; i < RTS_HIST_BUCKETS; i++)
        h->counts[i] += src->counts[i];
    h->total += src->total;
    h->overflow += src->overflow;
}

double rts_hist_quantile(const rts_hist *h, double q)
{
    if (h->total == 0)
        return NAN;
    uint64_t rank = (uint64_t)ceil(q * (double)h->total);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < RTS_HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            return (double)rts_hist_lower(i) + (double)(rts_hist_width(i) - 1) / 2.0;
    }
    return INFINITY;
}

void rts_welford_init(rts_welford *w)
{
    w->n = 0;
    w->mean = w->m2 = 0.0;
    w->min = INFINITY;
    w->max = -INFINITY;
}

void rts_welford_add(rts_welford *w, double x)
{
    w->n++;
    double delta = x - w->mean;
    w->mean += delta / (double)w->n;
    w->m2 += delta * (x - w->mean);
    if (x < w->min)
        w->min = x;
    if (x > w->max)
        w->max = x;
}

void rts_welford_merge(rts_welford *w, const rts_welford *src)
{
    if (src->n == 0)
        return;
    double n = (double)(w->n + src->n);
    double delta = src->mean - w->mean;
    w->m2 += src->m2 + delta * delta * (double)w->n * (double)src->n / n;
    w->mean += delta * (double)src->n / n;
    w->n += src->n;
    if (src->min < w->min)
        w->min = src->min;
    if (src->max > w->max)
        w->max = src->max;
}

double rts_welford_stddev(const rts_welford *w)
{
    return w->n < 2 ? 0.0 : sqrt(w->m2 / (double)(w->n - 1));
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The q-quantile of h in steps of resolution, back in the unit and kept
 * inside what was really seen: a bucket's middle can lie beyond the
 * extreme sample that fell into it. */
static double percentile(const rts_hist *h, double q, double resolution, const rts_welford *w)
{
    return clamp(rts_hist_quantile(h, q) * resolution, w->min, w->max);
}

void rts_summarize(rts_summary *s, const rts_welford *w, const rts_hist *h, double resolution)
{
    s->count = w->n;
    if (w->n == 0) {
        s->min = s->max = s->mean = s->stddev = NAN;
        s->p50 = s->p90 = s->p99 = s->p999 = s->p9999 = NAN;
        return;
    }
    s->min = w->min;
    s->max = w->max;
    s->mean = w->mean;
    s->stddev = rts_welford_stddev(w);
    s->p50 = percentile(h, 0.50, resolution, w);
    s->p90 = percentile(h, 0.90, resolution, w);
    s->p99 = percentile(h, 0.99, resolution, w);
    s->p999 = percentile(h, 0.999, resolution, w);
    s->p9999 = percentile(h, 0.9999, resolution, w);
}

void rts_sort_u64(uint64_t *v, size_t n)
{
    size_t gap = 1;
    while (gap < n / 3)
        gap = 3 * gap + 1; /* Knuth's gaps: 1, 4, 13, 40 ... */
    for (; gap > 0; gap /= 3)
        for (size_t i = gap; i < n; i++) {
            uint64_t x = v[i];
            size_t k = i;
            for (; k >= gap && v[k - gap] > x; k -= gap)
                v[k] = v[k - gap];
            v[k] = x;
        }
}

/* Linear interpolation between the closest ranks of sorted[0..n). */
static double interpolated_quantile(const uint64_t *sorted, size_t n, double q)
{
    double rank = q * (double)(n - 1);
    size_t lo = (size_t)rank;
    if (lo + 1 >= n)
        return (double)sorted[n - 1];
    return (double)sorted[lo] + (rank - (double)lo) * ((double)sorted[lo + 1] - (double)sorted[lo]);
}

void rts_summarize_exact(rts_summary *s, const rts_welford *w, const uint64_t *values, size_t n)
{
    s->count = w->n;
    s->min = w->n ? w->min : NAN;
    s->max = w->n ? w->max : NAN;
    s->mean = w->n ? w->mean : NAN;
    s->stddev = w->n ? rts_welford_stddev(w) : NAN;
    s->p50 = s->p90 = s->p99 = s->p999 = s->p9999 = NAN;
    uint64_t *sorted = n ? rts_heap_calloc(n, sizeof *sorted) : NULL;
    if (!sorted)
        return;
    memcpy(sorted, values, n * sizeof *sorted);
    rts_sort_u64(sorted, n);
    s->p50 = interpolated_quantile(sorted, n, 0.50);
    s->p90 = interpolated_quantile(sorted, n, 0.90);
    s->p99 = interpolated_quantile(sorted, n, 0.99);
    s->p999 = interpolated_quantile(sorted, n, 0.999);
    s->p9999 = interpolated_quantile(sorted, n, 0.9999);
    rts_heap_free(sorted);
}

static double floor0(double v) { return v < 0.0 ? 0.0 : v; }

rts_summary rts_summary_shift(const rts_summary *s, double offset)
{
    rts_summary r = *s;
    r.min = floor0(s->min - offset);
    r.max = floor0(s->max - offset);
    r.mean = floor0(s->mean - offset);
    r.p50 = floor0(s->p50 - offset);
    r.p90 = floor0(s->p90 - offset);
    r.p99 = floor0(s->p99 - offset);
    r.p999 = floor0(s->p999 - offset);
    r.p9999 = floor0(s->p9999 - offset);
    return r;
}

rts_summary rts_summary_scale(const rts_summary *s, double factor)
{
    rts_summary r = *s;
    r.min *= factor;
    r.max *= factor;
    r.mean *= factor;
    r.stddev *= factor;
    r.p50 *= factor;
    r.p90 *= factor;
    r.p99 *= factor;
    r.p999 *= factor;
    r.p9999 *= factor;
    return r;
}
