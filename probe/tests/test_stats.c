/* Histogram accuracy against exact percentiles, Welford against two passes. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rtscope/stats.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void test_bucket_geometry(void)
{
    /* Every value from 1 ns to 10 s lands in a bucket that contains it and
     * whose width is at most 1 % of its lower bound (or exact). */
    int bad = 0;
    for (uint64_t v = 1; v <= 10000000000ull; v = v < 1000 ? v + 1 : v + v / 997) {
        size_t i = rts_hist_index(v);
        uint64_t lo = rts_hist_lower(i), w = rts_hist_width(i);
        if (!(lo <= v && v < lo + w) || (w > 1 && (double)w / (double)lo > 0.01))
            bad++;
    }
    CHECK(bad == 0, "%d values outside their bucket or in a bucket wider than 1 %%", bad);
    CHECK(rts_hist_index(RTS_HIST_LIMIT - 1) == RTS_HIST_BUCKETS - 1, "last bucket");
    CHECK(RTS_HIST_LIMIT >= 10000000000ull, "range reaches 10 s");
    for (size_t i = 1; i < RTS_HIST_BUCKETS; i++)
        if (rts_hist_lower(i) != rts_hist_lower(i - 1) + rts_hist_width(i - 1)) {
            CHECK(0, "buckets %zu and %zu are not contiguous", i - 1, i);
            break;
        }
}

/* Exact nearest-rank quantile of sorted data. */
static double exact_quantile(const uint64_t *sorted, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n);
    return (double)sorted[(rank ? rank : 1) - 1];
}

static void check_percentiles(const char *name, uint64_t *data, size_t n)
{
    rts_hist *h = malloc(sizeof *h);
    rts_welford w;
    rts_hist_init(h);
    rts_welford_init(&w);
    for (size_t i = 0; i < n; i++) {
        rts_hist_add(h, data[i]);
        rts_welford_add(&w, (double)data[i]);
    }
    rts_summary s;
    rts_summarize(&s, &w, h, 1.0);
    qsort(data, n, sizeof *data, cmp_u64);
    const double qs[] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
    const double got[] = { s.p50, s.p90, s.p99, s.p999, s.p9999 };
    for (size_t k = 0; k < 5; k++) {
        double want = exact_quantile(data, n, qs[k]);
        double err = fabs(got[k] - want) / (want > 0 ? want : 1);
        CHECK(err <= 0.01, "%s p%g: histogram %.1f, exact %.1f (%.3f %%)", name, qs[k] * 100, got[k], want,
              err * 100);
    }
    CHECK(s.min == (double)data[0] && s.max == (double)data[n - 1], "%s: exact min/max", name);
    free(h);
}

static void test_percentiles(void)
{
    size_t n = 200000;
    uint64_t *d = malloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++) /* latency-like: log-normal around 20 us */
        d[i] = (uint64_t)(20000.0 * exp(0.8 * sqrt(-2.0 * log(uniform() + 1e-300)) * cos(6.283185307 * uniform())));
    check_percentiles("log-normal", d, n);
    for (size_t i = 0; i < n; i++) /* wide: 1 ns to 10 s, log-uniform */
        d[i] = (uint64_t)exp(uniform() * log(1e10));
    check_percentiles("log-uniform 1 ns..10 s", d, n);
    for (size_t i = 0; i < n; i++) /* small exact values */
        d[i] = (uint64_t)(uniform() * 100);
    check_percentiles("uniform 0..99", d, n);
    free(d);
}

static void test_overflow(void)
{
    rts_hist h;
    rts_welford w;
    rts_hist_init(&h);
    rts_welford_init(&w);
    for (int i = 0; i < 98; i++) {
        rts_hist_add(&h, 1000);
        rts_welford_add(&w, 1000);
    }
    for (int i = 0; i < 2; i++) {
        rts_hist_add(&h, RTS_HIST_LIMIT + 5);
        rts_welford_add(&w, (double)(RTS_HIST_LIMIT + 5));
    }
    rts_summary s;
    rts_summarize(&s, &w, &h, 1.0);
    CHECK(h.overflow == 2 && h.total == 100, "overflow counted: %llu of %llu", (unsigned long long)h.overflow,
          (unsigned long long)h.total);
    CHECK(fabs(s.p50 - 1000) <= 10, "p50 within its bucket: %.1f", s.p50);
    CHECK(s.p99 == s.max, "overflowed tail reads as the exact max: p99 %.0f", s.p99);
}

static void test_welford(void)
{
    size_t n = 100000;
    double *x = malloc(n * sizeof *x);
    rts_welford w;
    rts_welford_init(&w);
    for (size_t i = 0; i < n; i++) {
        x[i] = 1e9 + uniform() * 1000.0; /* large offset: where one-pass sums lose digits */
        rts_welford_add(&w, x[i]);
    }
    double sum = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    double sd = sqrt(ss / (double)(n - 1));
    CHECK(fabs(w.mean - mean) / mean < 1e-12, "mean %.9f vs %.9f", w.mean, mean);
    CHECK(fabs(rts_welford_stddev(&w) - sd) / sd < 1e-9, "stddev %.9f vs %.9f", rts_welford_stddev(&w), sd);
    free(x);
    rts_welford_init(&w);
    rts_welford_add(&w, 5);
    CHECK(rts_welford_stddev(&w) == 0.0, "one sample has no spread");
}

/* Two threads' states merged equal one state of all samples. */
static void test_merge(void)
{
    rts_welford a, b, all;
    rts_welford_init(&a);
    rts_welford_init(&b);
    rts_welford_init(&all);
    static rts_hist ha, hb, hall;
    rts_hist_init(&ha);
    rts_hist_init(&hb);
    rts_hist_init(&hall);
    for (int i = 0; i < 5000; i++) {
        double x = 1e6 + uniform() * 5000.0, y = 2e6 + uniform() * 100.0;
        rts_welford_add(&a, x);
        rts_welford_add(&all, x);
        rts_hist_add(&ha, (uint64_t)x);
        rts_hist_add(&hall, (uint64_t)x);
        if (i % 3 == 0) {
            rts_welford_add(&b, y);
            rts_welford_add(&all, y);
            rts_hist_add(&hb, (uint64_t)y);
            rts_hist_add(&hall, (uint64_t)y);
        }
    }
    rts_welford empty;
    rts_welford_init(&empty);
    rts_welford_merge(&a, &empty);
    rts_welford_merge(&a, &b);
    CHECK(a.n == all.n && a.min == all.min && a.max == all.max, "merged count and extremes");
    CHECK(fabs(a.mean - all.mean) / all.mean < 1e-12, "merged mean %.6f vs %.6f", a.mean, all.mean);
    CHECK(fabs(rts_welford_stddev(&a) - rts_welford_stddev(&all)) / rts_welford_stddev(&all) < 1e-9,
          "merged stddev %.6f vs %.6f", rts_welford_stddev(&a), rts_welford_stddev(&all));
    rts_welford_merge(&empty, &b);
    CHECK(empty.n == b.n && empty.mean == b.mean && empty.min == b.min, "merge into an empty state copies");
    rts_hist_merge(&ha, &hb);
    CHECK(ha.total == hall.total && memcmp(ha.counts, hall.counts, sizeof ha.counts) == 0, "merged histogram");
}

static void test_empty_and_shift(void)
{
    rts_hist h;
    rts_welford w;
    rts_hist_init(&h);
    rts_welford_init(&w);
    rts_summary s;
    rts_summarize(&s, &w, &h, 1.0);
    CHECK(s.count == 0 && isnan(s.p50) && isnan(s.mean), "empty summary is NaN");
    rts_welford_add(&w, 10);
    rts_hist_add(&h, 10);
    rts_summarize(&s, &w, &h, 1.0);
    rts_summary a = rts_summary_shift(&s, 25);
    CHECK(a.min == 0 && a.p50 == 0 && a.stddev == s.stddev, "shift floors at zero, keeps spread");
    rts_summary c = rts_summary_scale(&s, 2.5);
    CHECK(c.p50 == 25 && c.max == 25, "scale");
}

/* Count metrics: few samples, exact percentiles, median of an even count. */
static void test_exact(void)
{
    const uint64_t periods[] = { 300, 100, 200, 400 };
    rts_welford w;
    rts_welford_init(&w);
    for (size_t i = 0; i < 4; i++)
        rts_welford_add(&w, (double)periods[i]);
    rts_summary s;
    rts_summarize_exact(&s, &w, periods, 4);
    CHECK(s.count == 4 && s.min == 100 && s.max == 400 && s.mean == 250, "exact moments");
    CHECK(s.p50 == 250, "median of an even count is the mean of the middle two, got %g", s.p50);
    CHECK(fabs(s.p90 - 370) < 1e-9, "p90 interpolates between ranks, got %g", s.p90);
    CHECK(periods[0] == 300, "the samples keep their order");
    rts_summarize_exact(&s, &w, periods, 3);
    CHECK(s.p50 == 200, "median of 300,100,200 is 200, got %g", s.p50);
    rts_welford_init(&w);
    rts_summarize_exact(&s, &w, NULL, 0);
    CHECK(s.count == 0 && isnan(s.p50) && isnan(s.min), "empty exact summary is NaN");
}

/* The sort behind exact summaries and the calibration's medians: in
 * order, every value kept, over sizes that take every gap of the sequence. */
static void test_sort(void)
{
    static uint64_t v[2000];
    const size_t sizes[] = { 0, 1, 2, 5, 13, 41, 2000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        uint64_t sum = 0, x = 88172645463325252u;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[i] = i % 7 == 0 ? 42 : x % 1000; /* duplicates too */
            sum += v[i];
        }
        rts_sort_u64(v, n);
        bool ordered = true;
        for (size_t i = 1; i < n; i++)
            ordered &= v[i - 1] <= v[i];
        for (size_t i = 0; i < n; i++)
            sum -= v[i];
        CHECK(ordered && sum == 0, "%zu values sorted, none lost", n);
    }
}

int main(void)
{
    test_bucket_geometry();
    test_percentiles();
    test_overflow();
    test_welford();
    test_merge();
    test_empty_and_shift();
    test_exact();
    test_sort();
    return check_report("test_stats");
}
