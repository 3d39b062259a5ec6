/* The run: what was asked, what was granted, what each bench measured. */
#ifndef RTSCOPE_RUNNER_H
#define RTSCOPE_RUNNER_H

#include <stdio.h>

#include "rtscope/bench.h"

typedef struct {
    rts_policy policy;
    int priority;
    int cpus[RTS_MAX_CPUS];
    int ncpus;                /* 0: not pinned */
    bool mlockall;
    bool stack_prefault;
    int cpu_latency_us;       /* wake-up latency limit; -1: none */
} rts_rtconfig;

/* --param [BENCH:]key=value, split into text. */
typedef struct {
    char text[RTS_ASSIGNMENT_TEXT];
    const char *bench;        /* NULL: every selected bench declaring key */
    const char *key;
    const char *value;
} rts_assignment;

typedef struct {
    const rts_bench *benches[RTS_MAX_RUN_BENCHES];
    unsigned nbenches;
    rts_assignment assignments[RTS_MAX_ASSIGNMENTS];
    unsigned nassignments;
    double duration_s;
    double grace_s;           /* the watchdog's patience with a bench asked to stop */
    rts_rtconfig requested;
    bool refuse_privilege;    /* behave as if unprivileged (tests, comparison) */
    uint64_t raw_cap;         /* raw samples kept per metric */
    const char *label;        /* NULL: none */
    const char *json_path;    /* NULL: none; "-": stdout */
    bool quiet;
    int argc;
    char **argv;
} rts_run_request;

typedef enum { RTS_BENCH_OK, RTS_BENCH_FAILED, RTS_BENCH_INTERRUPTED, RTS_BENCH_SKIPPED } rts_bench_status;

typedef struct {
    const rts_bench *bench;
    double values[RTS_MAX_PARAMS];
    rts_bench_status status;
    double elapsed_s;
    char error[RTS_MESSAGE_TEXT];
    rts_metric *metrics[RTS_MAX_METRICS];
    unsigned nmetrics;
} rts_bench_result;

typedef enum { RTS_RUN_COMPLETE, RTS_RUN_INTERRUPTED, RTS_RUN_FAILED } rts_run_status;

typedef struct rts_run rts_run;

/* What the watchdog watches: the bench being run and when it must be done. */
typedef struct {
    rts_thread *thread;
    _Atomic bool quit;
    _Atomic(struct rts_ctx *) ctx;  /* the bench running now, or NULL */
    _Atomic uint64_t planned_end_ns; /* when it should stop measuring */
    _Atomic uint64_t stop_seen_ns;   /* when it was first seen asked to stop (0: not yet) */
} rts_watchdog;

struct rts_run {
    const rts_run_request *req;
    char id[17];
    int64_t started_sec, finished_sec;
    long started_nsec, finished_nsec;
    rts_run_status status;
    rts_sysinfo sys;
    rts_timing timing;
    rts_rtconfig granted;
    char warnings[RTS_MAX_WARNINGS][RTS_MESSAGE_TEXT];
    unsigned nwarnings;
    rts_bench_result results[RTS_MAX_RUN_BENCHES];
    rts_watchdog watchdog;
    _Atomic bool concluded;
    /* Write the result and the summary; false when the result could not be
     * written. Called once per run, by rts_run_execute or by the watchdog. */
    bool (*publish)(rts_run *run, void *arg);
    void *publish_arg;
};

/* Resolve each bench's parameter values (defaults, then assignments) into
 * run->results. On bad input writes one line to err and returns false. */
bool rts_params_resolve(rts_run *run, char *err, size_t errsize);

/* Measure every requested bench, then publish the run. Returns the process
 * exit status (0 complete, 1 a bench failed or the result could not be
 * written, 130 interrupted). A bench that does not return within grace_s of
 * being asked to stop (at its planned end, by the user, or by itself) is
 * abandoned: the watchdog marks it failed, publishes what the run measured
 * and ends the process, which is the only way to stop a thread that is
 * stuck for good. */
int rts_run_execute(rts_run *run);

/* Add a warning to the run and print it (unless quiet). */
void rts_run_warn(rts_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write the result document (result.c). */
bool rts_result_write(const rts_run *run, FILE *out);

/* Print the human summary table (result.c). */
void rts_result_print_summary(const rts_run *run, FILE *out);

/* Free the run's metrics. */
void rts_run_release(rts_run *run);

#endif
