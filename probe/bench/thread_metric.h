/*
 * What the eight Thread-Metric tests (tm.*) share.
 *
 * Thread-Metric measures service throughput: each test's threads loop on
 * their work and a counter, and a reporting thread, above them, reads the
 * counters at the end of every reporting period. A result is what the suite
 * reports per period (the iterations, or for the interrupt tests the
 * interrupts handled), compared across systems relative to tm.basic, the
 * calibration test that uses no OS service at all.
 *
 * rtscope's loops keep the suite's shape: the work, the suite's counter, and
 * one load of the test's phase (rtscope must stop its threads; the suite's
 * run forever). What that harness costs is measured in the same run: before
 * the periods, each test runs the same loop without its work for a tenth of
 * a period (at most a second), and the reporter records the loop's cost per
 * pass and its share of the measured time (checks harness_ns_per_pass and
 * harness_share).
 *
 * Its semantics need one CPU and strict priorities, so every thread of a
 * test, the reporter included, is pinned to one CPU and runs at the granted
 * real-time policy; without one, the result is recorded but marked invalid.
 */
#ifndef RTSCOPE_THREAD_METRIC_H
#define RTSCOPE_THREAD_METRIC_H

#include "bench_util.h"
#ifdef BOARD_SOFT_IRQ_INLINE
/* The RTOS ports' software interrupt raised inline, as the suite's own is. */
#include "port_inline.h"
#endif

#define TM_MAX_THREADS 5
#define TM_MAX_COUNTERS 6
#define TM_MAX_PERIODS 1000
#define TM_BASELINE "tm.basic"

/* The parameters every test declares: period, periods, cpu (thread_metric.c). */
#define TM_NPARAMS 3
extern const rts_param_decl tm_params[TM_NPARAMS];

/* A test's phases, in order: its loops run without their work while the
 * harness is timed, then with it while measured, then end. */
enum { TM_CALIBRATING, TM_MEASURING, TM_STOPPED };

/* What a counter of a test stands for (tm_add_counter): */
#define TM_COUNTED 1u /* its gains are the test's count (the suite's "Time Period Total") */
#define TM_LOOP 2u    /* one per pass of a thread's loop: what the harness costs is counted in them */

typedef struct tm_test tm_test;

/* One thread of a test: its index and what it saw of its CPU. */
typedef struct {
    tm_test *t;
    unsigned index;
    bench_watch watch;
} tm_thread;

typedef struct {
    bench_counter *counter;
    unsigned role;  /* TM_COUNTED, TM_LOOP, both, or neither (a check only) */
    uint64_t start; /* its value when measuring began */
} tm_counter;

struct tm_test {
    rts_ctx *ctx;
    rts_metric *m;
    int cpu;
    _Atomic unsigned phase;
    /* The test's counters. The reporter reads them while the test's threads
     * are preempted; each must stay within one of their mean (gains since
     * measuring began), as Thread-Metric checks. */
    tm_counter counters[TM_MAX_COUNTERS];
    unsigned ncounters;
    void *state;                         /* the test's own state */
    /* Called once the test is asked to stop, to release threads blocked in
     * the test's service (e.g. suspended ones) so they can be joined. */
    void (*release)(tm_test *t);
    tm_thread threads[TM_MAX_THREADS];
    rts_thread *handles[TM_MAX_THREADS];
    unsigned nthreads;
    rts_sem *stop_reporter;              /* given when the run stops early */
    uint64_t late_max_ns;                /* latest end of a period, past its plan */
    double spread_max;                   /* largest distance of a counter from their mean */
    bool counter_went_back;
    double harness_ns_per_pass;          /* the loop without its work; 0: not measured */
    uint64_t measured_passes, measured_ns;
};

/* The time a test measures: its calibration, its periods, and a second to
 * start its threads. */
double tm_planned_s(const rts_ctx *ctx);
/* What a test takes: its calibration and its periods (planned_s less the
 * allowance for starting its threads). */
double tm_announced_s(const rts_ctx *ctx);

/* Set up test t: its count metric id (compared with tm.basic), its CPU, its
 * state, and whether strict priorities were granted. The caller then adds
 * its counters with tm_add_counter and sets release if it needs it.
 * False after rts_ctx_fail. */
bool tm_init(tm_test *t, rts_ctx *ctx, const char *id, const char *description, void *state);

/* Add a counter of the test, role TM_COUNTED and/or TM_LOOP (0: checked only). */
void tm_add_counter(tm_test *t, bench_counter *counter, unsigned role);

/* Start the test's next thread: fn(thread), at the granted priority plus
 * prio_offset on the test's CPU. False after rts_ctx_fail. */
bool tm_spawn(tm_test *t, const char *name, int prio_offset, void (*fn)(void *));

/* First and last thing a test thread does: watch that it stays on its CPU. */
void tm_thread_begin(tm_thread *th);
void tm_thread_end(tm_thread *th);

/* Whether the test is still in phase: the one load a loop adds to the suite's
 * (loops hold t in a local, so that a pass reloads nothing else). */
static inline bool tm_in_phase(const tm_test *t, unsigned phase)
{
    return atomic_load_explicit(&t->phase, memory_order_relaxed) == phase;
}

/* Report: start the reporter, wait for the calibration and the periods (or
 * a stop), release and join every thread, and record the checks all tests
 * share. */
void tm_measure(tm_test *t);

/* The thread function name(void *) of a test with one thread whose loop is
 * loop(th, state, work, phase), static inline so that each call below is a
 * loop of its own: without its work while the harness is timed, then with
 * it while measured. */
#define TM_ONE_THREAD(name, loop, state_type)            \
    static void name(void *p)                            \
    {                                                    \
        tm_thread *th = p;                               \
        state_type *s = th->t->state;                    \
        tm_thread_begin(th);                             \
        loop(th, s, false, TM_CALIBRATING);              \
        loop(th, s, true, TM_MEASURING);                 \
        tm_thread_end(th);                               \
    }

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
        .announced_s = tm_announced_s,                                  \
        .run = run,                                                     \
    }

#endif
