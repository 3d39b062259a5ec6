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
 */
#include "bench_util.h"
#include "tracefs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    rts_metric *irq, *thread;
    uint64_t origin_ns, first_ts_ns;
    bool have_first;
    uint64_t irq_samples, thread_samples, lost;
} timerlat_trace;

/* Write text to the tracefs file name under dir; fails the bench on error. */
static bool set(rts_ctx *ctx, const char *dir, const char *name, const char *text)
{
    char why[200];
    if (tracefs_write(dir, name, text, why, sizeof why))
        return true;
    rts_ctx_fail(ctx, "%s", why);
    return false;
}

/* Set a tracefs file back after the run, whatever happened: nothing to
 * report if it cannot be (setting it failed the bench already). */
static void restore(const char *dir, const char *name, const char *text)
{
    char why[200];
    tracefs_write(dir, name, text, why, sizeof why);
}

/* One line of the trace: "TASK-PID [CPU] FLAGS SECONDS.MICROS: #N context
 * irq|thread timer_latency NS ns", or "CPU:N [LOST M EVENTS]". */
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
    if (!latency || !stamp_end || stamp_end > context)
        return;
    const char *stamp = stamp_end;
    while (stamp > line && stamp[-1] != ' ')
        stamp--;
    char *after;
    unsigned long long secs = strtoull(stamp, &after, 10);
    unsigned long long micros = *after == '.' ? strtoull(after + 1, NULL, 10) : 0;
    uint64_t ts_ns = (uint64_t)secs * 1000000000u + (uint64_t)micros * 1000u;
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
    } else if (strncmp(kind, "thread", 6) == 0) {
        rts_metric_add_at(t->thread, ns, at);
        t->thread_samples++;
    }
}

/* Read the trace file under dir into t; false (the bench failed) when it
 * cannot be read. */
static bool read_trace(rts_ctx *ctx, const char *dir, timerlat_trace *t)
{
    char path[128], why[200];
    snprintf(path, sizeof path, "%s/trace", dir);
    if (tracefs_read_lines(path, parse_line, t, why, sizeof why))
        return true;
    rts_ctx_fail(ctx, "%s", why);
    return false;
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
    const char *dir = tracefs_find(tracers, sizeof tracers, &denied, why, sizeof why);
    if (!dir) { /* can_run found timerlat, or let this through: tracefs is there, not for this user */
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
    char period[32], cpus[16];
    snprintf(period, sizeof period, "%llu", (unsigned long long)period_us);
    snprintf(cpus, sizeof cpus, "%d", cpu);
    bool armed = set(ctx, dir, "tracing_on", "0") && set(ctx, dir, "current_tracer", "nop") &&
                 set(ctx, dir, "trace", "") && set(ctx, dir, "osnoise/timerlat_period_us", period) &&
                 (cpu < 0 || set(ctx, dir, "osnoise/cpus", cpus)) && set(ctx, dir, "current_tracer", "timerlat") &&
                 set(ctx, dir, "tracing_on", "1");
    uint64_t started = rts_time_ns();
    if (armed)
        rts_ctx_wait(ctx, t.irq);
    uint64_t traced_ns = rts_time_ns() - started;
    restore(dir, "tracing_on", "0");
    bool read = armed && read_trace(ctx, dir, &t);
    restore(dir, "current_tracer", "nop"); /* the tracer's threads go with it */
    if (cpu >= 0) {
        snprintf(cpus, sizeof cpus, "0-%d", rts_cpu_count() - 1);
        restore(dir, "osnoise/cpus", cpus);
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
        if (t.lost)
            rts_metric_invalidate(both[i], "the trace lost %llu events", (unsigned long long)t.lost);
    }
    if (t.irq_samples < expected / 2)
        rts_metric_invalidate(t.irq, "the tracer recorded %llu IRQ activations, expected about %llu",
                              (unsigned long long)t.irq_samples, (unsigned long long)expected);
    if (t.thread_samples < expected / 2)
        rts_metric_invalidate(t.thread, "the tracer recorded %llu thread activations, expected about %llu",
                              (unsigned long long)t.thread_samples, (unsigned long long)expected);
    return 0;
}

static const rts_param_decl params[] = {
    { "period_us", "1000", 100, 1000000, true, "the tracer's timer period in microseconds" },
    RTS_PARAM_CPU("every CPU"),
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
