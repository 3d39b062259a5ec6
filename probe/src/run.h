/* The run: what was asked, what was granted, what each bench measured. */
#ifndef RTSCOPE_RUN_H
#define RTSCOPE_RUN_H

#include <stdatomic.h>

#include "rtscope/bench.h"
#include "rtsetup.h"
#include "text.h"
#include "watchdog.h"

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
    /* seed and raw_cap share 8 bytes, and the bools sit together below, so that the series window
     * costs a small board's RAM nothing: the request is the 1424 bytes it was (32-bit ARM). */
    uint32_t seed;            /* with has_seed: each bench starts after a phase drawn from it */
    uint32_t raw_cap;         /* raw samples kept per metric (--raw: at most 10^8) */
    uint64_t series_window_ns; /* the window of each series a bench keeps (--series-window) */
    const char *label;        /* NULL: none */
    const char *run_id;       /* 16 hex digits given (--run-id); NULL: a random one */
    const char *json_path;    /* NULL: none; RTS_SINK_CONSOLE ("-"): the console */
    bool quiet;
    bool has_seed;            /* --seed given */
    bool refuse_privilege;    /* behave as if unprivileged (tests, comparison) */
    int argc;
    char **argv;
} rts_run_request;

typedef enum { RTS_BENCH_OK, RTS_BENCH_FAILED, RTS_BENCH_INTERRUPTED, RTS_BENCH_SKIPPED } rts_bench_status;

typedef struct {
    const rts_bench *bench;
    double values[RTS_MAX_PARAMS];     /* numeric parameters' values (NAN for text ones) */
    const char *texts[RTS_MAX_PARAMS]; /* text parameters' values (NULL for numeric ones) */
    rts_bench_status status;
    bool has_startup; /* the bench's window waited for what it measures to start (startup_us) */
    /* Here, not after metrics: with status and has_startup it fills what was padding, so that startup_us
     * costs a small board's run (20 results) nothing of its C library's heap. */
    uint16_t nmetrics;
    double elapsed_s;
    char error[RTS_MESSAGE_TEXT];
    rts_metric *metrics[RTS_MAX_METRICS];
    /* With has_startup: from the bench's start to its window's (written as startup_ns); microseconds in
     * 32 bits (71 minutes; startup_s is at most an hour) take nmetrics' old place. */
    uint32_t startup_us;
} rts_bench_result;
_Static_assert(RTS_MAX_METRICS <= UINT16_MAX, "nmetrics counts them");

typedef enum { RTS_RUN_COMPLETE, RTS_RUN_INTERRUPTED, RTS_RUN_FAILED } rts_run_status;

typedef struct rts_run rts_run;

struct rts_run {
    const rts_run_request *req;
    char id[17];
    int64_t started_sec, finished_sec;
    long started_nsec, finished_nsec;
    rts_run_status status;
    rts_sysinfo sys;
    rts_image image;          /* the probe's own sections */
    rts_timing timing;
    rts_rtconfig granted;
    rts_warnings warnings;
    rts_bench_result results[RTS_MAX_RUN_BENCHES];
    rts_watchdog watchdog;
    /* Whether the user can ask the run to stop (rts_stop_requests_catch
     * succeeded); set by whoever starts the run. */
    bool stop_requests;
    /* One CPU, and no stop requests to notice (an RTOS): the supervisor and
     * the watchdog do not wake while a bench measures, where each wake-up
     * would preempt the measuring threads (rts_run_execute sets it). */
    bool quiet_supervision;
    _Atomic bool concluded;
    /* The run's output (output.h), told as the run goes, each with
     * output_arg: started once the run is set up, before the first bench;
     * measured after each bench in turn (run or skipped), which may release
     * its metrics; publish once at the end, by rts_run_execute or by the
     * watchdog, to write the rest and the summary's end (false when the
     * result could not be written). */
    void (*started)(rts_run *run, void *arg);
    void (*measured)(rts_run *run, void *arg);
    bool (*publish)(rts_run *run, void *arg);
    void *output_arg;
};

/* The series window of a run without --series-window: one second, the
 * resolution of long-term latency plots. The shortest a run takes is a
 * millisecond, lat.wakeup's default period: shorter, most windows would
 * hold no sample; the longest is the run's --duration (one window). */
#define RTS_SERIES_WINDOW_DEFAULT_NS UINT64_C(1000000000)
#define RTS_SERIES_WINDOW_MIN_NS UINT64_C(1000000)

/* The longest wait before a bench starts that a seed draws: 10 ms, beyond
 * a Linux tick (4 ms at 250 Hz), an RTOS tick and lat.wakeup's default
 * period, so every phase against them is possible. */
#define RTS_PHASE_MAX_NS UINT64_C(10000000)

/* The wait before bench number index starts, drawn from seed: uniform in
 * [0, RTS_PHASE_MAX_NS), the same for the same seed and index. */
uint64_t rts_run_phase_ns(uint32_t seed, unsigned index);

/* Measure every requested bench (run->results bound to them by
 * rts_params_resolve), then publish the run. Returns the process
 * exit status (0 complete, 1 a bench failed or the result could not be
 * written, 130 interrupted). A bench that does not return within grace_s of
 * being asked to stop (at its planned end, by the user, or by itself) is
 * abandoned: the watchdog marks it failed, publishes what the run measured
 * and ends the process, which is the only way to stop a thread that is
 * stuck for good. */
int rts_run_execute(rts_run *run);

/* Free the run's metrics. */
void rts_run_release(rts_run *run);

#endif
