/* What the Thread-Metric tests share (see thread_metric.h). */
#include "thread_metric.h"

#include <math.h>

/* Allowance in the planned time for starting a test's threads. */
#define TM_START_S 1.0
/* The reporter runs above every thread of a test, as in Thread-Metric. */
#define TM_REPORTER_PRIO_OFFSET 10

const rts_param_decl tm_params[TM_NPARAMS] = {
    { "period", "30", 0.05, 3600, false, "reporting period in seconds (Thread-Metric: 30)" },
    { "periods", "3", 1, TM_MAX_PERIODS, true, "reporting periods to measure" },
    RTS_PARAM_CPU("the last CPU"),
};

double tm_planned_s(const rts_ctx *ctx)
{
    return rts_ctx_param(ctx, "period") * rts_ctx_param(ctx, "periods") + TM_START_S;
}

bool tm_init(tm_test *t, rts_ctx *ctx, const char *id, const char *description, void *state)
{
    t->ctx = ctx;
    t->state = state;
    t->m = rts_ctx_count_metric(ctx, id, description, rts_ctx_param(ctx, "period"),
                                (uint64_t)rts_ctx_param(ctx, "periods"), TM_BASELINE);
    if (!t->m)
        return false;
    t->cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    if (rts_sem_create(&t->stop_reporter, 0, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return false;
    }
    bool strict = rts_ctx_thread_attr(ctx, "", t->cpu, 0).policy != RTS_POLICY_OTHER;
    rts_metric_check_bool(t->m, "strict_priorities", strict);
    if (!strict)
        rts_metric_invalidate(t->m, "Thread-Metric needs strict priorities on one CPU and no real-time policy "
                                    "was granted: counts under a time-sharing policy are not comparable");
    return true;
}

void tm_add_counter(tm_test *t, bench_counter *counter)
{
    if (t->ncounters < TM_MAX_COUNTERS)
        t->counters[t->ncounters++] = counter;
}

bool tm_spawn(tm_test *t, const char *name, int prio_offset, void (*fn)(void *))
{
    if (t->nthreads == TM_MAX_THREADS) {
        rts_ctx_fail(t->ctx, "too many Thread-Metric threads");
        return false;
    }
    tm_thread *th = &t->threads[t->nthreads];
    *th = (tm_thread){ .t = t, .index = t->nthreads };
    rts_thread *handle = rts_ctx_spawn(t->ctx, name, t->cpu, prio_offset, fn, th);
    if (!handle)
        return false;
    t->handles[t->nthreads++] = handle;
    return true;
}

void tm_thread_begin(tm_thread *th) { bench_watch_begin(&th->watch, th->t->cpu); }

void tm_thread_end(tm_thread *th) { bench_watch_end(&th->watch); }

/* Sum the counters, and note how far the farthest is from their mean. */
static uint64_t read_counters(tm_test *t)
{
    uint64_t values[TM_MAX_COUNTERS], sum = 0;
    for (unsigned i = 0; i < t->ncounters; i++)
        sum += values[i] = bench_read(t->counters[i]);
    double mean = (double)sum / t->ncounters;
    for (unsigned i = 0; i < t->ncounters; i++)
        t->spread_max = fmax(t->spread_max, fabs((double)values[i] - mean));
    return sum;
}

/* The reporting thread: at the end of each period, the iterations it held,
 * scaled to the nominal period when the reporter woke late. */
static void reporter(void *p)
{
    tm_test *t = p;
    double period_ns = t->m->period_s * 1e9;
    uint64_t periods = (uint64_t)rts_ctx_param(t->ctx, "periods");
    uint64_t start = rts_time_ns(), last_time = start, last = read_counters(t);
    for (uint64_t k = 1; k <= periods; k++) {
        uint64_t planned = start + (uint64_t)(period_ns * (double)k);
        uint64_t now = rts_time_ns();
        if (planned > now && rts_sem_take(t->stop_reporter, planned - now) == RTS_OK)
            break; /* stopped early: a partial period is not a period */
        now = rts_time_ns();
        uint64_t count = read_counters(t);
        if (count < last)
            t->counter_went_back = true;
        if (now > planned && now - planned > t->late_max_ns)
            t->late_max_ns = now - planned;
        rts_metric_add(t->m, round((double)(count - last) * period_ns / (double)(now - last_time)));
        last = count;
        last_time = now;
    }
    rts_ctx_stop(t->ctx);
}

static void record_checks(tm_test *t)
{
    rts_metric *m = t->m;
    bool same_cpu = true;
    for (unsigned i = 0; i < t->nthreads; i++)
        same_cpu = same_cpu && t->threads[i].watch.stayed;
    rts_metric_check_int(m, "cpu", t->cpu);
    rts_metric_check_bool(m, "same_cpu", same_cpu);
    rts_metric_check_int(m, "reporter_late_max_us", (long long)(t->late_max_ns / 1000));
    rts_metric_check_bool(m, "counters_monotonic", !t->counter_went_back);
    if (!same_cpu)
        rts_metric_invalidate(m, "a thread left CPU %d while measuring: not all on one CPU", t->cpu);
    if (t->counter_went_back)
        rts_metric_invalidate(m, "a counter went backwards between periods: it overflowed or was overwritten");
    /* Threads that run in turn stay within one iteration of each other, but
     * for the reporter: each of its wake-ups preempts one of them, and a
     * kernel that then resumes the next thread of that priority rather than
     * the preempted one (FreeRTOS) costs that thread a turn. Linux resumes
     * the preempted one, so there the counters stay within one. */
    if (t->ncounters > 1) {
        double allowed = 1.0 + rts_ctx_param(t->ctx, "periods");
        rts_metric_check_double(m, "counters_spread_max", t->spread_max);
        if (t->spread_max > allowed)
            rts_metric_invalidate(m, "the test's %u counters drifted %.1f from their mean (at most %.0f when each "
                                     "thread runs in turn: 1, and 1 for each of the reporter's preemptions): the "
                                     "scheduling was not what the test needs",
                                  t->ncounters, t->spread_max, allowed);
    }
}

void tm_measure(tm_test *t)
{
    rts_thread *rep = rts_ctx_spawn(t->ctx, "tm-report", t->cpu, TM_REPORTER_PRIO_OFFSET, reporter, t);
    if (rep)
        rts_ctx_wait(t->ctx, t->m);
    else
        rts_ctx_stop(t->ctx);
    rts_sem_give(t->stop_reporter);
    if (t->release)
        t->release(t);
    if (rep)
        rts_thread_join(rep);
    /* In creation order: a thread may still resume the next one until it ends. */
    for (unsigned i = 0; i < t->nthreads; i++)
        rts_thread_join(t->handles[i]);
    record_checks(t);
    rts_sem_destroy(t->stop_reporter);
}

static void loop_worker(void *p)
{
    tm_thread *th = p;
    tm_test *t = th->t;
    tm_thread_begin(th);
    while (!rts_ctx_stopping(t->ctx)) {
        if (!t->op(t->state)) {
            t->op_failed = true;
            break;
        }
        bench_count(&t->loops);
    }
    tm_thread_end(th);
}

void tm_run_loop(tm_test *t, bool (*op)(void *state))
{
    t->op = op;
    tm_add_counter(t, &t->loops);
    tm_spawn(t, t->m->id, 0, loop_worker);
    tm_measure(t);
}
