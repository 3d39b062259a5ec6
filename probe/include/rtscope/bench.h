/*
 * What a benchmark is, and what the runner gives it.
 *
 * A bench is one file in bench/ defining its rts_bench with
 * RTS_BENCH_DEFINE; nothing else needs an edit to add one. The runner
 * validates its parameters, applies the real-time setup, skips it when the
 * target cannot run it (needs_caps, can_run: decided before it starts, a
 * reason given), and calls run() on the supervising thread. run() starts its measuring threads with
 * rts_ctx_spawn (which applies the granted policy, priority and CPU), lets
 * them record into metrics, waits with rts_ctx_wait, and joins them.
 */
#ifndef RTSCOPE_BENCH_H
#define RTSCOPE_BENCH_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtscope/config.h"
#include "rtscope/port.h"
#include "rtscope/stats.h"
#include "rtscope/timing.h"

/* What a parameter's value is. FLOAT and INT are 0 and 1 so that a
 * numeric declaration written positionally, { name, def, min, max,
 * false|true, description }, reads as it always has. */
typedef enum {
    RTS_PARAM_KIND_FLOAT = 0, /* a number in [min, max] */
    RTS_PARAM_KIND_INT = 1,   /* a whole number in [min, max] */
    RTS_PARAM_KIND_TEXT,      /* any text shorter than RTS_PARAM_TEXT_MAX (RTS_PARAM_TEXT) */
    RTS_PARAM_KIND_CHOICE     /* one of declared words (RTS_PARAM_CHOICE) */
} rts_param_kind;

typedef struct {
    const char *name;
    /* Default, as text. A choice parameter's default literal also carries
     * its choices, after the default's NUL (RTS_PARAM_CHOICE writes it):
     * the declaration keeps six fields, so every numeric one written
     * positionally stays valid under -Wmissing-field-initializers. */
    const char *def;
    double min, max;          /* numbers: accepted range (inclusive); text: unused */
    rts_param_kind kind;
    const char *description;
} rts_param_decl;

/* A parameter whose value is one of choices, a string literal of words
 * separated by commas, e.g.
 *   RTS_PARAM_CHOICE("format", "auto", "auto,csv,vcd", "how the capture is written") */
#define RTS_PARAM_CHOICE(name_, default_, choices_, description_) \
    { .name = name_, .def = default_ "\0" choices_, .kind = RTS_PARAM_KIND_CHOICE, .description = description_ }

/* A parameter whose value is any text shorter than RTS_PARAM_TEXT_MAX
 * bytes ("" allowed), e.g. a file name. */
#define RTS_PARAM_TEXT(name_, default_, description_) \
    { .name = name_, .def = default_, .kind = RTS_PARAM_KIND_TEXT, .description = description_ }

typedef struct rts_ctx rts_ctx;

typedef struct {
    const char *id;                    /* dotted, e.g. "ctxsw.sem" */
    const char *summary;               /* one line: what one sample is */
    const char *const *metrics;        /* ids of the metrics it records, NULL-terminated */
    const rts_param_decl *params;      /* may be NULL */
    unsigned nparams;
    unsigned needs_caps;               /* RTS_CAP_* it cannot run without */
    /* How long it measures, from its parameters; NULL or 0: the run's --duration.
     * Its end is rts_ctx_wait's deadline and what the watchdog holds it to. */
    double (*planned_s)(const rts_ctx *ctx);
    /* How long it will take, as its progress line announces it, when that
     * is not planned_s (which may hold an allowance for starting up): the
     * measuring itself. NULL: planned_s; a value <= 0: its length is its own
     * (it ends when its work is done), so only the bound is announced. */
    double (*announced_s)(const rts_ctx *ctx);
    /* Parameters that are each in their range but wrong together (a
     * cipher's size that is not whole blocks, data too large for the
     * build). Called with the resolved parameters before anything runs
     * (only the rts_ctx_param* readers may be used); false with one line in
     * why makes the run bad input (exit 2). NULL: any values in range do. */
    bool (*params_ok)(const rts_ctx *ctx, char *why, size_t whysize);
    /* Whether this target can run it, with these parameters, beyond
     * needs_caps: what the machine or the build has or lacks (a kernel
     * tracer, a crypto library, a GPIO chip, a program it starts). Called
     * just before it would start; false with one line in why skips it (its
     * status "skipped", why its error) and the run goes on, complete. Never
     * for a privilege not granted (that degrades visibly, or fails) nor for
     * what goes wrong once it runs. Only the rts_ctx_param* readers may be
     * used. NULL: needs_caps says all. */
    bool (*can_run)(const rts_ctx *ctx, char *why, size_t whysize);
    /* Measure. Returns 0 when the bench did its job (metrics may still be
     * marked invalid), non-zero after rts_ctx_fail. */
    int (*run)(rts_ctx *ctx);
    /* A bench that runs parts of itself as processes of the probe (the
     * groups of app.workload): the hidden subcommand that starts one,
     * `rtscope-probe COMMAND ARGS...`, and its main, which returns the exit
     * status. NULL: none. */
    const char *process_command;
    int (*process_main)(int argc, char **argv);
} rts_bench;

/* Define the bench symbol, at file scope and at the start of a line:
 *   RTS_BENCH_DEFINE(rts_bench_ctxsw_sem) = { .id = "ctxsw.sem", ... };
 * The Makefile lists every such line of bench/ *.c in the registry it
 * generates (build/bench_registry.c), ordered by symbol. */
#define RTS_BENCH_DEFINE(symbol) const rts_bench symbol

/* A named check a bench verified, recorded with its metric. */
typedef struct {
    const char *name;
    enum { RTS_CHECK_INT, RTS_CHECK_BOOL, RTS_CHECK_DOUBLE } kind;
    long long i;
    double d;
} rts_check;

/* The worst sample of each window of a time metric: window k covers
 * [origin_ns + k*window_ns, origin_ns + (k+1)*window_ns) on the monotonic
 * clock, by the time the bench gives with each sample. */
#define RTS_SERIES_EMPTY UINT64_MAX /* a window without samples */
typedef struct {
    uint64_t origin_ns, window_ns;
    uint64_t *max;            /* per window, ns; NULL: no series kept */
    uint64_t cap, len;        /* windows allocated; windows up to the last one reached */
    uint64_t dropped;         /* samples outside the allocated windows (still in the stats) */
} rts_series;

/* The unit of a metric (the result's registry of units). */
typedef enum {
    RTS_UNIT_NS,          /* durations: a time metric (rts_ctx_metric) */
    RTS_UNIT_COUNT,       /* iterations per reporting period (rts_ctx_count_metric) */
    RTS_UNIT_RATIO,       /* a dimensionless quotient, e.g. a relative error */
    RTS_UNIT_PERCENT,     /* hundredths */
    RTS_UNIT_BYTES_PER_S  /* throughput */
} rts_unit;

/* The unit's name in the result: "ns", "count", "ratio", "percent", "bytes/s". */
const char *rts_unit_name(rts_unit unit);

/* A label: what tells a metric apart from others of its family, e.g. cpu 1. */
typedef struct {
    const char *key;          /* [a-z][a-z0-9_]*, kept (a string literal) */
    bool is_text;
    long long i;              /* the value, unless is_text */
    char text[RTS_LABEL_TEXT];
} rts_label;

/* The kernel's trace around one sample over a metric's threshold, kept by
 * bench/spike_trace.c: what ran on the sample's CPU from before its planned
 * time to its actual one, for the analyzer to say what held the CPU. */
typedef struct {
    uint64_t planned_ns, actual_ns; /* the sample, on the monotonic clock (the trace's "mono" clock) */
    int cpu;
    char *events;                   /* the trace's lines of that window, each ending in '\n' (heap) */
    unsigned kept, dropped;         /* lines in events; earlier lines of the window beyond the bound */
} rts_spike;

/* What a time metric notes of RT throttling while the kernel's is on for
 * the run's real-time threads (rts_ctx_metric: Linux with
 * sched_rt_runtime_us below its period): each sample long enough to hold a
 * throttled stretch, its end on the monotonic clock. A sample no longer
 * than a stretch (period - runtime), at most one a period (the shape of
 * throttling: stopped for the rest of each period once the runtime is
 * used), was taken across one (rts_metric_judge_throttling). */
#define RTS_THROTTLE_NOTES 128
typedef struct {
    uint64_t origin_ns;          /* when the metric was made: at_s counts from it */
    uint64_t period_ns, stop_ns; /* the throttling's period, and its stop (period - runtime) */
    uint64_t min_ns;             /* samples from this long are noted */
    unsigned n;                  /* notes kept */
    uint64_t missed;             /* noted samples beyond RTS_THROTTLE_NOTES */
    uint64_t end_ns[RTS_THROTTLE_NOTES], len_ns[RTS_THROTTLE_NOTES];
    /* judged: */
    uint64_t samples;            /* taken across a throttled stretch */
    uint64_t longest_ns;
    unsigned nat;
    double at_s[8];              /* the first ones' ends, in seconds from origin_ns */
} rts_throttle_notes;

/* One measured distribution. Samples are added by one thread at a time.
 * A time metric holds durations (unit ns); a count metric holds how many
 * iterations each reporting period of period_s seconds completed (unit
 * count, Thread-Metric's figure: per_period, every period kept in raw); a
 * metric of another unit holds samples in that unit, its histogram and raw
 * samples in whole steps of resolution. */
typedef struct {
    char id[RTS_METRIC_ID_MAX];
    const char *description;
    rts_unit unit;
    double resolution;        /* one histogram step in the unit: 1 for ns and count */
    rts_label labels[RTS_MAX_LABELS];
    unsigned nlabels;
    const rts_timing *timing;
    bool in_ticks;            /* samples are rts_stamp ticks (else in the unit) */
    bool per_period;          /* figures per reporting period (rts_ctx_count_metric), not samples */
    double period_s;          /* per-period metrics: the reporting period */
    uint64_t *period_ns;      /* per-period metrics: each period's measured length (raw_cap of them), or NULL */
    const char *baseline;     /* per-period metrics: id of the calibration metric its median is divided by, or NULL */
    double overhead_ns;       /* time metrics: stamp overhead inside each sample */
    uint64_t threshold_ns;    /* time metrics: count samples above it (0: none) */
    uint64_t over_threshold;
    rts_series series;        /* time metrics: worst sample per window, when asked for */
    rts_welford values;       /* exact moments in the metric's unit */
    rts_welford cycles;       /* same in cycles, when in_ticks with a cycle counter */
    rts_hist hist;            /* samples in whole steps of resolution */
    uint64_t *raw;            /* first raw_cap samples in steps of resolution, or NULL */
    uint64_t raw_cap, raw_len;
    atomic_size_t progress;   /* samples so far, for the supervisor's progress lines
                               * (pointer-wide: lock-free on a 32-bit MCU too) */
    bool invalid;
    char invalid_reason[RTS_MESSAGE_TEXT];
    rts_check checks[RTS_MAX_CHECKS];
    unsigned nchecks;
    rts_spike *spikes;        /* traces kept at samples over the threshold (heap), or NULL */
    unsigned nspikes;
    rts_throttle_notes *throttle; /* time metrics under RT throttling (heap), or NULL */
} rts_metric;

/* ---- parameters and setup ---- */

/* Value of numeric parameter name (declared by the bench; validated by the
 * runner); NAN for a text parameter. */
double rts_ctx_param(const rts_ctx *ctx, const char *name);

/* Value of text parameter name (RTS_PARAM_TEXT or RTS_PARAM_CHOICE;
 * validated by the runner: shorter than RTS_PARAM_TEXT_MAX, one of the choices),
 * valid for the whole run; NULL for a numeric or undeclared parameter. */
const char *rts_ctx_param_text(const rts_ctx *ctx, const char *name);

/* Replace a numeric parameter's recorded value (e.g. a CPU the bench chose itself). */
void rts_ctx_param_set(rts_ctx *ctx, const char *name, double value);

/* The run's calibrated timestamps (rts_stamp and its overhead). */
const rts_timing *rts_ctx_timing(const rts_ctx *ctx);

/* How long the bench measures (its planned time, else the run's --duration). */
double rts_ctx_planned_s(const rts_ctx *ctx);

/* A bench whose measuring window starts when what it measures has started
 * (a generator process's first edge, after an interpreter's start-up that
 * a loaded machine can stretch to seconds): rts_ctx_await_start, before
 * starting it, gives it up to limit_ns to start by moving the planned end
 * out by as much; rts_ctx_started, once it started at at_ns, starts the
 * window of the planned length there and records the wait as the bench's
 * startup_ns. A bench that calls neither measures from its own start.
 * Called by the supervising thread (the one in rts_ctx_wait). */
void rts_ctx_await_start(rts_ctx *ctx, uint64_t limit_ns);
void rts_ctx_started(rts_ctx *ctx, uint64_t at_ns);

/* CPU for the measuring threads, recorded as the bench's "cpu" parameter:
 * that parameter if set (>= 0), else the first of --cpus, else fallback
 * (-1: not pinned). Benches declare the parameter with RTS_PARAM_CPU. */
int rts_ctx_cpu(rts_ctx *ctx, int fallback);

#define RTS_PARAM_CPU(fallback_text) \
    { "cpu", "-1", -1, RTS_MAX_CPUS - 1, true, "CPU to measure on; -1: first of --cpus, else " fallback_text }

/* The CPUs of a bench with one measuring thread per CPU: the "cpu"
 * parameter when set (>= 0), else every CPU of --cpus, else one unpinned
 * thread (cpus[0] = -1). Returns how many. */
int rts_ctx_cpus(rts_ctx *ctx, int cpus[RTS_MAX_CPUS]);

/* The highest-numbered CPU this process may use (a quiet default). */
int rts_ctx_last_allowed_cpu(void);

/* ---- threads ---- */

/* Start fn(arg) on cpu at the granted policy, at the granted priority plus
 * prio_offset (clamped to RTS_PRIORITY_MIN..MAX), stack prefaulted when granted. On failure
 * the bench is marked failed with the reason and NULL is returned. */
rts_thread *rts_ctx_spawn(rts_ctx *ctx, const char *name, int cpu, int prio_offset,
                          void (*fn)(void *), void *arg);

/* The attributes rts_ctx_spawn gives a thread (granted policy, granted
 * priority plus prio_offset clamped to RTS_PRIORITY_MIN..MAX, cpu, the runner's stack size,
 * no caller stack), for a bench that must call rts_thread_create itself,
 * e.g. to time it or to give a stack of its own. Such a thread gets no
 * stack prefault: that is rts_ctx_spawn's. */
rts_thread_attr rts_ctx_thread_attr(const rts_ctx *ctx, const char *name, int cpu, int prio_offset);

/* Supervise: return when the duration has passed, the user asked to stop,
 * or rts_ctx_stop was called; prints progress of metric m meanwhile. Sets
 * the stop flag before returning. */
void rts_ctx_wait(rts_ctx *ctx, const rts_metric *m);

/* True once measuring threads should wind down. Cheap (one atomic load). */
bool rts_ctx_stopping(const rts_ctx *ctx);

/* Ask all measuring threads to stop (e.g. a sample limit was reached). */
void rts_ctx_stop(rts_ctx *ctx);

/* Mark the bench failed with a reason; its metrics keep what they hold. */
void rts_ctx_fail(rts_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Say in one line, among the run's warnings, what the bench could not do
 * while it still measures (e.g. trace without tracefs); the line starts
 * with the bench's id. */
void rts_ctx_warn(rts_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- metrics ---- */

/* The metric id of this bench (declared in its metrics list), fresh.
 * in_ticks: samples will be rts_stamp tick deltas, else ns. */
rts_metric *rts_ctx_metric(rts_ctx *ctx, const char *id, const char *description, bool in_ticks);

/* A count metric of at most periods reporting periods of period_s seconds,
 * compared with the metric baseline (may be NULL) of the same run. */
rts_metric *rts_ctx_count_metric(rts_ctx *ctx, const char *id, const char *description, double period_s,
                                 uint64_t periods, const char *baseline);

/* A metric of samples in unit (any but RTS_UNIT_NS: time metrics come from
 * rts_ctx_metric), histogrammed in whole steps of resolution (> 0) in that
 * unit: a sample's step is rounded, so resolution is the precision of its
 * percentiles and raw samples (exact moments are kept apart). Samples
 * below 0 count as 0: record a magnitude. No cycles, no stamp overhead.
 * NULL after rts_ctx_fail (e.g. a unit or resolution it does not take). */
rts_metric *rts_ctx_metric_unit(rts_ctx *ctx, const char *id, const char *description, rts_unit unit,
                                double resolution);

/* Keep the worst sample of each window from origin_ns in m's series (a
 * time metric's), the run's series window long (--series-window), for
 * windows up to the bench's planned end (plus one); samples then come
 * with rts_metric_add_at. False after rts_ctx_fail. */
bool rts_ctx_metric_series(rts_ctx *ctx, rts_metric *m, uint64_t origin_ns);

/* Record one sample: stamp ticks, or a value in the unit, as the metric was made. */
void rts_metric_add(rts_metric *m, double value);

/* Record one period's figure of a per-period metric and the period's
 * measured length in ns (the result's period_lengths_s beside periods). */
void rts_metric_add_period(rts_metric *m, double value, uint64_t length_ns);

/* Record one sample of a time metric that belongs to time at_ns (e.g. the
 * planned wake-up it measures), also into the metric's series. */
void rts_metric_add_at(rts_metric *m, double value, uint64_t at_ns);

/* Add what src holds to m (several threads' samples of one quantity): the
 * moments, histogram, threshold count and series (same origin and window).
 * Raw samples are not merged: they would lose their order; nor are labels:
 * m keeps its own. Both must have one unit and resolution. */
void rts_metric_merge(rts_metric *m, const rts_metric *src);

/* Judge m's throttle notes (when it has them): count the samples taken
 * across a throttled stretch and, when there are any, mark m invalid with
 * "throttled: ..." as the reason. The run does this when a bench ends. */
void rts_metric_judge_throttling(rts_metric *m);

/* A time metric whose samples are not its measuring threads' own time (a
 * wave generator's periods, stamped by an observer that accounts for its
 * own stops as blind time): RT throttling stopping those threads is not in
 * them, and a sample stretched by a late generator is not taken for it. */
void rts_metric_ignore_throttling(rts_metric *m);

/* Mark invalid with a reason (the first reason is kept). */
void rts_metric_invalidate(rts_metric *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Label m with key = value, an integer or a text (copied), replacing an
 * earlier label of that key; the result writes them in the order given.
 * key must be [a-z][a-z0-9_]* and outlive m (a string literal). Returns
 * false, with m invalidated to say why, when key is not such a name, when
 * m has RTS_MAX_LABELS other labels, or when text is longer than
 * RTS_LABEL_TEXT - 1 bytes: a label is never silently dropped. */
bool rts_metric_label_int(rts_metric *m, const char *key, long long value);
bool rts_metric_label_text(rts_metric *m, const char *key, const char *value);

/* Record what was verified. */
void rts_metric_check_int(rts_metric *m, const char *name, long long value);
void rts_metric_check_bool(rts_metric *m, const char *name, bool value);
void rts_metric_check_double(rts_metric *m, const char *name, double value);

/* The bench registry: every RTS_BENCH_DEFINE of bench/, ordered by symbol,
 * ending with NULL (build/bench_registry.c, generated by the Makefile). */
extern const rts_bench *const rts_benches[];

/* The bench whose id is id, or NULL (src/benches.c). */
const rts_bench *rts_bench_find(const char *id);

/* The bench whose process_command is command, or NULL (src/benches.c). */
const rts_bench *rts_bench_of_process(const char *command);

/* Whether bench b can run on a target with capabilities caps (RTS_CAP_*),
 * its parameters those of ctx: the capabilities it needs, then its can_run.
 * False with one line in why (the reason it is skipped) when it cannot. */
bool rts_bench_can_run(const rts_bench *b, const rts_ctx *ctx, unsigned caps, char *why, size_t whysize);

/* A named set of benches run together (src/suites.c). Suite ids have no
 * dot, so they never collide with bench ids. */
typedef struct {
    const char *id;
    const char *summary;
    const char *const *benches;   /* bench ids, NULL-terminated */
} rts_suite;

extern const rts_suite rts_suites[]; /* ends with an entry whose id is NULL */
const rts_suite *rts_suite_find(const char *id);

#endif
