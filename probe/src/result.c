/*
 * The result document (schema/result-v4.schema.json), written as the run
 * goes, and the human summary, printed bench by bench.
 */
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

static const char *const run_status_names[] = { "complete", "interrupted", "failed" };
static const char *const bench_status_names[] = { "ok", "failed", "interrupted", "skipped" };

/* "" means unknown: written as null. */
static void text_or_null(rts_json *j, const char *key, const char *s)
{
    rts_json_string(j, key, s[0] ? s : NULL);
}

static void int_or_null(rts_json *j, const char *key, long long v, long long unknown)
{
    if (v == unknown)
        rts_json_null(j, key);
    else
        rts_json_int(j, key, v);
}

/* The proleptic Gregorian date of a day counted from 1970-01-01 (Howard
 * Hinnant's days_from_civil, inverted): the probe's own, not strftime and
 * gmtime, whose time zone and locale machinery is 12 KiB of a
 * microcontroller's image. */
static void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *day = doy - (153 * mp + 2) / 5 + 1;
    *month = mp < 10 ? mp + 3 : mp - 9;
    *year = (int64_t)yoe + era * 400 + (*month <= 2);
}

static void write_utc(rts_json *j, const char *key, int64_t sec, long nsec)
{
    int64_t days = (sec >= 0 ? sec : sec - 86399) / 86400, year;
    unsigned month, day, of_day = (unsigned)(sec - days * 86400);
    civil_from_days(days, &year, &month, &day);
    char out[64];
    snprintf(out, sizeof out, "%04lld-%02u-%02uT%02u:%02u:%02u.%03dZ", (long long)year, month, day, of_day / 3600,
             of_day / 60 % 60, of_day % 60, (int)(nsec / 1000000) % 1000);
    rts_json_string(j, key, out);
}

static void write_run(rts_json *j, const rts_run *run)
{
    rts_json_object_begin(j, "run", false);
    rts_json_string(j, "id", run->id);
    write_utc(j, "started", run->started_sec, run->started_nsec);
    write_utc(j, "finished", run->finished_sec, run->finished_nsec);
    rts_json_string(j, "label", run->req->label);
    if (run->req->has_seed)
        rts_json_uint(j, "seed", run->req->seed);
    rts_json_string(j, "probe_version", RTS_PROBE_VERSION);
    rts_json_string(j, "port", rts_port_name());
    rts_json_string(j, "status", run_status_names[run->status]);
    rts_json_array_begin(j, "argv", true);
    for (int i = 0; i < run->req->argc; i++)
        rts_json_string(j, NULL, run->req->argv[i]);
    rts_json_array_end(j);
    rts_json_object_begin(j, "image", true);
    int_or_null(j, "text", run->image.text, -1);
    int_or_null(j, "data", run->image.data, -1);
    int_or_null(j, "bss", run->image.bss, -1);
    rts_json_object_end(j);
    rts_json_object_end(j);
}

void rts_result_write_system(rts_json *j, const rts_sysinfo *s)
{
    rts_json_object_begin(j, "system", false);
    rts_json_string(j, "hostname", s->hostname);
    rts_json_string(j, "os", s->os);
    rts_json_string(j, "kernel_release", s->kernel_release);
    rts_json_string(j, "kernel_version", s->kernel_version);
    rts_json_string(j, "preempt_model", s->preempt_model);
    if (s->realtime_kernel < 0)
        rts_json_null(j, "realtime_kernel");
    else
        rts_json_bool(j, "realtime_kernel", s->realtime_kernel == 1);
    rts_json_string(j, "arch", s->arch);
    text_or_null(j, "cpu_model", s->cpu_model);
    rts_json_int(j, "cpu_count", s->cpu_count);
    text_or_null(j, "cpus_online", s->cpus_online);
    text_or_null(j, "governor", s->governor);
    text_or_null(j, "clocksource", s->clocksource);
    text_or_null(j, "cmdline", s->cmdline);
    rts_json_string(j, "isolated_cpus", s->isolated_known ? s->isolated_cpus : NULL);
    int_or_null(j, "rt_runtime_us", s->rt_runtime_us, -2);
    int_or_null(j, "rt_period_us", s->rt_period_us, -2);
    text_or_null(j, "virtualization", s->virtualization);
    size_t count;
    const rts_os_setting *settings = rts_os_config(&count);
    rts_result_write_os_config(j, settings, count);
    rts_json_object_end(j);
}

/* Whole digits that fit a long long, without a leading zero: the rest is text. */
static bool is_integer_text(const char *s)
{
    size_t n = strspn(s, "0123456789");
    return n > 0 && n <= 18 && s[n] == '\0' && (s[0] != '0' || n == 1);
}

void rts_result_write_os_config(rts_json *j, const rts_os_setting *settings, size_t count)
{
    if (count == 0)
        return;
    rts_json_object_begin(j, "os_config", false);
    for (size_t i = 0; i < count; i++) {
        const char *name = settings[i].name, *value = settings[i].value;
        if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0)
            rts_json_bool(j, name, value[0] == 't');
        else if (is_integer_text(value))
            rts_json_int(j, name, (long long)strtoull(value, NULL, 10));
        else
            rts_json_string(j, name, value);
    }
    rts_json_object_end(j);
}

static void write_timing(rts_json *j, const rts_timing *t)
{
    rts_json_object_begin(j, "timing", false);
    rts_json_string(j, "clock", rts_time_clock_name());
    rts_json_uint(j, "clock_resolution_ns", t->clock_resolution_ns);
    if (t->sleep_granularity_ns) /* null: sleeps end at the clock's time */
        rts_json_uint(j, "sleep_granularity_ns", t->sleep_granularity_ns);
    else
        rts_json_null(j, "sleep_granularity_ns");
    rts_json_double(j, "clock_overhead_ns", t->clock_overhead_ns);
    rts_json_string(j, "cycle_counter", t->cycle_counter);
    rts_json_string(j, "cycle_counter_kind", t->cycle_counter_kind);
    if (t->use_cycles && t->cycle_counter_hz)
        rts_json_uint(j, "cycle_counter_hz", t->cycle_counter_hz);
    else
        rts_json_null(j, "cycle_counter_hz");
    if (t->use_cycles) {
        rts_json_double(j, "cycles_per_ns", t->cycles_per_ns);
        rts_json_double(j, "cycle_overhead_cycles", t->cycle_overhead_cycles);
    } else {
        rts_json_null(j, "cycles_per_ns");
        rts_json_null(j, "cycle_overhead_cycles");
    }
    rts_json_object_end(j);
}

static void write_rtconfig(rts_json *j, const char *key, const rts_rtconfig *c)
{
    rts_json_object_begin(j, key, false);
    rts_json_string(j, "policy", rts_policy_name(c->policy));
    rts_json_int(j, "priority", c->priority);
    rts_json_array_begin(j, "cpus", true);
    for (int i = 0; i < c->ncpus; i++)
        rts_json_int(j, NULL, c->cpus[i]);
    rts_json_array_end(j);
    rts_json_bool(j, "mlockall", c->mlockall);
    rts_json_bool(j, "stack_prefault", c->stack_prefault);
    int_or_null(j, "cpu_latency_us", c->cpu_latency_us, -1);
    rts_json_bool(j, "rt_throttling_off", c->rt_throttling_off);
    rts_json_object_end(j);
}

/* The settings this platform does not have, by their keys in rtconfig. */
static void write_not_applicable(rts_json *j, unsigned settings)
{
    static const struct {
        unsigned bit;
        const char *key;
    } keys[] = { { RTS_SETTING_MLOCKALL, "mlockall" }, { RTS_SETTING_CPU_LATENCY, "cpu_latency_us" },
                 { RTS_SETTING_RT_THROTTLING, "rt_throttling_off" } };
    rts_json_array_begin(j, "not_applicable", true);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (settings & keys[i].bit)
            rts_json_string(j, NULL, keys[i].key);
    rts_json_array_end(j);
}

static void write_config(rts_json *j, const rts_run *run)
{
    rts_json_object_begin(j, "config", false);
    write_rtconfig(j, "requested", &run->req->requested);
    write_rtconfig(j, "granted", &run->granted);
    write_not_applicable(j, run->granted.not_applicable);
    rts_json_array_begin(j, "warnings", false);
    for (unsigned i = 0; i < run->warnings.count; i++)
        rts_json_string(j, NULL, run->warnings.text[i]);
    rts_json_array_end(j);
    rts_json_object_end(j);
}

static void write_benches(rts_json *j, const rts_run *run)
{
    rts_json_array_begin(j, "benches", false);
    for (unsigned b = 0; b < run->req->nbenches; b++) {
        const rts_bench_result *r = &run->results[b];
        rts_json_object_begin(j, NULL, false);
        rts_json_string(j, "id", r->bench->id);
        rts_json_object_begin(j, "params", true);
        for (unsigned i = 0; i < r->bench->nparams; i++) {
            const char *name = r->bench->params[i].name;
            if (r->texts[i])
                rts_json_string(j, name, r->texts[i]);
            else if (r->bench->params[i].kind == RTS_PARAM_KIND_INT)
                rts_json_int(j, name, (long long)r->values[i]);
            else
                rts_json_double(j, name, r->values[i]);
        }
        rts_json_object_end(j);
        rts_json_string(j, "status", bench_status_names[r->status]);
        rts_json_double(j, "elapsed_s", r->elapsed_s);
        if (run->req->has_seed) /* drawn again: a small board's RAM keeps no copy */
            rts_json_uint(j, "phase_ns", rts_run_phase_ns(run->req->seed, b));
        if (r->has_startup)
            rts_json_uint(j, "startup_ns", (uint64_t)r->startup_us * 1000);
        rts_json_string(j, "error", r->error[0] ? r->error : NULL);
        rts_json_object_end(j);
    }
    rts_json_array_end(j);
}

static void write_summary(rts_json *j, const char *key, const rts_summary *s)
{
    rts_json_object_begin(j, key, true);
    rts_json_uint(j, "count", s->count);
    rts_json_double(j, "min", s->min);
    rts_json_double(j, "max", s->max);
    rts_json_double(j, "mean", s->mean);
    rts_json_double(j, "stddev", s->stddev);
    rts_json_double(j, "p50", s->p50);
    rts_json_double(j, "p90", s->p90);
    rts_json_double(j, "p99", s->p99);
    rts_json_double(j, "p999", s->p999);
    rts_json_double(j, "p9999", s->p9999);
    rts_json_object_end(j);
}

/* Cycle figures: exact moments from the cycle Welford state, percentiles
 * from the ns histogram scaled by the measured ratio. */
static rts_summary cycles_summary(const rts_metric *m, const rts_summary *ns)
{
    rts_summary c = rts_summary_scale(ns, m->timing->cycles_per_ns);
    c.min = m->cycles.min;
    c.max = m->cycles.max;
    c.mean = m->cycles.mean;
    c.stddev = rts_welford_stddev(&m->cycles);
    return c;
}

static void write_checks(rts_json *j, const rts_metric *m)
{
    rts_json_object_begin(j, "checks", m->nchecks <= 4);
    for (unsigned i = 0; i < m->nchecks; i++) {
        const rts_check *c = &m->checks[i];
        if (c->kind == RTS_CHECK_BOOL)
            rts_json_bool(j, c->name, c->i != 0);
        else if (c->kind == RTS_CHECK_DOUBLE)
            rts_json_double(j, c->name, c->d);
        else
            rts_json_int(j, c->name, c->i);
    }
    rts_json_object_end(j);
}

/* A time metric's histogram, in ns; another unit's in steps of resolution. */
static void write_histogram(rts_json *j, const rts_hist *h, double resolution)
{
    rts_json_object_begin(j, "histogram", false);
    rts_json_string(j, "scheme", "log-linear");
    rts_json_uint(j, "sub_buckets", RTS_HIST_SUB);
    rts_json_array_begin(j, "buckets", true);
    for (size_t i = 0; i < RTS_HIST_BUCKETS; i++) {
        if (!h->counts[i])
            continue;
        rts_json_array_begin(j, NULL, true);
        rts_json_uint(j, NULL, rts_hist_lower(i));
        rts_json_uint(j, NULL, rts_hist_width(i));
        rts_json_uint(j, NULL, h->counts[i]);
        rts_json_array_end(j);
    }
    rts_json_array_end(j);
    rts_json_uint(j, "overflow", h->overflow);
    rts_json_uint(j, "overflow_above", RTS_HIST_LIMIT);
    if (resolution != 1.0) /* absent: 1 */
        rts_json_double(j, "resolution", resolution);
    rts_json_object_end(j);
}

/* The stamp overhead inside each sample: time metrics only. */
static double overhead_ns(const rts_metric *m) { return m->unit == RTS_UNIT_NS ? m->overhead_ns : 0.0; }

/* A metric's summary in its unit: exact over the periods of a per-period
 * metric, from the histogram otherwise. */
static void summarize_metric(rts_summary *s, const rts_metric *m)
{
    if (m->per_period)
        rts_summarize_exact(s, &m->values, m->raw, m->raw_len);
    else
        rts_summarize(s, &m->values, &m->hist, m->resolution);
}

/* The median of a calibration metric written before (or in the bench being
 * written), NAN when it is not usable as a baseline; NULL when none is called id. */
static const rts_result_baseline *find_baseline(const rts_result_writer *w, const char *id)
{
    for (unsigned i = 0; i < w->nbaselines; i++)
        if (strcmp(w->baselines[i].id, id) == 0)
            return &w->baselines[i];
    return NULL;
}

/* Median of m over the median of its baseline metric, when both are valid. */
static void write_baseline(rts_result_writer *w, const rts_metric *m, const rts_summary *s, bool valid)
{
    rts_json *j = &w->json;
    if (!m->baseline) {
        rts_json_null(j, "baseline");
        return;
    }
    rts_json_object_begin(j, "baseline", true);
    rts_json_string(j, "metric", m->baseline);
    const rts_result_baseline *base = find_baseline(w, m->baseline);
    if (valid && base && base->p50 > 0)
        rts_json_double(j, "ratio", s->p50 / base->p50);
    else
        rts_json_null(j, "ratio");
    rts_json_object_end(j);
}

static void write_period_metric_fields(rts_result_writer *w, const rts_metric *m, const rts_summary *s, bool valid)
{
    rts_json *j = &w->json;
    write_summary(j, "stats", s);
    write_summary(j, "adjusted", s);
    rts_json_null(j, "cycles");
    rts_json_null(j, "histogram");
    rts_json_double(j, "period_s", m->period_s);
    rts_json_array_begin(j, "periods", true);
    for (uint64_t i = 0; i < m->raw_len; i++)
        rts_json_uint(j, NULL, m->raw[i]);
    rts_json_array_end(j);
    /* Each period's measured length, beside its figure: a figure is what
     * its period held, never scaled to period_s. */
    if (m->period_ns) {
        rts_json_array_begin(j, "period_lengths_s", true);
        for (uint64_t i = 0; i < m->raw_len; i++)
            rts_json_double(j, NULL, (double)m->period_ns[i] / 1e9);
        rts_json_array_end(j);
    }
    write_baseline(w, m, s, valid);
    rts_json_null(j, "threshold");
    rts_json_null(j, "series");
}

static void write_threshold(rts_json *j, const rts_metric *m)
{
    if (!m->threshold_ns || m->unit != RTS_UNIT_NS) {
        rts_json_null(j, "threshold");
        return;
    }
    rts_json_object_begin(j, "threshold", true);
    rts_json_uint(j, "ns", m->threshold_ns);
    rts_json_uint(j, "over", m->over_threshold);
    rts_json_object_end(j);
}

static void write_series(rts_json *j, const rts_series *s)
{
    if (!s->max) {
        rts_json_null(j, "series");
        return;
    }
    rts_json_object_begin(j, "series", false);
    rts_json_double(j, "window_s", (double)s->window_ns / 1e9);
    rts_json_array_begin(j, "max", true);
    for (uint64_t k = 0; k < s->len; k++) {
        if (s->max[k] == RTS_SERIES_EMPTY)
            rts_json_null(j, NULL);
        else
            rts_json_uint(j, NULL, s->max[k]);
    }
    rts_json_array_end(j);
    rts_json_uint(j, "dropped", s->dropped);
    rts_json_object_end(j);
}

/* The kernel traces kept at samples over the threshold (absent when none):
 * each sample's planned time and lateness, its CPU, and the trace's lines
 * from that CPU, oldest first. */
static void write_spikes(rts_json *j, const rts_metric *m)
{
    if (!m->nspikes)
        return;
    rts_json_array_begin(j, "spikes", false);
    for (unsigned i = 0; i < m->nspikes; i++) {
        const rts_spike *k = &m->spikes[i];
        rts_json_object_begin(j, NULL, false);
        rts_json_uint(j, "planned_ns", k->planned_ns);
        rts_json_uint(j, "late_ns", k->actual_ns - k->planned_ns);
        rts_json_int(j, "cpu", k->cpu);
        rts_json_uint(j, "dropped", k->dropped);
        rts_json_array_begin(j, "events", false);
        char line[512];
        for (const char *p = k->events; *p;) {
            const char *end = strchr(p, '\n');
            size_t n = end ? (size_t)(end - p) : strlen(p);
            snprintf(line, sizeof line, "%.*s", (int)n, p);
            rts_json_string(j, NULL, line);
            p += n + (end != NULL);
        }
        rts_json_array_end(j);
        rts_json_object_end(j);
    }
    rts_json_array_end(j);
}

/* What RT throttling did to m (absent when it was not watched: throttling
 * off or unknown, or no real-time policy): the samples taken across a
 * throttled stretch, the longest, when the first ended, the throttling. */
static void write_throttled(rts_json *j, const rts_metric *m)
{
    const rts_throttle_notes *t = m->throttle;
    if (!t)
        return;
    rts_json_object_begin(j, "throttled", false);
    rts_json_uint(j, "samples", t->samples);
    rts_json_uint(j, "longest_ns", t->longest_ns);
    rts_json_array_begin(j, "at_s", true);
    for (unsigned i = 0; i < t->nat; i++)
        rts_json_double(j, NULL, t->at_s[i]);
    rts_json_array_end(j);
    rts_json_uint(j, "period_us", t->period_ns / 1000u);
    rts_json_uint(j, "runtime_us", (t->period_ns - t->stop_ns) / 1000u);
    rts_json_object_end(j);
}

/* The figures of a time metric, as measured, below the clock's resolution:
 * less than one step of it (lat.irq on a board whose exception costs no
 * instruction reads 0), which a reader shows as "< the resolution", not as
 * a measured value. Their names, absent when there is none, and for a
 * metric stamped on the cycle counter, finer than the clock. */
static void write_below_resolution(rts_json *j, const rts_metric *m, const rts_summary *s)
{
    double step = m->timing ? (double)m->timing->clock_resolution_ns : 0.0;
    if (m->unit != RTS_UNIT_NS || s->count == 0 || (m->in_ticks && m->timing->use_cycles) || !(s->min < step))
        return; /* the minimum is the least of the figures */
    const struct {
        const char *name;
        double value;
    } figures[] = {{"min", s->min},   {"p50", s->p50},     {"p90", s->p90}, {"p99", s->p99},
                   {"p999", s->p999}, {"p9999", s->p9999}, {"max", s->max}, {"mean", s->mean}};
    rts_json_array_begin(j, "below_resolution", true);
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (figures[i].value < step)
            rts_json_string(j, NULL, figures[i].name);
    rts_json_array_end(j);
}

/* The fields of a metric of samples (not per period). */
static void write_sample_metric_fields(rts_json *j, const rts_metric *m, const rts_summary *s)
{
    rts_summary adjusted = rts_summary_shift(s, overhead_ns(m));
    write_summary(j, "stats", s);
    write_below_resolution(j, m, s);
    write_summary(j, "adjusted", &adjusted);
    if (m->in_ticks && m->timing->use_cycles && s->count > 0) {
        rts_summary c = cycles_summary(m, s);
        write_summary(j, "cycles", &c);
    } else
        rts_json_null(j, "cycles");
    write_histogram(j, &m->hist, m->resolution);
    if (m->raw) {
        rts_json_array_begin(j, "raw", true);
        for (uint64_t i = 0; i < m->raw_len; i++)
            rts_json_uint(j, NULL, m->raw[i]);
        rts_json_array_end(j);
        rts_json_uint(j, "raw_dropped", m->values.n - m->raw_len);
    }
    write_threshold(j, m);
    write_series(j, &m->series);
    write_spikes(j, m);
}

/* What tells m apart from others of its family: key -> integer or text, in
 * the order the bench gave them ({} when nothing does). */
static void write_labels(rts_json *j, const rts_metric *m)
{
    rts_json_object_begin(j, "labels", true);
    for (unsigned i = 0; i < m->nlabels; i++) {
        const rts_label *l = &m->labels[i];
        if (l->is_text)
            rts_json_string(j, l->key, l->text);
        else
            rts_json_int(j, l->key, l->i);
    }
    rts_json_object_end(j);
}

static void write_metric(rts_result_writer *w, const rts_bench *b, const rts_metric *m)
{
    rts_json *j = &w->json;
    rts_summary s;
    summarize_metric(&s, m);
    bool valid = !m->invalid && s.count > 0;
    rts_json_object_begin(j, NULL, false);
    rts_json_string(j, "id", m->id);
    rts_json_string(j, "bench", b->id);
    rts_json_string(j, "unit", rts_unit_name(m->unit));
    write_labels(j, m);
    rts_json_string(j, "description", m->description);
    rts_json_bool(j, "valid", valid);
    rts_json_string(j, "invalid_reason", valid ? NULL : m->invalid ? m->invalid_reason : "no samples");
    write_checks(j, m);
    write_throttled(j, m);
    rts_json_double(j, "overhead_ns", overhead_ns(m));
    if (m->per_period)
        write_period_metric_fields(w, m, &s, valid);
    else
        write_sample_metric_fields(j, m, &s);
    rts_json_object_end(j);
}

/* Keep the medians of r's calibration metrics (per period, their own
 * baseline or none), for the metrics they calibrate, in this bench
 * or a later one; beyond RTS_MAX_BASELINES those find none (ratio null). */
static void keep_baselines(rts_result_writer *w, const rts_bench_result *r)
{
    for (unsigned k = 0; k < r->nmetrics && w->nbaselines < RTS_MAX_BASELINES; k++) {
        const rts_metric *m = r->metrics[k];
        if (!m->per_period || (m->baseline && strcmp(m->baseline, m->id) != 0))
            continue;
        rts_summary s;
        summarize_metric(&s, m);
        rts_result_baseline *b = &w->baselines[w->nbaselines++];
        memcpy(b->id, m->id, sizeof b->id);
        b->p50 = !m->invalid && s.count > 0 ? s.p50 : NAN;
    }
}

void rts_result_begin(rts_result_writer *w, const rts_run *run, rts_json_write_fn write, void *arg)
{
    w->benches_written = 0;
    w->nbaselines = 0;
    rts_json *j = &w->json;
    rts_json_init(j, write, arg);
    rts_json_object_begin(j, NULL, false);
    rts_json_string(j, "format", "rtscope-result");
    rts_json_int(j, "version", 4);
    rts_result_write_system(j, &run->sys);
    write_timing(j, &run->timing);
    rts_json_array_begin(j, "metrics", false);
}

void rts_result_add_bench(rts_result_writer *w, const rts_run *run)
{
    const rts_bench_result *r = &run->results[w->benches_written++];
    keep_baselines(w, r);
    for (unsigned k = 0; k < r->nmetrics; k++)
        write_metric(w, r->bench, r->metrics[k]);
}

bool rts_result_end(rts_result_writer *w, const rts_run *run)
{
    while (w->benches_written < run->req->nbenches)
        rts_result_add_bench(w, run);
    rts_json *j = &w->json;
    rts_json_array_end(j);
    /* The configuration last but the benches and the run: its warnings
     * include those the benches gave while they measured. */
    write_config(j, run);
    write_benches(j, run);
    write_run(j, run);
    rts_json_object_end(j);
    return rts_json_finish(j);
}

bool rts_result_write(const rts_run *run, rts_json_write_fn write, void *arg)
{
    rts_result_writer w;
    rts_result_begin(&w, run, write, arg);
    return rts_result_end(&w, run);
}

/* v (from 1 to 999.5) to three significant digits, trailing zeros kept
 * ("1.20", "25.0", "366"), as the analyzer's tables write figures; the
 * decimals from v's size (no strtod or log10: a board's flash is small). */
static void fmt_significant(char *buf, size_t size, double v, const char *suffix)
{
    int decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
    snprintf(buf, size, "%.*f%s", decimals, v, suffix);
}

/* ns as "845 ns" / "68.3 ns" / "12.3 µs" / "4.56 ms" / "1.23 s" into buf:
 * the analyzer's spelling (three significant digits; below 1 µs without
 * trailing zeros, "20 ns"). */
static const char *fmt_ns(char *buf, size_t size, double ns)
{
    if (!isfinite(ns))
        snprintf(buf, size, "-");
    else if (ns < 999.5)
        snprintf(buf, size, "%.3g ns", ns);
    else if (ns < 999.5e3)
        fmt_significant(buf, size, ns / 1e3, " \xc2\xb5s");
    else if (ns < 999.5e6)
        fmt_significant(buf, size, ns / 1e6, " ms");
    else
        fmt_significant(buf, size, ns / 1e9, " s");
    return buf;
}

/* A whole number with thousands separators, "1,234,567", as the
 * analyzer's tables write counts. */
static const char *fmt_count(char *buf, size_t size, double v, const char *suffix)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", v);
    size_t n = strlen(digits), start = digits[0] == '-', k = 0;
    for (size_t i = 0; i < n && k + 2 < size; i++) {
        if (i > start && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    snprintf(buf + k, size - k, "%s", suffix);
    return buf;
}

/* Bytes per second with an SI prefix, e.g. "1.23 MB/s". */
static void fmt_rate(char *buf, size_t size, double v)
{
    static const char *const units[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
    size_t k = 0;
    for (; v >= 1000.0 && k + 1 < sizeof units / sizeof units[0]; k++)
        v /= 1000.0;
    snprintf(buf, size, "%.3g %s", v, units[k]);
}

/* v of m's unit for a person: "845 ns" / "12.3 µs" …, "1,234,567/p" (a
 * count per period), "12", "0.0123", "12.5 %", "1.23 MB/s". */
static const char *fmt_value(char *buf, size_t size, const rts_metric *m, double v)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else if (m->unit == RTS_UNIT_NS)
        fmt_ns(buf, size, v);
    else if (m->unit == RTS_UNIT_COUNT && (m->per_period || v == floor(v)))
        fmt_count(buf, size, v, m->per_period ? "/p" : "");
    else if (m->unit == RTS_UNIT_COUNT)
        snprintf(buf, size, "%.4g", v);
    else if (m->unit == RTS_UNIT_PERCENT)
        snprintf(buf, size, "%.3g %%", v);
    else if (m->unit == RTS_UNIT_RATIO)
        snprintf(buf, size, "%.3g", v);
    else
        fmt_rate(buf, size, v);
    return buf;
}

/* Width of a value column; a cell that holds "µs" (two bytes, one column)
 * gets one byte more, so that the columns line up on a terminal. */
#define VALUE_WIDTH 10
static int cell_width(const char *cell) { return VALUE_WIDTH + (strchr(cell, '\xc2') != NULL); }

/* One row of the summary: m's overhead-adjusted figures, its id in a column
 * of width; the columns of the analyzer's summary (rtscope show). */
static void print_metric_row(const rts_metric *m, int width, rts_text_fn out)
{
    rts_summary s, a;
    summarize_metric(&s, m);
    a = rts_summary_shift(&s, overhead_ns(m));
    const double figures[] = { a.min, a.p50, a.p90, a.p99, a.p999, a.max, a.mean, a.stddev };
    char count[32], v[24];
    rts_text_fmt(out, "%-*s %10s", width, m->id, fmt_count(count, sizeof count, (double)a.count, ""));
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        fmt_value(v, sizeof v, m, figures[i]);
        rts_text_fmt(out, " %*s", cell_width(v), v);
    }
    rts_text_fmt(out, "  %s\n", m->invalid ? m->invalid_reason : a.count ? "valid" : "no samples");
}

/* The width of the summary's first column: the longest metric id the run's benches declare, or the heading's. */
static int metric_column(const rts_run *run)
{
    size_t width = strlen("metric");
    for (unsigned b = 0; b < run->req->nbenches; b++)
        for (const char *const *id = run->req->benches[b]->metrics; *id; id++) {
            size_t n = strlen(*id);
            width = n > width ? n : width;
        }
    return (int)width;
}

void rts_result_print_heading(const rts_run *run, rts_text_fn out)
{
    rts_text_fmt(out, "Metrics, overhead-adjusted\n");
    rts_text_fmt(out, "%-*s %10s %10s %10s %10s %10s %10s %10s %10s %10s  %s\n", metric_column(run), "metric",
                 "count", "min", "p50", "p90", "p99", "p99.9", "max", "mean", "stddev", "validity");
}

void rts_result_print_bench(const rts_run *run, const rts_bench_result *r, rts_text_fn out)
{
    int width = metric_column(run);
    if (r->status == RTS_BENCH_FAILED || r->status == RTS_BENCH_SKIPPED)
        rts_text_fmt(out, "%-*s %s: %s\n", width, r->bench->id, bench_status_names[r->status], r->error);
    for (unsigned k = 0; k < r->nmetrics; k++)
        print_metric_row(r->metrics[k], width, out);
}

void rts_result_print_run(const rts_run *run, rts_text_fn out)
{
    char priority[16] = "";
    if (run->granted.policy != RTS_POLICY_OTHER)
        snprintf(priority, sizeof priority, " %d", run->granted.priority);
    rts_text_fmt(out, "run %s  %s  %s %s  policy %s%s  mlockall %s\n", run->id, run_status_names[run->status],
                 run->sys.hostname, run->sys.kernel_release, rts_policy_name(run->granted.policy), priority,
                 run->granted.not_applicable & RTS_SETTING_MLOCKALL ? "not applicable"
                 : run->granted.mlockall                            ? "yes"
                                                                    : "no");
}
