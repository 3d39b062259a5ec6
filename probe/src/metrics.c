/* Metrics: making, recording, merging, judging (see metrics.h and rtscope/bench.h). */
#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

static const char *const unit_names[] = { "ns", "count", "ratio", "percent", "bytes/s" };

const char *rts_unit_name(rts_unit unit)
{
    return (unsigned)unit < sizeof unit_names / sizeof unit_names[0] ? unit_names[unit] : "?";
}

/* Whether a metric id, unit and resolution can make a metric; why if not. */
static bool acceptable(const char *id, rts_unit unit, double resolution, char *why, size_t whysize)
{
    if (strlen(id) >= RTS_METRIC_ID_MAX)
        /* Bounded: an unbounded %s fails -Wformat-truncation on 32-bit targets (armhf). */
        snprintf(why, whysize, "metric id %.*s... is too long", (int)RTS_METRIC_ID_MAX, id);
    else if ((unsigned)unit >= sizeof unit_names / sizeof unit_names[0])
        snprintf(why, whysize, "metric %s: unknown unit %d", id, (int)unit);
    else if (!(resolution > 0.0) || !isfinite(resolution))
        snprintf(why, whysize, "metric %s: resolution %g is not a positive number", id, resolution);
    else
        return true;
    return false;
}

rts_metric *rts_metric_new(const char *id, const char *description, rts_unit unit, double resolution,
                           const rts_timing *timing, uint64_t raw_cap, char *why, size_t whysize)
{
    if (!acceptable(id, unit, resolution, why, whysize))
        return NULL;
    rts_metric *m = rts_heap_calloc(1, sizeof *m);
    uint64_t *raw = m && raw_cap ? rts_heap_calloc(raw_cap, sizeof *raw) : NULL;
    if (!m || (raw_cap && !raw)) {
        rts_heap_free(m);
        snprintf(why, whysize, "out of memory for metric %s", id);
        return NULL;
    }
    memcpy(m->id, id, strlen(id) + 1);
    m->description = description;
    m->unit = unit;
    m->resolution = resolution;
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
    rts_heap_free(m->throttle);
    rts_heap_free(m->raw);
    rts_heap_free(m->period_ns);
    rts_heap_free(m->series.max);
    for (unsigned i = 0; i < m->nspikes; i++)
        rts_heap_free(m->spikes[i].events);
    rts_heap_free(m->spikes);
    rts_heap_free(m);
}

/* ------------------------------------------------------------ samples */

/* v (>= 0) in whole steps of resolution, rounded; the largest when beyond. */
static uint64_t steps_of(double v, double resolution)
{
    double steps = v / resolution + 0.5;
    return steps < 18446744073709551616.0 ? (uint64_t)steps : UINT64_MAX;
}

/* Record value; returns it in whole steps of the metric's resolution. */
static uint64_t record(rts_metric *m, double value)
{
    double v = m->in_ticks ? rts_ticks_to_ns(m->timing, value) : value; /* in the metric's unit */
    if (v < 0.0)
        v = 0.0;
    if (m->in_ticks && m->timing->use_cycles)
        rts_welford_add(&m->cycles, value);
    rts_welford_add(&m->values, v);
    uint64_t steps = steps_of(v, m->resolution);
    rts_hist_add(&m->hist, steps);
    if (m->threshold_ns && steps > m->threshold_ns)
        m->over_threshold++;
    if (m->raw_len < m->raw_cap)
        m->raw[m->raw_len++] = steps;
    if (m->throttle && v >= (double)m->throttle->min_ns)
        rts_metric_note_throttling(m, v);
    atomic_store_explicit(&m->progress, (size_t)m->values.n, memory_order_relaxed);
    return steps;
}

void rts_metric_add(rts_metric *m, double value)
{
    record(m, value);
}

void rts_metric_add_period(rts_metric *m, double value, uint64_t length_ns)
{
    /* Its index before record() moves raw_len: the figure's own slot. */
    uint64_t k = m->raw_len;
    record(m, value);
    if (m->period_ns && k < m->raw_cap)
        m->period_ns[k] = length_ns;
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
    if (m->throttle && src->throttle)
        rts_metric_merge_throttling(m, src);
    atomic_store_explicit(&m->progress, (size_t)m->values.n, memory_order_relaxed);
}

/* ------------------------------------------------------------ judging */

void rts_metric_invalidate(rts_metric *m, const char *fmt, ...)
{
    if (m->invalid)
        return;
    m->invalid = true;
    va_list ap;
    va_start(ap, fmt);
    rts_text_vinto(m->invalid_reason, sizeof m->invalid_reason, fmt, ap);
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

void rts_metric_ignore_throttling(rts_metric *m)
{
    rts_heap_free(m->throttle);
    m->throttle = NULL;
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

/* ------------------------------------------------------------- labels */

/* A label key as the result format takes it: [a-z][a-z0-9_]*. */
static bool label_key_ok(const char *key)
{
    if (!key || key[0] < 'a' || key[0] > 'z')
        return false;
    for (const char *c = key + 1; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return false;
    return true;
}

/* Put label l (its key checked) on m, replacing one of the same key; false
 * after invalidating m when there is no room. */
static bool put_label(rts_metric *m, const rts_label *l)
{
    unsigned i = 0;
    while (i < m->nlabels && strcmp(m->labels[i].key, l->key) != 0)
        i++;
    if (i == RTS_MAX_LABELS) {
        rts_metric_invalidate(m, "label %s refused: more than %d labels", l->key, RTS_MAX_LABELS);
        return false;
    }
    m->labels[i] = *l;
    if (i == m->nlabels)
        m->nlabels++;
    return true;
}

/* The key is fit to be a label's; else m is invalidated to say why. */
static bool check_key(rts_metric *m, const char *key)
{
    if (label_key_ok(key))
        return true;
    rts_metric_invalidate(m, "label '%s' refused: a label key is [a-z][a-z0-9_]*", key ? key : "(null)");
    return false;
}

bool rts_metric_label_int(rts_metric *m, const char *key, long long value)
{
    return check_key(m, key) && put_label(m, &(rts_label){ .key = key, .i = value });
}

bool rts_metric_label_text(rts_metric *m, const char *key, const char *value)
{
    if (!check_key(m, key))
        return false;
    rts_label l = { .key = key, .is_text = true };
    if (strlen(value) >= sizeof l.text) {
        rts_metric_invalidate(m, "label %s refused: its value is longer than %d bytes", key, RTS_LABEL_TEXT - 1);
        return false;
    }
    memcpy(l.text, value, strlen(value) + 1);
    return put_label(m, &l);
}
