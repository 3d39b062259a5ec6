/*
 * What a bench gets through its context (see rtscope/bench.h): its
 * parameters, threads at the granted policy, supervision, and metrics.
 */
#include "context.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "params.h"
#include "text.h"

#define PROGRESS_PERIOD_NS 1000000000u
#define SUPERVISOR_TICK_NS 50000000u

/* ------------------------------------------------------------ parameters */

double rts_ctx_param(const rts_ctx *ctx, const char *name)
{
    int i = rts_param_index(ctx->result->bench, name);
    return i < 0 ? NAN : ctx->result->values[i];
}

const char *rts_ctx_param_text(const rts_ctx *ctx, const char *name)
{
    int i = rts_param_index(ctx->result->bench, name);
    return i < 0 ? NULL : ctx->result->texts[i];
}

void rts_ctx_param_set(rts_ctx *ctx, const char *name, double value)
{
    int i = rts_param_index(ctx->result->bench, name);
    if (i >= 0)
        ctx->result->values[i] = value;
}

const rts_timing *rts_ctx_timing(const rts_ctx *ctx) { return &ctx->run->timing; }

double rts_ctx_planned_s(const rts_ctx *ctx) { return (double)(ctx->deadline_ns - ctx->window_ns) / 1e9; }

int rts_ctx_cpu(rts_ctx *ctx, int fallback)
{
    int cpu = (int)rts_ctx_param(ctx, "cpu");
    if (cpu < 0)
        cpu = ctx->run->granted.ncpus > 0 ? ctx->run->granted.cpus[0] : fallback;
    rts_ctx_param_set(ctx, "cpu", cpu);
    return cpu;
}

int rts_ctx_cpus(rts_ctx *ctx, int cpus[RTS_MAX_CPUS])
{
    int cpu = (int)rts_ctx_param(ctx, "cpu");
    const rts_rtconfig *g = &ctx->run->granted;
    if (cpu >= 0 || g->ncpus == 0) {
        cpus[0] = cpu;
        return 1;
    }
    memcpy(cpus, g->cpus, (size_t)g->ncpus * sizeof *cpus);
    return g->ncpus;
}

int rts_ctx_last_allowed_cpu(void)
{
    for (int cpu = rts_cpu_count() - 1; cpu > 0; cpu--)
        if (rts_cpu_allowed(cpu))
            return cpu;
    return 0;
}

void rts_ctx_fail(rts_ctx *ctx, const char *fmt, ...)
{
    rts_bench_result *r = ctx->result;
    if (r->status != RTS_BENCH_FAILED) {
        va_list ap;
        va_start(ap, fmt);
        rts_text_vinto(r->error, sizeof r->error, fmt, ap);
        va_end(ap);
        r->status = RTS_BENCH_FAILED;
    }
    rts_ctx_stop(ctx);
}

void rts_ctx_warn(rts_ctx *ctx, const char *fmt, ...)
{
    char line[RTS_MESSAGE_TEXT];
    va_list ap;
    va_start(ap, fmt);
    rts_text_vinto(line, sizeof line, fmt, ap);
    va_end(ap);
    rts_warn(&ctx->run->warnings, "%s: %s", ctx->result->bench->id, line);
}

bool rts_ctx_stopping(const rts_ctx *ctx) { return atomic_load_explicit(&ctx->stop, memory_order_relaxed); }

void rts_ctx_stop(rts_ctx *ctx)
{
    atomic_store(&ctx->stop, true);
    if (ctx->stopped)
        rts_sem_give(ctx->stopped); /* one token: later stops find it there */
}

/* ------------------------------------------------------------- threads */

/* What a spawned thread starts with: handed over on the heap, freed by it. */
typedef struct {
    rts_ctx *ctx;
    void (*fn)(void *);
    void *arg;
} spawn_start;

/* Every spawned thread's entry: prefault its stack when granted, then run fn. */
static void spawned_thread(void *p)
{
    spawn_start s = *(spawn_start *)p;
    rts_heap_free(p);
    if (s.ctx->run->granted.stack_prefault)
        rts_stack_prefault(RTS_STACK_PREFAULT_BYTES);
    s.fn(s.arg);
}

rts_thread_attr rts_ctx_thread_attr(const rts_ctx *ctx, const char *name, int cpu, int prio_offset)
{
    const rts_rtconfig *g = &ctx->run->granted;
    int prio = g->policy == RTS_POLICY_OTHER ? 0 : g->priority + prio_offset;
    return (rts_thread_attr){
        .name = name,
        .policy = g->policy,
        .priority = prio < RTS_PRIORITY_MIN && g->policy != RTS_POLICY_OTHER ? RTS_PRIORITY_MIN
                    : prio > RTS_PRIORITY_MAX                          ? RTS_PRIORITY_MAX
                                                                       : prio,
        .cpu = cpu,
        .stack_size = RTS_THREAD_STACK_BYTES,
    };
}

rts_thread *rts_ctx_spawn(rts_ctx *ctx, const char *name, int cpu, int prio_offset,
                          void (*fn)(void *), void *arg)
{
    rts_thread_attr attr = rts_ctx_thread_attr(ctx, name, cpu, prio_offset);
    spawn_start *s = rts_heap_alloc(sizeof *s);
    if (!s) {
        rts_ctx_fail(ctx, "out of memory starting thread %s", name);
        return NULL;
    }
    *s = (spawn_start){ ctx, fn, arg };
    rts_thread *t = NULL;
    rts_status st = rts_thread_create(&t, &attr, spawned_thread, s);
    if (st != RTS_OK) {
        rts_heap_free(s);
        rts_ctx_fail(ctx, "cannot start thread %s on CPU %d: %s", name, cpu, rts_status_str(st));
        return NULL;
    }
    return t;
}

/* ---------------------------------------------------------- supervision */

/* One progress line of the bench of ctx, on metric m (may be NULL). */
static void print_progress(const rts_ctx *ctx, const rts_metric *m, uint64_t now, uint64_t start)
{
    if (ctx->run->req->quiet)
        return;
    rts_text_fmt(rts_diag_write, "  %-12s %5.1f / %.1f s  %llu samples\n", ctx->result->bench->id,
                 (double)(now - start) / 1e9, rts_ctx_planned_s(ctx),
                 m ? (unsigned long long)atomic_load_explicit(&m->progress, memory_order_relaxed) : 0ull);
}

/* The supervisor looks at the bench every tick, from a CPU of its own where
 * there are several. Under quiet supervision (one CPU and no stop requests:
 * an RTOS) each look would preempt the measurement, and on FreeRTOS cost a
 * thread its turn among equals: there it waits, without progress lines,
 * for the bench's stop or its deadline. */
void rts_ctx_wait(rts_ctx *ctx, const rts_metric *m)
{
    uint64_t start = rts_time_ns(), next_progress = start + PROGRESS_PERIOD_NS;
    bool quiet = ctx->run->quiet_supervision && ctx->stopped;
    for (;;) {
        uint64_t now = rts_time_ns();
        if (now >= ctx->deadline_ns || rts_ctx_stopping(ctx) || rts_stop_requested())
            break;
        if (now >= next_progress) {
            print_progress(ctx, m, now, start);
            next_progress += PROGRESS_PERIOD_NS;
        }
        uint64_t left = ctx->deadline_ns - now;
        if (quiet)
            rts_sem_take(ctx->stopped, left);
        else
            rts_sleep_ns(left < SUPERVISOR_TICK_NS ? left : SUPERVISOR_TICK_NS);
    }
    rts_ctx_stop(ctx);
}

/* The window of the planned length starts at from_ns: the supervisor
 * (rts_ctx_wait) and the watchdog hold the bench to its new end. */
static void move_window(rts_ctx *ctx, uint64_t from_ns)
{
    uint64_t length = ctx->deadline_ns - ctx->window_ns;
    ctx->window_ns = from_ns;
    ctx->deadline_ns = from_ns + length;
    rts_watchdog_move_end(&ctx->run->watchdog, ctx, ctx->deadline_ns);
}

void rts_ctx_await_start(rts_ctx *ctx, uint64_t limit_ns) { move_window(ctx, rts_time_ns() + limit_ns); }

void rts_ctx_started(rts_ctx *ctx, uint64_t at_ns)
{
    move_window(ctx, at_ns);
    ctx->result->has_startup = true;
    ctx->result->startup_us = at_ns > ctx->started_ns ? (uint32_t)((at_ns - ctx->started_ns) / 1000) : 0;
}

/* ------------------------------------------------------------- metrics */

/* Give the bench metric m (made by rts_metric_new, or NULL with why); NULL
 * after failing the bench when it has no room for it or m is NULL. */
static rts_metric *adopt(rts_ctx *ctx, rts_metric *m, const char *why)
{
    rts_bench_result *r = ctx->result;
    if (m && r->nmetrics < RTS_MAX_METRICS) {
        r->metrics[r->nmetrics++] = m;
        return m;
    }
    rts_ctx_fail(ctx, "%s", m ? "too many metrics" : why);
    rts_metric_free(m);
    return NULL;
}

rts_metric *rts_ctx_metric(rts_ctx *ctx, const char *id, const char *description, bool in_ticks)
{
    char why[RTS_MESSAGE_TEXT];
    rts_metric *m = rts_metric_new(id, description, RTS_UNIT_NS, 1.0, &ctx->run->timing, ctx->run->req->raw_cap, why,
                                   sizeof why);
    if (m)
        m->in_ticks = in_ticks;
    if (m)
        rts_ctx_watch_throttling(ctx, m);
    return adopt(ctx, m, why);
}

rts_metric *rts_ctx_count_metric(rts_ctx *ctx, const char *id, const char *description, double period_s,
                                 uint64_t periods, const char *baseline)
{
    char why[RTS_MESSAGE_TEXT];
    rts_metric *m = rts_metric_new(id, description, RTS_UNIT_COUNT, 1.0, &ctx->run->timing, periods, why, sizeof why);
    if (m) {
        m->per_period = true;
        m->period_s = period_s;
        m->baseline = baseline;
        m->period_ns = rts_heap_calloc(periods, sizeof *m->period_ns);
        if (!m->period_ns) {
            rts_metric_free(m);
            m = NULL;
            snprintf(why, sizeof why, "out of memory for metric %s", id);
        }
    }
    return adopt(ctx, m, why);
}

rts_metric *rts_ctx_metric_unit(rts_ctx *ctx, const char *id, const char *description, rts_unit unit,
                                double resolution)
{
    char why[RTS_MESSAGE_TEXT];
    rts_metric *m = NULL;
    if (unit == RTS_UNIT_NS)
        snprintf(why, sizeof why, "metric %s: time metrics (ns) come from rts_ctx_metric", id);
    else
        m = rts_metric_new(id, description, unit, resolution, &ctx->run->timing, ctx->run->req->raw_cap, why,
                           sizeof why);
    return adopt(ctx, m, why);
}

bool rts_ctx_metric_series(rts_ctx *ctx, rts_metric *m, uint64_t origin_ns)
{
    uint64_t window_ns = ctx->run->req->series_window_ns;
    if (m->unit != RTS_UNIT_NS) {
        rts_ctx_fail(ctx, "metric %s: a series is kept for time metrics (ns) only", m->id);
        return false;
    }
    double windows = ceil(rts_ctx_planned_s(ctx) * 1e9 / (double)window_ns) + 1.0;
    uint64_t cap = windows < (double)RTS_SERIES_MAX_WINDOWS ? (uint64_t)windows : RTS_SERIES_MAX_WINDOWS;
    if (rts_metric_keep_series(m, origin_ns, window_ns, cap))
        return true;
    rts_ctx_fail(ctx, "out of memory for the series of metric %s", m->id);
    return false;
}
