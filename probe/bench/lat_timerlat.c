/*
 * lat.timerlat — timer latency as the kernel itself sees it, from Linux's
 * timerlat tracer: a periodic timer per CPU whose expiry the kernel times
 * to its IRQ handler (lat.timerlat.irq) and to the wake-up of its own
 * SCHED_FIFO thread, timerlat/N (lat.timerlat.thread).
 *
 * The probe only configures the tracer through tracefs (its period, the
 * CPUs), lets it run for the duration and reads its trace afterwards: no
 * sample is timed by the probe's clock, so the source is the kernel's own
 * view, which lat.irq's POSIX timer signal cannot give. The tracer is set
 * back to nop after. The bench is skipped, saying why, where there is no
 * tracefs or the kernel has no timerlat tracer (Debian's stock amd64
 * kernel): the target cannot run it. It fails where tracefs is there but
 * not for this user (not root): a privilege, not the target, is missing. A
 * trace that lost events, or holds far fewer activations than the period
 * and duration ask, makes the metrics invalid.
 *
 * With trace=first|each (as rtla timerlat -a): the tracer runs in
 * spike_trace's instance beside its scheduling and interrupt events, and the
 * kernel stops that trace itself at a thread sample over threshold_us
 * (osnoise/stop_tracing_total_us). Not at an IRQ sample (stop_tracing_us):
 * that stop comes before the activation's thread sample, which would be
 * lost; an IRQ over the threshold makes its thread's sample, later in the
 * same activation, pass it too. A thread polls tracing_on; when the kernel
 * stopped the trace it reads every sample in it, keeps the spike's CPU's
 * lines on the metric whose sample passed the threshold (the IRQ's when it
 * did, else the thread's), then clears the buffer and traces on: with
 * first, or past trace_limit, without the kernel's stop. The
 * activations while the trace was stopped are counted apart
 * (trace_skipped), from the gaps in the tracer's activation numbers and,
 * at the end, from each CPU's last sample to the end of the trace.
 */
#include "bench_util.h"
#include "tracefs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often the watching thread reads tracing_on: the periods after the
 * kernel stopped the trace until then are not traced. */
#define TIMERLAT_POLL_NS 10000000u
/* A traced run's buffer per CPU, in KiB per second of its duration: the
 * events of an idle emulated guest take about 430 KiB/s at the default period;
 * at least spike_trace's 1 MiB, at most 32 MiB. */
#define TIMERLAT_TRACE_KB_PER_S 1024.0
#define TIMERLAT_TRACE_KB_MIN 1024.0
#define TIMERLAT_TRACE_KB_MAX 32768.0

/* The IRQ sample of a CPU's last activation, to pair with its thread's. */
typedef struct {
    uint64_t seq, at_ns, latency_ns;
} irq_sample;

typedef struct {
    rts_metric *irq, *thread;
    uint64_t origin_ns, first_ts_ns;
    bool have_first;
    uint64_t irq_samples, thread_samples, lost, skipped;
    uint64_t last_seq[RTS_MAX_CPUS]; /* each CPU's last thread sample's activation */
    uint64_t last_at_ns[RTS_MAX_CPUS]; /* and when it was written (trace clock) */
    irq_sample last_irq[RTS_MAX_CPUS];
    /* The latest thread sample over the threshold in the trace read: the
     * one the kernel stopped the trace at. */
    struct {
        bool found;
        int cpu;
        uint64_t planned_ns, irq_ns, thread_ns, thread_at_ns;
    } spike;
} timerlat_trace;

/* Set the tracefs file name under dir to text, a system setting put back
 * after the run; fails the bench on error. */
static bool set(rts_ctx *ctx, const char *dir, const char *name, const char *text)
{
    char why[200];
    if (tracefs_set(dir, name, text, why, sizeof why))
        return true;
    rts_ctx_fail(ctx, "%s", why);
    return false;
}

/* Stop the trace to read it (the setting is put back with the others
 * after): nothing to report if it cannot be, the read then says why. */
static void trace_off(const char *dir)
{
    char why[200];
    tracefs_write(dir, "tracing_on", "0", why, sizeof why);
}

/* A thread sample of activation seq on cpu at at_ns: the activations
 * between it and the CPU's last one were not traced; over the threshold,
 * it is the spike candidate, planned at its IRQ's time minus the IRQ's
 * latency when the trace holds that, else at its own minus its own. */
static void thread_sample(timerlat_trace *t, int cpu, uint64_t seq, uint64_t at_ns, uint64_t latency_ns)
{
    if (cpu < 0 || cpu >= RTS_MAX_CPUS)
        return;
    if (seq > t->last_seq[cpu] + 1)
        t->skipped += seq - t->last_seq[cpu] - 1;
    t->last_seq[cpu] = seq;
    t->last_at_ns[cpu] = at_ns;
    if (!t->thread->threshold_ns || latency_ns < t->thread->threshold_ns ||
        (t->spike.found && at_ns < t->spike.thread_at_ns))
        return;
    const irq_sample *irq = &t->last_irq[cpu];
    bool paired = irq->seq == seq && irq->at_ns >= irq->latency_ns;
    t->spike.found = true;
    t->spike.cpu = cpu;
    t->spike.planned_ns = paired ? irq->at_ns - irq->latency_ns : at_ns - latency_ns;
    t->spike.irq_ns = paired ? irq->latency_ns : 0;
    t->spike.thread_ns = latency_ns;
    t->spike.thread_at_ns = at_ns;
}

/* One line of the trace: "TASK-PID [CPU] FLAGS SECONDS.MICROS: #N context
 * irq|thread timer_latency NS ns", or "CPU:N [LOST M EVENTS]"; the rest
 * (the events traced beside it) is not a sample. */
static void parse_line(void *arg, const char *line, size_t n)
{
    (void)n;
    timerlat_trace *t = arg;
    const char *lost = strstr(line, "[LOST ");
    if (lost) {
        t->lost += strtoull(lost + 6, NULL, 10);
        return;
    }
    const char *context = strstr(line, " context ");
    const char *latency = context ? strstr(context, "timer_latency") : NULL;
    const char *stamp_end = context ? strstr(line, ": #") : NULL;
    uint64_t ts_ns;
    if (!latency || !stamp_end || stamp_end > context || !tracefs_line_time_ns(line, &ts_ns))
        return;
    const char *cpu_at = stamp_end;
    while (cpu_at > line && *cpu_at != '[')
        cpu_at--;
    int cpu = *cpu_at == '[' ? (int)strtol(cpu_at + 1, NULL, 10) : -1;
    uint64_t seq = strtoull(stamp_end + 3, NULL, 10);
    double ns = strtod(latency + strlen("timer_latency"), NULL);
    if (!t->have_first) {
        t->first_ts_ns = ts_ns;
        t->have_first = true;
    }
    uint64_t at = t->origin_ns + (ts_ns >= t->first_ts_ns ? ts_ns - t->first_ts_ns : 0);
    const char *kind = context + strlen(" context ");
    while (*kind == ' ')
        kind++;
    if (strncmp(kind, "irq", 3) == 0) {
        rts_metric_add_at(t->irq, ns, at);
        t->irq_samples++;
        if (cpu >= 0 && cpu < RTS_MAX_CPUS)
            t->last_irq[cpu] = (irq_sample){ .seq = seq, .at_ns = ts_ns, .latency_ns = (uint64_t)ns };
    } else if (strncmp(kind, "thread", 6) == 0) {
        rts_metric_add_at(t->thread, ns, at);
        t->thread_samples++;
        thread_sample(t, cpu, seq, ts_ns, (uint64_t)ns);
    }
}

/* Read the trace file under dir into t; false (the bench failed) when it
 * cannot be read. */
static bool read_trace(rts_ctx *ctx, const char *dir, timerlat_trace *t)
{
    char path[256], why[200];
    snprintf(path, sizeof path, "%s/trace", dir);
    t->spike.found = false;
    if (tracefs_read_lines(path, parse_line, t, why, sizeof why))
        return true;
    rts_ctx_fail(ctx, "%s", why);
    return false;
}

/* A traced run: the tracer, the instance it traces into, and where the
 * osnoise settings are (tracefs's top level: they are the kernel's, not an
 * instance's). */
typedef struct {
    rts_ctx *ctx;
    spike_tracer *tracer;
    const char *dir, *base;
    timerlat_trace *trace;
    bool tracing, failed; /* tracing: traces still wanted, the kernel's stop set */
} timerlat_watch;

/* The kernel stopped the trace at a spike: read every sample, keep the
 * spike's trace on the metric whose sample passed the threshold; with
 * resume, trace on (without the kernel's stop once no more traces are
 * wanted). False when the trace could not be read or set again. */
static bool take_spike(timerlat_watch *w, bool resume)
{
    timerlat_trace *t = w->trace;
    if (!read_trace(w->ctx, w->dir, t))
        return false;
    bool more = true;
    if (t->spike.found && w->tracing) {
        bool at_irq = t->spike.irq_ns >= t->irq->threshold_ns;
        rts_metric *m = at_irq ? t->irq : t->thread;
        uint64_t late = at_irq ? t->spike.irq_ns : t->spike.thread_ns;
        more = spike_trace_keep(w->tracer, m, t->spike.cpu, t->spike.planned_ns, t->spike.planned_ns + late,
                                t->spike.thread_at_ns);
    }
    if (!more) {
        w->tracing = false;
        /* The events stay on: turning them off took the emulated rt
         * guest's kernel some 30 ms more, not traced. */
        if (!set(w->ctx, w->base, "osnoise/stop_tracing_total_us", "0"))
            return false;
    }
    if (resume && !spike_trace_resume(w->tracer)) {
        rts_ctx_fail(w->ctx, "cannot trace on after a spike's trace");
        return false;
    }
    return true;
}

/* Whether the kernel stopped the trace. */
static bool trace_stopped(const char *dir)
{
    char path[256], on[8] = "";
    snprintf(path, sizeof path, "%s/tracing_on", dir);
    return tracefs_read_small(path, on, sizeof on) == RTS_OK && on[0] == '0';
}

static void watch(void *arg)
{
    timerlat_watch *w = arg;
    while (!rts_ctx_stopping(w->ctx) && !w->failed) {
        rts_sleep_ns(TIMERLAT_POLL_NS);
        if (trace_stopped(w->dir))
            w->failed = !take_spike(w, true);
    }
    rts_ctx_stop(w->ctx);
}

/* The target has tracefs with a timerlat tracer; unreadable tracefs is let
 * through, for run to fail on: that is a missing privilege. */
static bool can_run(const rts_ctx *ctx, char *why, size_t whysize)
{
    (void)ctx;
    char tracers[512] = "";
    bool denied;
    const char *dir = tracefs_find(tracers, sizeof tracers, &denied, why, whysize);
    if (denied)
        return true;
    if (!dir)
        return false;
    if (!tracefs_has_word(tracers, "timerlat")) {
        tracers[strcspn(tracers, "\n")] = '\0';
        snprintf(why, whysize, "the kernel has no timerlat tracer (its tracers: %s)", tracers);
        return false;
    }
    return true;
}

static int run(rts_ctx *ctx)
{
    uint64_t period_us = (uint64_t)rts_ctx_param(ctx, "period_us");
    int cpu = rts_ctx_cpu(ctx, -1);
    char tracers[512] = "", why[200];
    bool denied;
    const char *base = tracefs_find(tracers, sizeof tracers, &denied, why, sizeof why);
    if (!base) { /* can_run found timerlat, or let this through: tracefs is there, not for this user */
        rts_ctx_fail(ctx, "%s", why);
        return 1;
    }
    timerlat_trace t = { .origin_ns = rts_time_ns() };
    t.irq = bench_latency_metric(ctx, "lat.timerlat.irq", "kernel timerlat tracer: timer expiry to its IRQ "
                                                          "handler (the kernel's own measurement)", t.origin_ns);
    t.thread = bench_latency_metric(ctx, "lat.timerlat.thread", "kernel timerlat tracer: timer expiry to the "
                                                                "wake-up of its SCHED_FIFO kernel thread",
                                    t.origin_ns);
    if (!t.irq || !t.thread)
        return 1;
    uint64_t threshold_ns = bench_threshold_ns(ctx);
    t.irq->threshold_ns = t.thread->threshold_ns = threshold_ns;
    timerlat_watch w = { .ctx = ctx, .base = base, .trace = &t, .tracer = spike_trace_start(ctx, t.thread) };
    /* Its own settings from here; the instance's are the tracer's. */
    unsigned mark = rts_settings_mark();
    w.dir = w.tracer ? spike_trace_dir(w.tracer) : base;
    w.tracing = w.tracer != NULL;
    char period[32], cpus[16], stop_at[32], buffer_kb[32];
    snprintf(period, sizeof period, "%llu", (unsigned long long)period_us);
    snprintf(cpus, sizeof cpus, "%d", cpu);
    /* The kernel stops at a whole number of microseconds at or over it. */
    snprintf(stop_at, sizeof stop_at, "%llu", (unsigned long long)((threshold_ns + 999u) / 1000u));
    double kb = rts_ctx_planned_s(ctx) * TIMERLAT_TRACE_KB_PER_S;
    kb = kb < TIMERLAT_TRACE_KB_MIN ? TIMERLAT_TRACE_KB_MIN : kb > TIMERLAT_TRACE_KB_MAX ? TIMERLAT_TRACE_KB_MAX : kb;
    snprintf(buffer_kb, sizeof buffer_kb, "%.0f", kb);
    bool armed = set(ctx, w.dir, "tracing_on", "0") && set(ctx, w.dir, "current_tracer", "nop") &&
                 (!w.tracing || (set(ctx, w.dir, "buffer_size_kb", buffer_kb) &&
                                 set(ctx, base, "osnoise/stop_tracing_us", "0") &&
                                 set(ctx, base, "osnoise/stop_tracing_total_us", stop_at))) &&
                 tracefs_write(w.dir, "trace", "", why, sizeof why) &&
                 set(ctx, base, "osnoise/timerlat_period_us", period) &&
                 (cpu < 0 || set(ctx, base, "osnoise/cpus", cpus)) &&
                 set(ctx, w.dir, "current_tracer", "timerlat") && set(ctx, w.dir, "tracing_on", "1");
    uint64_t started = rts_time_ns(), traced_ns = 0;
    bool read = false;
    if (armed && w.tracer) {
        /* The watching thread only sleeps and reads: the lowest real-time priority. */
        bool watched = bench_run_measurer(ctx, "lat-timerlat", -1, -RTS_PRIORITY_MAX, watch, &w, t.irq);
        traced_ns = rts_time_ns() - started;
        bool at_spike = watched && !w.failed && trace_stopped(w.dir);
        uint64_t off_ns = rts_time_ns();
        trace_off(w.dir);
        read = watched && !w.failed && (at_spike ? take_spike(&w, false) : read_trace(ctx, w.dir, &t));
        /* The activations after a CPU's last sample, when the trace ended stopped or
         * resumed only just before: no later sample shows them as a gap (the
         * instance's clock is the probe's). */
        for (int c = 0; c < RTS_MAX_CPUS; c++)
            if (t.last_at_ns[c] && off_ns > t.last_at_ns[c])
                t.skipped += (off_ns - t.last_at_ns[c]) / (period_us * 1000u);
    } else if (armed) {
        rts_ctx_wait(ctx, t.irq);
        traced_ns = rts_time_ns() - started;
        trace_off(w.dir);
        read = read_trace(ctx, w.dir, &t);
    }
    /* The tracer off first (its threads go with it), then every setting as it was, the instance's before
     * the instance goes. */
    tracefs_write(w.dir, "current_tracer", "nop", why, sizeof why);
    if (!rts_settings_restore(mark, why, sizeof why))
        rts_ctx_warn(ctx, "%s", why);
    if (w.tracer) {
        spike_trace_record(w.tracer, t.irq);
        spike_trace_record(w.tracer, t.thread);
        spike_trace_stop(ctx, w.tracer, NULL);
    }
    if (!read)
        return 1;
    int traced_cpus = cpu >= 0 ? 1 : rts_cpu_count();
    uint64_t expected = traced_ns / (period_us * 1000u) * (uint64_t)traced_cpus;
    rts_metric *both[] = { t.irq, t.thread };
    for (int i = 0; i < 2; i++) {
        rts_metric_check_int(both[i], "period_us", (long long)period_us);
        rts_metric_check_int(both[i], "expected_activations", (long long)expected);
        rts_metric_check_int(both[i], "lost_events", (long long)t.lost);
        rts_metric_check_bool(both[i], "timerlat", true);
        if (w.tracer)
            rts_metric_check_int(both[i], "trace_skipped", (long long)t.skipped);
        if (t.lost)
            rts_metric_invalidate(both[i], "the trace lost %llu events", (unsigned long long)t.lost);
    }
    /* The activations the stopped trace skipped were run, not missing. */
    if (t.irq_samples + t.skipped < expected / 2)
        rts_metric_invalidate(t.irq, "the tracer recorded %llu IRQ activations, expected about %llu",
                              (unsigned long long)t.irq_samples, (unsigned long long)expected);
    if (t.thread_samples + t.skipped < expected / 2)
        rts_metric_invalidate(t.thread, "the tracer recorded %llu thread activations, expected about %llu",
                              (unsigned long long)t.thread_samples, (unsigned long long)expected);
    return 0;
}

static const rts_param_decl params[] = {
    { "period_us", "1000", 100, 1000000, true, "the tracer's timer period in microseconds" },
    RTS_PARAM_CPU("every CPU"),
    BENCH_PARAM_THRESHOLD,
    SPIKE_TRACE_PARAMS,
};

static const char *const metrics[] = { "lat.timerlat.irq", "lat.timerlat.thread", NULL };

RTS_BENCH_DEFINE(rts_bench_lat_timerlat) = {
    .id = "lat.timerlat",
    .summary = "timer latency from the kernel's timerlat tracer: expiry to IRQ handler and to its thread",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_FILES,
    .can_run = can_run,
    .run = run,
};
