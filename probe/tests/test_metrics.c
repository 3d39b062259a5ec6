/* Metrics: units and resolution, labels, merging, and what a context refuses. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static const rts_timing timing = { .clock_resolution_ns = 1 };

static rts_metric *made(const char *id, rts_unit unit, double resolution, uint64_t raw_cap)
{
    char why[RTS_MESSAGE_TEXT] = "";
    rts_metric *m = rts_metric_new(id, "test", unit, resolution, &timing, raw_cap, why, sizeof why);
    CHECK(m != NULL, "metric %s made: %s", id, why);
    return m;
}

static void expect_refused(const char *id, rts_unit unit, double resolution, const char *reason_part)
{
    char why[RTS_MESSAGE_TEXT] = "";
    rts_metric *m = rts_metric_new(id, "test", unit, resolution, &timing, 0, why, sizeof why);
    CHECK(m == NULL && strstr(why, reason_part), "%s refused (%s): %s", id, reason_part, why);
    rts_metric_free(m);
}

static void test_new_refuses(void)
{
    char long_id[RTS_METRIC_ID_MAX + 1];
    memset(long_id, 'a', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    expect_refused(long_id, RTS_UNIT_NS, 1, "too long");
    expect_refused("x.unit", (rts_unit)99, 1, "unknown unit");
    expect_refused("x.zero", RTS_UNIT_RATIO, 0, "resolution");
    expect_refused("x.negative", RTS_UNIT_RATIO, -1, "resolution");
    expect_refused("x.nan", RTS_UNIT_RATIO, NAN, "resolution");
    CHECK(strcmp(rts_unit_name(RTS_UNIT_BYTES_PER_S), "bytes/s") == 0 && strcmp(rts_unit_name(RTS_UNIT_NS), "ns") == 0,
          "unit names");
}

/* A ratio in steps of 0.001: the histogram and raw samples count steps,
 * the moments stay exact, the percentiles come back in the unit. */
static void test_resolution(void)
{
    rts_metric *m = made("x.ratio", RTS_UNIT_RATIO, 0.001, 8);
    double samples[] = { 0.25, 0.5, 0.75, 1.2344, -0.5 };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        rts_metric_add(m, samples[i]);
    CHECK(m->raw_len == 5 && m->raw[0] == 250 && m->raw[1] == 500 && m->raw[2] == 750 && m->raw[3] == 1234,
          "raw in steps: %llu %llu %llu %llu", (unsigned long long)m->raw[0], (unsigned long long)m->raw[1],
          (unsigned long long)m->raw[2], (unsigned long long)m->raw[3]);
    CHECK(m->raw[4] == 0 && m->values.min == 0.0, "a negative sample counts as 0");
    CHECK(fabs(m->values.mean - (0.25 + 0.5 + 0.75 + 1.2344) / 5) < 1e-12, "exact mean %.6f", m->values.mean);
    rts_summary s;
    rts_summarize(&s, &m->values, &m->hist, m->resolution);
    CHECK(fabs(s.p50 - 0.5) <= 0.5 / 128 && s.max == 1.2344, "p50 %.5f in the unit, max %.5f exact", s.p50, s.max);
    rts_metric_free(m);
}

/* A sample beyond 2^64 steps lands in the overflow, without undefined behaviour. */
static void test_huge_sample(void)
{
    rts_metric *m = made("x.rate", RTS_UNIT_BYTES_PER_S, 1, 1);
    rts_metric_add(m, 1e25);
    CHECK(m->hist.overflow == 1 && m->raw[0] == UINT64_MAX, "overflow counted, raw at the top");
    rts_metric_free(m);
}

static void test_labels(void)
{
    rts_metric *m = made("x.labels", RTS_UNIT_NS, 1, 0);
    CHECK(rts_metric_label_int(m, "cpu", 3), "int label");
    CHECK(rts_metric_label_text(m, "model", "py\"thon"), "text label");
    CHECK(rts_metric_label_int(m, "cpu", 4), "same key again");
    CHECK(m->nlabels == 2 && strcmp(m->labels[0].key, "cpu") == 0 && m->labels[0].i == 4 && !m->labels[0].is_text,
          "replaced in place");
    CHECK(m->labels[1].is_text && strcmp(m->labels[1].text, "py\"thon") == 0, "text copied");
    CHECK(!m->invalid, "valid labels leave the metric valid");
    rts_metric_free(m);
}

static void expect_label_refused(bool (*label)(rts_metric *), const char *reason_part)
{
    rts_metric *m = made("x.refused", RTS_UNIT_NS, 1, 0);
    CHECK(!label(m) && m->invalid && strstr(m->invalid_reason, reason_part), "refused (%s): %s", reason_part,
          m->invalid_reason);
    rts_metric_free(m);
}

static bool upper_key(rts_metric *m) { return rts_metric_label_int(m, "Cpu", 1); }
static bool digit_key(rts_metric *m) { return rts_metric_label_int(m, "1cpu", 1); }
static bool empty_key(rts_metric *m) { return rts_metric_label_text(m, "", "x"); }
static bool dotted_key(rts_metric *m) { return rts_metric_label_int(m, "a.b", 1); }

static bool long_text(rts_metric *m)
{
    char text[RTS_LABEL_TEXT + 1];
    memset(text, 'v', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    return rts_metric_label_text(m, "model", text);
}

static bool too_many(rts_metric *m)
{
    static const char *const keys[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n" };
    bool ok = true;
    for (int i = 0; i <= RTS_MAX_LABELS && i < (int)(sizeof keys / sizeof keys[0]); i++)
        ok = rts_metric_label_int(m, keys[i], i) && ok;
    return ok && m->nlabels <= RTS_MAX_LABELS;
}

static void test_labels_refused(void)
{
    expect_label_refused(upper_key, "[a-z][a-z0-9_]*");
    expect_label_refused(digit_key, "[a-z][a-z0-9_]*");
    expect_label_refused(empty_key, "[a-z][a-z0-9_]*");
    expect_label_refused(dotted_key, "[a-z][a-z0-9_]*");
    expect_label_refused(long_text, "longer than");
    expect_label_refused(too_many, "more than");
}

/* Merging adds the distributions; labels stay each metric's own. */
static void test_merge(void)
{
    rts_metric *all = made("x.all", RTS_UNIT_PERCENT, 0.5, 0);
    rts_metric *one = made("x.one", RTS_UNIT_PERCENT, 0.5, 0);
    rts_metric_label_int(one, "cpu", 1);
    rts_metric_add(one, 10);
    rts_metric_add(one, 20);
    rts_metric_add(all, 30);
    rts_metric_merge(all, one);
    CHECK(all->values.n == 3 && all->hist.total == 3 && all->values.max == 30, "merged: %llu samples",
          (unsigned long long)all->values.n);
    CHECK(all->nlabels == 0, "labels not merged");
    rts_metric_free(all);
    rts_metric_free(one);
}

/* What a bench's context refuses: ns through rts_ctx_metric_unit (time
 * metrics have their own maker), a series of a metric that is not a time
 * metric. */
static void test_context_refuses(void)
{
    static rts_run_request req;
    static rts_run run;
    fixture_run(&run, &req);
    rts_ctx ctx = { .run = &run, .result = &run.results[0], .deadline_ns = 1000000000 };
    CHECK(rts_ctx_metric_unit(&ctx, "x.ns", "d", RTS_UNIT_NS, 1) == NULL && run.results[0].status == RTS_BENCH_FAILED,
          "ns through rts_ctx_metric_unit refused: %s", run.results[0].error);
    run.results[0].status = RTS_BENCH_OK;
    rts_metric *count = rts_ctx_metric_unit(&ctx, "x.count", "d", RTS_UNIT_COUNT, 1);
    CHECK(count && !count->per_period && run.results[0].status == RTS_BENCH_OK, "a count of samples");
    rts_metric *m = rts_ctx_metric_unit(&ctx, "x.ratio", "d", RTS_UNIT_RATIO, 0.01);
    CHECK(m && run.results[0].nmetrics == 2 && m->unit == RTS_UNIT_RATIO, "a ratio metric");
    CHECK(m && !rts_ctx_metric_series(&ctx, m, 0) && strstr(run.results[0].error, "time metrics"),
          "no series of a ratio: %s", run.results[0].error);
    for (unsigned i = 0; i < run.results[0].nmetrics; i++)
        rts_metric_free(run.results[0].metrics[i]);
}

/* A series made through the context has the run's window (--series-window):
 * a 1 s bench in 250 ms windows has room for 5 (the planned end's, plus
 * one), and a sample lands in the window of its time. */
static void test_context_series_window(void)
{
    static rts_run_request req;
    static rts_run run;
    fixture_run(&run, &req);
    req.series_window_ns = 250000000;
    rts_ctx ctx = { .run = &run, .result = &run.results[0], .deadline_ns = 1000000000 };
    rts_metric *m = rts_ctx_metric(&ctx, "x.lat", "d", false);
    CHECK(m && rts_ctx_metric_series(&ctx, m, 1000), "a series of a time metric");
    if (m && m->series.max) {
        CHECK(m->series.window_ns == 250000000 && m->series.cap == 5, "window %llu ns, %llu windows",
              (unsigned long long)m->series.window_ns, (unsigned long long)m->series.cap);
        rts_metric_add_at(m, 7, 1000 + 600000000);
        CHECK(m->series.len == 3 && m->series.max[2] == 7 && m->series.max[0] == RTS_SERIES_EMPTY,
              "0.6 s in: the third window (%llu)", (unsigned long long)m->series.len);
    }
    rts_metric_free(m);
}

/* Throttle notes as RT throttling leaves them: 50 ms of every 1000 ms. */
static rts_metric *noted(const uint64_t *end_ms, const uint64_t *len_ms, unsigned n)
{
    rts_metric *m = made("x.throttled", RTS_UNIT_NS, 1, 0);
    CHECK(m && rts_metric_watch_throttling(m, 1000000000u, 50000000u), "watching throttling");
    if (!m || !m->throttle)
        return m;
    m->throttle->origin_ns = 0;
    for (unsigned i = 0; i < n; i++) {
        m->throttle->end_ns[i] = end_ms[i] * 1000000u;
        m->throttle->len_ns[i] = len_ms[i] * 1000000u;
    }
    m->throttle->n = n;
    return m;
}

static void test_throttling(void)
{
    /* Three stops a period apart (the fair server's spacing, not on a beat): throttled. */
    const uint64_t ends[] = { 1140, 2297, 3248 }, lens[] = { 13, 40, 41 };
    rts_metric *m = noted(ends, lens, 3);
    rts_metric_judge_throttling(m);
    CHECK(m->throttle->samples == 3 && m->throttle->longest_ns == 41000000u && m->invalid &&
              strncmp(m->invalid_reason, "throttled: ", 11) == 0 && m->throttle->nat == 3 &&
              fabs(m->throttle->at_s[1] - 2.297) < 1e-9,
          "three stops a period apart: %s", m->invalid_reason);
    rts_metric_free(m);
    /* Longer than a stop, or two within a period: not throttling's shape. */
    const uint64_t ends2[] = { 500, 800, 2000 }, lens2[] = { 30, 30, 80 };
    m = noted(ends2, lens2, 3);
    rts_metric_judge_throttling(m);
    CHECK(m->throttle->samples == 0 && !m->invalid, "not of the shape: %llu", (unsigned long long)m->throttle->samples);
    rts_metric_free(m);
    /* One stop alone: its length decides. */
    const uint64_t one[] = { 700 }, len1[] = { 48 };
    m = noted(one, len1, 1);
    rts_metric_judge_throttling(m);
    CHECK(m->throttle->samples == 1 && m->invalid, "one stop alone");
    rts_metric_free(m);
    /* Samples are noted from a fifth of the stop, as they are recorded. */
    m = made("x.recorded", RTS_UNIT_NS, 1, 0);
    CHECK(rts_metric_watch_throttling(m, 1000000000u, 50000000u), "watching");
    rts_metric_add(m, 9e6);
    rts_metric_add(m, 30e6);
    CHECK(m->throttle->n == 1 && m->throttle->len_ns[0] == 30000000u, "noted: %u", m->throttle->n);
    rts_metric_free(m);
}

int main(void)
{
    test_new_refuses();
    test_resolution();
    test_huge_sample();
    test_labels();
    test_labels_refused();
    test_merge();
    test_context_refuses();
    test_context_series_window();
    test_throttling();
    return check_report("test_metrics");
}
