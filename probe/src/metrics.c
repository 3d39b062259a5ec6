/* Metrics: making, recording, merging, judging (see metrics.h and rtscope/bench.h). */
#include "metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

rts_metric *rts_metric_new(const char *id, const char *description, const rts_timing *timing, uint64_t raw_cap,
                           char *why, size_t whysize)
{
    if (strlen(id) >= RTS_METRIC_ID_MAX) {
        snprintf(why, whysize, "metric id %s is too long", id);
        return NULL;
    }
    rts_metric *m = rts_heap_calloc(1, sizeof *m);
    uint64_t *raw = m && raw_cap ? rts_heap_calloc(raw_cap, sizeof *raw) : NULL;
    if (!m || (raw_cap && !raw)) {
        rts_heap_free(m);
        snprintf(why, whysize, "out of memory for metric %s", id);
        return NULL;
    }
    memcpy(m->id, id, strlen(id) + 1);
    m->description = description;
    m->timing = timing;
    m->raw = raw;
    m->raw_cap = raw_cap;
    rts_welford_init(&m->values);
    rts_welford_init(&m->cycles);
    rts_hist_init(&m->hist);
    return m;
}

bool rts_metric_keep_series(rts_metric *m, uint64_t origin_ns, uint64_t window_ns, uint64_t windows)
{
    uint64_t *max = rts_heap_calloc(windows, sizeof *max);
    if (!max)
        return false;
    for (uint64_t i = 0; i < windows; i++)
        max[i] = RTS_SERIES_EMPTY;
    rts_heap_free(m->series.max);
    m->series = (rts_series){ .origin_ns = origin_ns, .window_ns = window_ns, .max = max, .cap = windows };
    return true;
}

void rts_metric_free(rts_metric *m)
{
    if (!m)
        return;
    rts_heap_free(m->raw);
    rts_heap_free(m->series.max);
    rts_heap_free(m);
}

/* ------------------------------------------------------------ samples */

/* Record value; returns it in the metric's unit, rounded. */
static uint64_t record(rts_metric *m, double value)
{
    double v = m->in_ticks ? rts_ticks_to_ns(m->timing, value) : value; /* in the metric's unit */
    if (v < 0.0)
        v = 0.0;
    if (m->in_ticks && m->timing->use_cycles)
        rts_welford_add(&m->cycles, value);
    rts_welford_add(&m->values, v);
    uint64_t rounded = (uint64_t)(v + 0.5);
    rts_hist_add(&m->hist, rounded);
    if (m->threshold_ns && rounded > m->threshold_ns)
        m->over_threshold++;
    if (m->raw_len < m->raw_cap)
        m->raw[m->raw_len++] = rounded;
    atomic_store_explicit(&m->progress, m->values.n, memory_order_relaxed);
    return rounded;
}

void rts_metric_add(rts_metric *m, double value)
{
    record(m, value);
}

/* Keep v as the worst of window k if it is. */
static void series_put(rts_series *s, uint64_t k, uint64_t v)
{
    if (k >= s->cap) {
        s->dropped++;
        return;
    }
    if (s->max[k] == RTS_SERIES_EMPTY || v > s->max[k])
        s->max[k] = v;
    if (k >= s->len)
        s->len = k + 1;
}

void rts_metric_add_at(rts_metric *m, double value, uint64_t at_ns)
{
    uint64_t v = record(m, value);
    rts_series *s = &m->series;
    if (!s->max)
        return;
    if (at_ns < s->origin_ns)
        s->dropped++;
    else
        series_put(s, (at_ns - s->origin_ns) / s->window_ns, v);
}

/* Add src's windows to to's, when both cover the same windows. */
static void series_merge(rts_series *to, const rts_series *from)
{
    if (!to->max || !from->max || to->origin_ns != from->origin_ns || to->window_ns != from->window_ns)
        return;
    for (uint64_t k = 0; k < from->len; k++)
        if (from->max[k] != RTS_SERIES_EMPTY)
            series_put(to, k, from->max[k]);
    to->dropped += from->dropped;
}

void rts_metric_merge(rts_metric *m, const rts_metric *src)
{
    rts_welford_merge(&m->values, &src->values);
    rts_welford_merge(&m->cycles, &src->cycles);
    rts_hist_merge(&m->hist, &src->hist);
    m->over_threshold += src->over_threshold;
    series_merge(&m->series, &src->series);
    atomic_store_explicit(&m->progress, m->values.n, memory_order_relaxed);
}

/* ------------------------------------------------------------ judging */

void rts_metric_invalidate(rts_metric *m, const char *fmt, ...)
{
    if (m->invalid)
        return;
    m->invalid = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->invalid_reason, sizeof m->invalid_reason, fmt, ap);
    va_end(ap);
}

/* Record c, replacing an earlier check of the same name. */
static void put_check(rts_metric *m, rts_check c)
{
    unsigned i = 0;
    while (i < m->nchecks && strcmp(m->checks[i].name, c.name) != 0)
        i++;
    if (i == RTS_MAX_CHECKS)
        return;
    m->checks[i] = c;
    if (i == m->nchecks)
        m->nchecks++;
}

void rts_metric_check_int(rts_metric *m, const char *name, long long value)
{
    put_check(m, (rts_check){ .name = name, .kind = RTS_CHECK_INT, .i = value });
}

void rts_metric_check_bool(rts_metric *m, const char *name, bool value)
{
    put_check(m, (rts_check){ .name = name, .kind = RTS_CHECK_BOOL, .i = value });
}

void rts_metric_check_double(rts_metric *m, const char *name, double value)
{
    put_check(m, (rts_check){ .name = name, .kind = RTS_CHECK_DOUBLE, .d = value });
}
