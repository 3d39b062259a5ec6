/*
 * The runner: parameters, real-time setup, and the services a bench gets
 * through its context (threads, supervision, metrics).
 */
#include "runner.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PROGRESS_PERIOD_NS 1000000000u
#define SUPERVISOR_TICK_NS 50000000u

struct rts_ctx {
    rts_run *run;
    rts_bench_result *result;
    uint64_t started_ns, deadline_ns;
    _Atomic bool stop;
};

#define WATCHDOG_TICK_NS 50000000u

/* ------------------------------------------------------------ parameters */

static int param_index(const rts_bench *b, const char *name)
{
    for (unsigned i = 0; i < b->nparams; i++)
        if (strcmp(b->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Parse text as parameter p's value into *out; false with a reason. */
static bool parse_param(const rts_param_decl *p, const char *text, double *out, char *err, size_t errsize)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v)) {
        snprintf(err, errsize, "'%s' is not a number", text);
        return false;
    }
    if (p->integer && v != floor(v)) {
        snprintf(err, errsize, "'%s' is not a whole number", text);
        return false;
    }
    if (v < p->min || v > p->max) {
        snprintf(err, errsize, "must be between %.15g and %.15g, not %s", p->min, p->max, text);
        return false;
    }
    *out = v;
    return true;
}

/* Apply one assignment to bench result r if it concerns it; returns whether it did. */
static bool apply_assignment(rts_bench_result *r, const rts_assignment *a, char *err, size_t errsize, bool *bad)
{
    if (a->bench && strcmp(a->bench, r->bench->id) != 0)
        return false;
    int i = param_index(r->bench, a->key);
    if (i < 0)
        return false;
    char why[160];
    if (!parse_param(&r->bench->params[i], a->value, &r->values[i], why, sizeof why)) {
        snprintf(err, errsize, "bench %s: parameter %s: %s", r->bench->id, a->key, why);
        *bad = true;
    }
    return true;
}

bool rts_params_resolve(rts_run *run, char *err, size_t errsize)
{
    const rts_run_request *req = run->req;
    for (unsigned b = 0; b < req->nbenches; b++) {
        rts_bench_result *r = &run->results[b];
        r->bench = req->benches[b];
        for (unsigned i = 0; i < r->bench->nparams; i++) {
            char why[160];
            if (!parse_param(&r->bench->params[i], r->bench->params[i].def, &r->values[i], why, sizeof why)) {
                snprintf(err, errsize, "bench %s: bad default: %s", r->bench->id, why); /* a bug, not input */
                return false;
            }
        }
    }
    for (unsigned a = 0; a < req->nassignments; a++) {
        const rts_assignment *as = &req->assignments[a];
        bool used = false, bad = false;
        for (unsigned b = 0; b < req->nbenches && !bad; b++)
            used |= apply_assignment(&run->results[b], as, err, errsize, &bad);
        if (bad)
            return false;
        if (!used) {
            if (as->bench)
                snprintf(err, errsize, "bench %s is not selected or has no parameter '%s'", as->bench, as->key);
            else
                snprintf(err, errsize, "no selected bench has a parameter '%s' (rtscope-probe list shows them)",
                         as->key);
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------- warnings */

void rts_run_warn(rts_run *run, const char *fmt, ...)
{
    if (run->nwarnings >= RTS_MAX_WARNINGS)
        return;
    char *w = run->warnings[run->nwarnings++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w, sizeof run->warnings[0], fmt, ap);
    va_end(ap);
    if (!run->req->quiet)
        fprintf(stderr, "warning: %s\n", w);
}

/* ------------------------------------------------------ real-time setup */

static void setup_memory(rts_run *run)
{
    const rts_rtconfig *want = &run->req->requested;
    run->granted.stack_prefault = want->stack_prefault;
    run->granted.mlockall = false;
    if (!want->mlockall)
        return;
    if (run->req->refuse_privilege) {
        rts_run_warn(run, "mlockall not attempted (--refuse-privilege): page faults can reach the maxima");
        return;
    }
    rts_status st = rts_mem_lock_all();
    if (st == RTS_OK)
        run->granted.mlockall = true;
    else
        rts_run_warn(run, "mlockall refused (%s): page faults can reach the maxima", rts_status_str(st));
}

/* Try the requested policy on this thread, then return it to normal: the
 * supervisor itself must not compete with the measuring threads. */
static void setup_policy(rts_run *run)
{
    const rts_rtconfig *want = &run->req->requested;
    run->granted.policy = RTS_POLICY_OTHER;
    run->granted.priority = 0;
    if (want->policy == RTS_POLICY_OTHER)
        return;
    const char *name = rts_policy_name(want->policy);
    if (run->req->refuse_privilege) {
        rts_run_warn(run, "%s priority %d not attempted (--refuse-privilege): measuring at normal priority, "
                          "where wake-ups also carry the kernel's timer slack",
                     name, want->priority);
        return;
    }
    rts_status st = rts_self_set_sched(want->policy, want->priority);
    if (st != RTS_OK) {
        rts_run_warn(run, "%s priority %d refused (%s): measuring at normal priority, where wake-ups also "
                          "carry the kernel's timer slack",
                     name, want->priority, rts_status_str(st));
        return;
    }
    rts_self_set_sched(RTS_POLICY_OTHER, 0);
    run->granted.policy = want->policy;
    run->granted.priority = want->priority;
}

/* Deep idle states add tens of microseconds to every wake-up from idle;
 * cyclictest holds the same request while it measures. */
static void setup_cpu_latency(rts_run *run)
{
    int want = run->req->requested.cpu_latency_us;
    run->granted.cpu_latency_us = -1;
    if (want < 0)
        return;
    if (run->req->refuse_privilege) {
        rts_run_warn(run, "CPU wake-up latency limit not attempted (--refuse-privilege): idle states may "
                          "lengthen wake-ups");
        return;
    }
    rts_status st = rts_cpu_latency_limit(want);
    if (st == RTS_OK)
        run->granted.cpu_latency_us = want;
    else
        rts_run_warn(run, "CPU wake-up latency limit refused (%s): idle states may lengthen wake-ups",
                     rts_status_str(st));
}

static void setup_realtime(rts_run *run)
{
    const rts_rtconfig *want = &run->req->requested;
    memcpy(run->granted.cpus, want->cpus, sizeof want->cpus);
    run->granted.ncpus = want->ncpus; /* validated by the CLI: allowed CPUs */
    setup_memory(run);
    setup_policy(run);
    setup_cpu_latency(run);
    if (run->sys.rt_runtime_us >= 0 && run->granted.policy != RTS_POLICY_OTHER && run->sys.rt_period_us > 0 &&
        run->sys.rt_runtime_us < run->sys.rt_period_us)
        rts_run_warn(run, "RT throttling is on (%lld of %lld us): a real-time thread that keeps a CPU busy "
                          "is stopped for the rest of each period",
                     run->sys.rt_runtime_us, run->sys.rt_period_us);
}

/* ------------------------------------------------------------- context */

double rts_ctx_param(const rts_ctx *ctx, const char *name)
{
    int i = param_index(ctx->result->bench, name);
    return i < 0 ? NAN : ctx->result->values[i];
}

void rts_ctx_param_set(rts_ctx *ctx, const char *name, double value)
{
    int i = param_index(ctx->result->bench, name);
    if (i >= 0)
        ctx->result->values[i] = value;
}

const rts_timing *rts_ctx_timing(const rts_ctx *ctx) { return &ctx->run->timing; }

double rts_ctx_planned_s(const rts_ctx *ctx) { return (double)(ctx->deadline_ns - ctx->started_ns) / 1e9; }

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
        vsnprintf(r->error, sizeof r->error, fmt, ap);
        va_end(ap);
        r->status = RTS_BENCH_FAILED;
    }
    rts_ctx_stop(ctx);
}

bool rts_ctx_stopping(const rts_ctx *ctx) { return atomic_load_explicit(&ctx->stop, memory_order_relaxed); }

void rts_ctx_stop(rts_ctx *ctx) { atomic_store(&ctx->stop, true); }

typedef struct {
    rts_ctx *ctx;
    void (*fn)(void *);
    void *arg;
} spawn_start;

static void spawned_thread(void *p)
{
    spawn_start s = *(spawn_start *)p;
    free(p);
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
        .priority = prio < 1 && g->policy != RTS_POLICY_OTHER ? 1 : prio > 99 ? 99 : prio,
        .cpu = cpu,
        .stack_size = RTS_THREAD_STACK_BYTES,
    };
}

rts_thread *rts_ctx_spawn(rts_ctx *ctx, const char *name, int cpu, int prio_offset,
                          void (*fn)(void *), void *arg)
{
    rts_thread_attr attr = rts_ctx_thread_attr(ctx, name, cpu, prio_offset);
    spawn_start *s = malloc(sizeof *s);
    if (!s) {
        rts_ctx_fail(ctx, "out of memory starting thread %s", name);
        return NULL;
    }
    *s = (spawn_start){ ctx, fn, arg };
    rts_thread *t = NULL;
    rts_status st = rts_thread_create(&t, &attr, spawned_thread, s);
    if (st != RTS_OK) {
        free(s);
        rts_ctx_fail(ctx, "cannot start thread %s on CPU %d: %s", name, cpu, rts_status_str(st));
        return NULL;
    }
    return t;
}

static void print_progress(const rts_ctx *ctx, const rts_metric *m, uint64_t now, uint64_t start)
{
    if (ctx->run->req->quiet)
        return;
    fprintf(stderr, "  %-12s %5.1f / %.1f s  %llu samples\n", ctx->result->bench->id,
            (double)(now - start) / 1e9, rts_ctx_planned_s(ctx),
            m ? (unsigned long long)atomic_load_explicit(&m->progress, memory_order_relaxed) : 0ull);
}

void rts_ctx_wait(rts_ctx *ctx, const rts_metric *m)
{
    uint64_t start = rts_time_ns(), next_progress = start + PROGRESS_PERIOD_NS;
    for (;;) {
        uint64_t now = rts_time_ns();
        if (now >= ctx->deadline_ns || rts_ctx_stopping(ctx) || rts_stop_requested())
            break;
        if (now >= next_progress) {
            print_progress(ctx, m, now, start);
            next_progress += PROGRESS_PERIOD_NS;
        }
        uint64_t left = ctx->deadline_ns - now;
        rts_sleep_ns(left < SUPERVISOR_TICK_NS ? left : SUPERVISOR_TICK_NS);
    }
    rts_ctx_stop(ctx);
}

/* ------------------------------------------------------------- metrics */

/* A fresh metric of the bench keeping up to raw_cap raw samples. */
static rts_metric *new_metric(rts_ctx *ctx, const char *id, const char *description, uint64_t raw_cap)
{
    rts_bench_result *r = ctx->result;
    if (r->nmetrics >= RTS_MAX_METRICS) {
        rts_ctx_fail(ctx, "too many metrics");
        return NULL;
    }
    rts_metric *m = calloc(1, sizeof *m);
    if (m && raw_cap) {
        m->raw = calloc(raw_cap, sizeof *m->raw);
        if (!m->raw) {
            free(m);
            m = NULL;
        }
    }
    if (!m) {
        rts_ctx_fail(ctx, "out of memory for metric %s", id);
        return NULL;
    }
    if (snprintf(m->id, sizeof m->id, "%s", id) >= (int)sizeof m->id) {
        free(m->raw);
        free(m);
        rts_ctx_fail(ctx, "metric id %s is too long", id);
        return NULL;
    }
    m->description = description;
    m->timing = &ctx->run->timing;
    m->raw_cap = raw_cap;
    rts_welford_init(&m->values);
    rts_welford_init(&m->cycles);
    rts_hist_init(&m->hist);
    r->metrics[r->nmetrics++] = m;
    return m;
}

rts_metric *rts_ctx_metric(rts_ctx *ctx, const char *id, const char *description, bool in_ticks)
{
    rts_metric *m = new_metric(ctx, id, description, ctx->run->req->raw_cap);
    if (m)
        m->in_ticks = in_ticks;
    return m;
}

rts_metric *rts_ctx_count_metric(rts_ctx *ctx, const char *id, const char *description, double period_s,
                                 uint64_t periods, const char *baseline)
{
    rts_metric *m = new_metric(ctx, id, description, periods);
    if (m) {
        m->counts = true;
        m->period_s = period_s;
        m->baseline = baseline;
    }
    return m;
}

bool rts_ctx_metric_series(rts_ctx *ctx, rts_metric *m, uint64_t origin_ns, uint64_t window_ns)
{
    double windows = ceil(rts_ctx_planned_s(ctx) * 1e9 / (double)window_ns) + 1.0;
    uint64_t cap = windows < (double)RTS_SERIES_MAX_WINDOWS ? (uint64_t)windows : RTS_SERIES_MAX_WINDOWS;
    uint64_t *max = malloc(cap * sizeof *max);
    if (!max) {
        rts_ctx_fail(ctx, "out of memory for the series of metric %s", m->id);
        return false;
    }
    for (uint64_t i = 0; i < cap; i++)
        max[i] = RTS_SERIES_EMPTY;
    free(m->series.max);
    m->series = (rts_series){ .origin_ns = origin_ns, .window_ns = window_ns, .max = max, .cap = cap };
    return true;
}

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

void rts_metric_merge(rts_metric *m, const rts_metric *src)
{
    rts_welford_merge(&m->values, &src->values);
    rts_welford_merge(&m->cycles, &src->cycles);
    rts_hist_merge(&m->hist, &src->hist);
    m->over_threshold += src->over_threshold;
    const rts_series *from = &src->series;
    rts_series *to = &m->series;
    if (to->max && from->max && to->origin_ns == from->origin_ns && to->window_ns == from->window_ns) {
        for (uint64_t k = 0; k < from->len; k++)
            if (from->max[k] != RTS_SERIES_EMPTY)
                series_put(to, k, from->max[k]);
        to->dropped += from->dropped;
    }
    atomic_store_explicit(&m->progress, m->values.n, memory_order_relaxed);
}

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

/* ------------------------------------------------------------ conclude */

/* The other of the main thread and the watchdog is ending the process. */
static void wait_for_process_end(void)
{
    for (;;)
        rts_sleep_ns(1000000000u);
}

/* Close the run and publish it, once: from whichever of the main thread and
 * the watchdog gets here first; the other waits for the process to end. */
static int conclude(rts_run *run)
{
    if (atomic_exchange(&run->concluded, true))
        wait_for_process_end();
    bool failed = false;
    for (unsigned i = 0; i < run->req->nbenches; i++)
        failed |= run->results[i].status == RTS_BENCH_FAILED;
    rts_wallclock(&run->finished_sec, &run->finished_nsec);
    run->status = rts_stop_requested() ? RTS_RUN_INTERRUPTED : failed ? RTS_RUN_FAILED : RTS_RUN_COMPLETE;
    bool published = run->publish(run, run->publish_arg);
    if (run->status == RTS_RUN_INTERRUPTED)
        return 130;
    return run->status == RTS_RUN_FAILED || !published ? 1 : 0;
}

/* ------------------------------------------------------------ watchdog */

static void watchdog_watch(rts_watchdog *w, rts_ctx *ctx)
{
    atomic_store(&w->planned_end_ns, ctx->deadline_ns);
    atomic_store(&w->stop_seen_ns, 0);
    atomic_store(&w->ctx, ctx);
}

/* The bench returned. If the watchdog abandoned it meanwhile, it is ending
 * the process: wait for that rather than run on. */
static void watchdog_release(rts_watchdog *w, rts_ctx *ctx)
{
    rts_ctx *expected = ctx;
    if (!atomic_compare_exchange_strong(&w->ctx, &expected, NULL))
        wait_for_process_end();
}

/* The watched bench overran its grace: record it, publish, end the process. */
static void watchdog_abandon(rts_run *run, rts_ctx *ctx, uint64_t now)
{
    rts_bench_result *r = ctx->result;
    double late_s = (double)(now - atomic_load(&run->watchdog.stop_seen_ns)) / 1e9;
    r->status = RTS_BENCH_FAILED; /* overrides "failed" reasons given before: hanging is what matters */
    snprintf(r->error, sizeof r->error,
             "stopped by the watchdog: still running %.1f s after it was asked to stop (hung, or not "
             "checking the stop flag); its metrics hold what it measured until then", late_s);
    r->elapsed_s = (double)(now - ctx->started_ns) / 1e9;
    for (rts_bench_result *later = r + 1; later < run->results + run->req->nbenches; later++) {
        later->status = RTS_BENCH_SKIPPED;
        snprintf(later->error, sizeof later->error, "not run: the probe ended after %s hung", r->bench->id);
    }
    if (!run->req->quiet)
        fprintf(stderr, "rtscope-probe: %s failed: %s\n", r->bench->id, r->error);
    _Exit(conclude(run));
}

static void watchdog_main(void *arg)
{
    rts_run *run = arg;
    rts_watchdog *w = &run->watchdog;
    while (!atomic_load(&w->quit)) {
        rts_sleep_ns(WATCHDOG_TICK_NS);
        rts_ctx *ctx = atomic_load(&w->ctx);
        if (!ctx)
            continue;
        uint64_t now = rts_time_ns();
        /* The main thread may be the one stuck, so pass on what it would. */
        if (now >= atomic_load(&w->planned_end_ns) || rts_stop_requested())
            rts_ctx_stop(ctx);
        uint64_t expected = 0;
        if (rts_ctx_stopping(ctx))
            atomic_compare_exchange_strong(&w->stop_seen_ns, &expected, now);
        uint64_t seen = atomic_load(&w->stop_seen_ns);
        if (seen == 0 || now - seen < (uint64_t)(run->req->grace_s * 1e9))
            continue;
        if (atomic_compare_exchange_strong(&w->ctx, &ctx, NULL))
            watchdog_abandon(run, ctx, now);
    }
}

/* The watchdog runs above every measuring thread (they get at most the
 * granted priority plus a small offset) and on any CPU. */
static void watchdog_start(rts_run *run)
{
    const rts_rtconfig *g = &run->granted;
    rts_thread_attr attr = {
        .name = "watchdog",
        .policy = g->policy,
        .priority = g->policy == RTS_POLICY_OTHER ? 0 : 99,
        .cpu = -1,
        .stack_size = RTS_THREAD_STACK_BYTES,
    };
    if (rts_thread_create(&run->watchdog.thread, &attr, watchdog_main, run) != RTS_OK) {
        run->watchdog.thread = NULL;
        rts_run_warn(run, "the watchdog could not start: a hung bench would hang the probe");
    }
}

static void watchdog_stop(rts_watchdog *w)
{
    if (!w->thread)
        return;
    atomic_store(&w->quit, true);
    rts_thread_join(w->thread);
}

/* ----------------------------------------------------------------- run */

static void run_bench(rts_run *run, rts_bench_result *r)
{
    const rts_bench *b = r->bench;
    unsigned missing = b->needs_caps & ~rts_port_caps();
    if (missing) {
        r->status = RTS_BENCH_SKIPPED;
        snprintf(r->error, sizeof r->error, "this platform lacks a capability it needs (0x%x)", missing);
        return;
    }
    rts_ctx ctx = { .run = run, .result = r };
    double planned_s = b->planned_s ? b->planned_s(&ctx) : 0.0;
    if (planned_s <= 0.0)
        planned_s = run->req->duration_s;
    if (!run->req->quiet)
        fprintf(stderr, "rtscope-probe: %s for %.1f s\n", b->id, planned_s);
    ctx.started_ns = rts_time_ns();
    ctx.deadline_ns = ctx.started_ns + (uint64_t)(planned_s * 1e9);
    r->status = RTS_BENCH_OK;
    watchdog_watch(&run->watchdog, &ctx);
    b->run(&ctx);
    watchdog_release(&run->watchdog, &ctx);
    r->elapsed_s = (double)(rts_time_ns() - ctx.started_ns) / 1e9;
    if (r->status == RTS_BENCH_OK && rts_stop_requested())
        r->status = RTS_BENCH_INTERRUPTED;
}

int rts_run_execute(rts_run *run)
{
    rts_wallclock(&run->started_sec, &run->started_nsec);
    rts_sysinfo_read(&run->sys);
    setup_realtime(run);
    rts_timing_calibrate(&run->timing, true);
    watchdog_start(run);
    for (unsigned i = 0; i < run->req->nbenches; i++) {
        rts_bench_result *r = &run->results[i];
        if (rts_stop_requested()) {
            r->status = RTS_BENCH_SKIPPED;
            snprintf(r->error, sizeof r->error, "not run: the run was interrupted");
            continue;
        }
        run_bench(run, r);
        if (r->status == RTS_BENCH_FAILED && !run->req->quiet)
            fprintf(stderr, "rtscope-probe: %s failed: %s\n", r->bench->id, r->error);
    }
    watchdog_stop(&run->watchdog);
    return conclude(run);
}

void rts_run_release(rts_run *run)
{
    for (unsigned i = 0; i < run->req->nbenches; i++) {
        rts_bench_result *r = &run->results[i];
        for (unsigned k = 0; k < r->nmetrics; k++) {
            free(r->metrics[k]->raw);
            free(r->metrics[k]->series.max);
            free(r->metrics[k]);
        }
        r->nmetrics = 0;
    }
}
