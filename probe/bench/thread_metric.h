/*
 * What the eight Thread-Metric tests (tm.*) share.
 *
 * Thread-Metric measures service throughput: each test runs its loop as
 * fast as it can and a reporting thread, above the test's threads, reads the
 * loop's counter at the end of every reporting period. A result is the count
 * of iterations per period, compared across systems relative to tm.basic,
 * the calibration test that uses no OS service at all.
 *
 * Its semantics need one CPU and strict priorities, so every thread of a
 * test, the reporter included, is pinned to one CPU and runs at the granted
 * real-time policy; without one, the result is recorded but marked invalid.
 */
#ifndef RTSCOPE_THREAD_METRIC_H
#define RTSCOPE_THREAD_METRIC_H

#include "bench_util.h"

#define TM_MAX_THREADS 5
#define TM_MAX_COUNTERS 6
#define TM_MAX_PERIODS 1000
#define TM_BASELINE "tm.basic"

/* The parameters every test declares: period, periods, cpu (thread_metric.c). */
#define TM_NPARAMS 3
extern const rts_param_decl tm_params[TM_NPARAMS];

typedef struct tm_test tm_test;

/* One thread of a test: its index and what it saw of its CPU. */
typedef struct {
    tm_test *t;
    unsigned index;
    bench_watch watch;
} tm_thread;

struct tm_test {
    rts_ctx *ctx;
    rts_metric *m;
    int cpu;
    /* The test's counters (one per thread, and the handler's). The reporter
     * reads them while the test's threads are preempted: a period's count is
     * what their sum gained, and each must stay within one of their mean, as
     * Thread-Metric checks. */
    bench_counter *counters[TM_MAX_COUNTERS];
    unsigned ncounters;
    void *state;                         /* the test's own state */
    /* Called once the test is asked to stop, to release threads blocked in
     * the test's service (e.g. suspended ones) so they can be joined. */
    void (*release)(tm_test *t);
    tm_thread threads[TM_MAX_THREADS];
    rts_thread *handles[TM_MAX_THREADS];
    unsigned nthreads;
    rts_sem *stop_reporter;              /* given when the run stops early */
    /* One-thread tests (tm_run_loop): one iteration, false when the service failed. */
    bool (*op)(void *state);
    bench_counter loops;
    bool op_failed;
    uint64_t late_max_ns;                /* latest end of a period, past its plan */
    double spread_max;                   /* largest distance of a counter from their mean */
    bool counter_went_back;
};

/* The time a test measures: its periods, and a second to start its threads. */
double tm_planned_s(const rts_ctx *ctx);

/* Set up test t: its count metric id (compared with tm.basic), its CPU, its
 * state, and whether strict priorities were granted. The caller then adds
 * its counters with tm_add_counter and sets release if it needs it.
 * False after rts_ctx_fail. */
bool tm_init(tm_test *t, rts_ctx *ctx, const char *id, const char *description, void *state);

void tm_add_counter(tm_test *t, bench_counter *counter);

/* Start the test's next thread: fn(thread), at the granted priority plus
 * prio_offset on the test's CPU. False after rts_ctx_fail. */
bool tm_spawn(tm_test *t, const char *name, int prio_offset, void (*fn)(void *));

/* First and last thing a test thread does: watch that it stays on its CPU. */
void tm_thread_begin(tm_thread *th);
void tm_thread_end(tm_thread *th);

/* Report: start the reporter, wait for the periods (or a stop), release and
 * join every thread, and record the checks all tests share. */
void tm_measure(tm_test *t);

/* The whole of a one-thread test: op(state) in a loop on one thread,
 * counted, until the run stops or op fails (t->op_failed), then reported. */
void tm_run_loop(tm_test *t, bool (*op)(void *state));

/* The rts_bench of a Thread-Metric test whose run() is in the file, to
 * initialise its definition with:
 *   RTS_BENCH_DEFINE(rts_bench_tm_x) = TM_BENCH("tm.x", "summary", caps);
 * its id (also its metric's), summary, and the capabilities it needs
 * beyond pinning threads. */
#define TM_BENCH(bench_id, summary_text, caps)                          \
    {                                                                   \
        .id = bench_id,                                                 \
        .summary = summary_text,                                        \
        .metrics = (const char *const[]){ bench_id, NULL },            \
        .params = tm_params,                                            \
        .nparams = TM_NPARAMS,                                          \
        .needs_caps = RTS_CAP_AFFINITY | (caps),                        \
        .planned_s = tm_planned_s,                                      \
        .run = run,                                                     \
    }

#endif
