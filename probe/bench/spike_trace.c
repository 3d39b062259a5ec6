/* A kernel trace at a latency spike: see spike_trace.h. */
#include "spike_trace.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "tracefs.h"

/* What ran and why, with as few events as tell it, each costing the
 * measured path its time (docs/spike-trace.md: the tracer's cost): task
 * switches, the measuring thread's wake-up, and hard and soft interrupts.
 * Those a kernel lacks are left out; sched_switch is the one a trace cannot
 * do without. */
static const char *const events[] = {
    "sched/sched_switch", "sched/sched_waking", "irq/irq_handler_entry", "irq/irq_handler_exit",
    "irq/softirq_entry",  "irq/softirq_exit",
};

/* A kept trace is at most this many bytes of lines (the latest ones), and
 * reaches back from the planned time by the sample's lateness, at least by
 * this much: what was running when the wake-up was due, and since when —
 * a culprit's run may begin well before the planned time (lat.irq times
 * the last of the expiries a held CPU merged). */
#define SPIKE_MAX_BYTES (48u * 1024u)
#define SPIKE_LOOKBACK_MIN_NS 5000000u
/* Each CPU's ring buffer in the instance, in KiB. */
#define SPIKE_BUFFER_KB "1024"

struct spike_tracer {
    char dir[192]; /* the instance, TRACEFS/instances/rtscope: its settings go with it */
    unsigned mark; /* the system settings before the instance: it is one */
    bool each;
    unsigned limit;
    uint64_t threshold_ns;
    atomic_bool busy, done;
    atomic_uint kept, failures;
    char failure[200]; /* the first failure, written by the one thread holding busy */
};

spike_tracer *spike_trace_start(rts_ctx *ctx, const rts_metric *m)
{
    const char *mode = rts_ctx_param_text(ctx, "trace");
    if (strcmp(mode, "off") == 0)
        return NULL;
    if (!m->threshold_ns) {
        rts_ctx_warn(ctx, "trace=%s needs threshold_us above 0: measuring without a trace", mode);
        return NULL;
    }
    char tracers[512], why[200];
    bool denied;
    const char *base = tracefs_find(tracers, sizeof tracers, &denied, why, sizeof why);
    spike_tracer *t = base ? rts_heap_calloc(1, sizeof *t) : NULL;
    if (!t) {
        rts_ctx_warn(ctx, "trace=%s: %s: measuring without a trace", mode, base ? "out of memory" : why);
        return NULL;
    }
    snprintf(t->dir, sizeof t->dir, "%s/instances/rtscope", base);
    t->each = strcmp(mode, "each") == 0;
    t->limit = t->each ? (unsigned)rts_ctx_param(ctx, "trace_limit") : 1;
    t->threshold_ns = m->threshold_ns;
    /* A run killed before it removed its instance left it: it is reused. */
    t->mark = rts_settings_mark();
    bool ok = rts_setting_dir_make(t->dir, why, sizeof why) == RTS_OK;
    ok = ok && tracefs_write(t->dir, "tracing_on", "0", why, sizeof why) &&
         tracefs_write(t->dir, "trace_clock", "mono", why, sizeof why) &&
         tracefs_write(t->dir, "buffer_size_kb", SPIKE_BUFFER_KB, why, sizeof why);
    for (size_t i = 0; ok && i < sizeof events / sizeof events[0]; i++) {
        char name[96], ignored[200];
        snprintf(name, sizeof name, "events/%s/enable", events[i]);
        ok = tracefs_write(t->dir, name, "1", i == 0 ? why : ignored, i == 0 ? sizeof why : sizeof ignored) || i > 0;
    }
    ok = ok && tracefs_write(t->dir, "trace", "", why, sizeof why) &&
         tracefs_write(t->dir, "tracing_on", "1", why, sizeof why);
    if (!ok) {
        rts_ctx_warn(ctx, "trace=%s: %s: measuring without a trace", mode, why);
        rts_settings_restore(t->mark, why, sizeof why);
        rts_heap_free(t);
        return NULL;
    }
    return t;
}

/* The lines kept of a trace: when the next does not fit, the oldest half
 * goes (a trace's end, nearest the sample, matters most). */
typedef struct {
    uint64_t from_ns, to_ns; /* the window kept */
    char *text;
    size_t used;
    unsigned kept, dropped;
} line_store;

/* Keep a line of the trace when its time is in the store's window. */
static void store_line(void *arg, const char *line, size_t n)
{
    line_store *s = arg;
    uint64_t at;
    if (!tracefs_line_time_ns(line, &at) || at < s->from_ns || at > s->to_ns)
        return;
    if (n + 1 > SPIKE_MAX_BYTES)
        return;
    if (s->used + n + 1 > SPIKE_MAX_BYTES) {
        const char *newline = memchr(s->text + s->used / 2, '\n', s->used - s->used / 2);
        size_t cut = newline ? (size_t)(newline - s->text) + 1 : s->used;
        for (size_t i = 0; i < cut; i++)
            if (s->text[i] == '\n') {
                s->kept--;
                s->dropped++;
            }
        memmove(s->text, s->text + cut, s->used - cut);
        s->used -= cut;
    }
    memcpy(s->text + s->used, line, n);
    s->text[s->used + n] = '\n';
    s->used += n + 1;
    s->kept++;
}

/* Read the trace of cpu and keep, on m, its lines from before the planned
 * time (by the lateness, at least SPIKE_LOOKBACK_MIN_NS) to until_ns. */
static bool capture(spike_tracer *t, rts_metric *m, int cpu, uint64_t planned_ns, uint64_t actual_ns,
                    uint64_t until_ns)
{
    uint64_t late = actual_ns - planned_ns;
    uint64_t back = late > SPIKE_LOOKBACK_MIN_NS ? late : SPIKE_LOOKBACK_MIN_NS;
    char path[256];
    snprintf(path, sizeof path, "%s/per_cpu/cpu%d/trace", t->dir, cpu);
    line_store s = { .from_ns = planned_ns > back ? planned_ns - back : 0, .to_ns = until_ns,
                     .text = rts_heap_alloc(SPIKE_MAX_BYTES + 1) };
    rts_spike *spikes = rts_heap_alloc((m->nspikes + 1) * sizeof *spikes);
    bool read = s.text && spikes && tracefs_read_lines(path, store_line, &s, t->failure, sizeof t->failure);
    if (!read) {
        if (!s.text || !spikes)
            snprintf(t->failure, sizeof t->failure, "out of memory for a trace");
        rts_heap_free(s.text);
        rts_heap_free(spikes);
        return false;
    }
    s.text[s.used] = '\0';
    if (m->nspikes)
        memcpy(spikes, m->spikes, m->nspikes * sizeof *spikes);
    spikes[m->nspikes] = (rts_spike){ .planned_ns = planned_ns, .actual_ns = actual_ns, .cpu = cpu,
                                      .events = s.text, .kept = s.kept, .dropped = s.dropped };
    rts_heap_free(m->spikes);
    m->spikes = spikes;
    m->nspikes++;
    return true;
}

/* Keep the stopped trace of cpu around the sample on m, counted as kept or
 * failed (stopped false: it could not be stopped). */
static void keep(spike_tracer *t, rts_metric *m, bool stopped, int cpu, uint64_t planned_ns, uint64_t actual_ns,
                 uint64_t until_ns)
{
    if (stopped && capture(t, m, cpu, planned_ns, actual_ns, until_ns))
        atomic_fetch_add(&t->kept, 1);
    else
        atomic_fetch_add(&t->failures, 1);
}

/* Whether more traces are wanted: trace=each, under its limit. */
static bool more(const spike_tracer *t)
{
    return t->each && atomic_load(&t->kept) < t->limit;
}

bool spike_trace_resume(spike_tracer *t)
{
    char why[200];
    bool resumed = tracefs_write(t->dir, "trace", "", why, sizeof why) &&
                   tracefs_write(t->dir, "tracing_on", "1", why, sizeof why);
    if (!resumed)
        atomic_store(&t->done, true);
    return resumed;
}

bool spike_trace_sample(spike_tracer *t, rts_metric *m, uint64_t planned_ns, uint64_t actual_ns)
{
    if (!t || actual_ns < planned_ns || actual_ns - planned_ns < t->threshold_ns || atomic_load(&t->done) ||
        atomic_exchange(&t->busy, true))
        return false;
    bool paused = !atomic_load(&t->done);
    if (paused) {
        /* Stop first: the events that matter are the ones before now. */
        bool stopped = tracefs_write(t->dir, "tracing_on", "0", t->failure, sizeof t->failure);
        keep(t, m, stopped, rts_self_cpu(), planned_ns, actual_ns, actual_ns);
        if (!more(t) || !spike_trace_resume(t))
            atomic_store(&t->done, true);
    }
    atomic_store(&t->busy, false);
    return paused;
}

bool spike_trace_keep(spike_tracer *t, rts_metric *m, int cpu, uint64_t planned_ns, uint64_t actual_ns,
                      uint64_t until_ns)
{
    keep(t, m, true, cpu, planned_ns, actual_ns, until_ns);
    if (!more(t))
        atomic_store(&t->done, true);
    return !atomic_load(&t->done);
}

const char *spike_trace_dir(const spike_tracer *t)
{
    return t->dir;
}

void spike_trace_record(const spike_tracer *t, rts_metric *m)
{
    rts_metric_check_int(m, "traced_spikes", (long long)m->nspikes);
    rts_metric_check_int(m, "trace_failures", (long long)atomic_load(&t->failures));
}

void spike_trace_stop(rts_ctx *ctx, spike_tracer *t, rts_metric *m)
{
    if (!t)
        return;
    char why[200];
    tracefs_write(t->dir, "tracing_on", "0", why, sizeof why);
    /* Removing the instance drops its buffer and its events with it. */
    if (!rts_settings_restore(t->mark, why, sizeof why))
        rts_ctx_warn(ctx, "%s", why);
    unsigned failures = atomic_load(&t->failures);
    if (failures)
        rts_ctx_warn(ctx, "%u of its spike traces could not be kept: %s", failures, t->failure);
    if (m) {
        rts_metric_check_int(m, "traced_spikes", (long long)atomic_load(&t->kept));
        rts_metric_check_int(m, "trace_failures", (long long)failures);
    }
    rts_heap_free(t);
}
