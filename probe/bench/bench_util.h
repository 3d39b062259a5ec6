/*
 * Helpers shared by the benches: stamp-timed metrics, loop bounds, bounded
 * waits between threads, and the per-thread record of CPU and switches
 * that the two-thread benches check. Only rts_* calls underneath.
 */
#ifndef RTSCOPE_BENCH_UTIL_H
#define RTSCOPE_BENCH_UTIL_H

#include "rtscope/bench.h"
#include "spike_trace.h"

/* A count, or a round number, that threads share: as wide as a pointer, so
 * that its atomics are the CPU's plain loads and stores everywhere (64 bits
 * on a 64-bit host; 32 on a Cortex-M3, which has no 64-bit atomics and
 * would take a lock for one, at another cost than Thread-Metric's counter). */
typedef _Atomic uintptr_t bench_counter;

/* A counter with one writing thread, read by others: a plain load and
 * store, not a locked read-modify-write, so counting costs what a
 * Thread-Metric counter costs on an RTOS. */
static inline void bench_count(bench_counter *counter)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static inline uint64_t bench_read(const bench_counter *counter)
{
    return atomic_load_explicit(counter, memory_order_relaxed);
}

/* Longest wait for another thread: far beyond RT throttling or a VM pause. */
#define BENCH_TIMEOUT_NS 2000000000u

/* The parameters of the per-operation benches. */
#define BENCH_PARAM_COUNT \
    { "count", "0", 0, 1e12, true, "stop after this many samples of each metric (0: run for the duration)" }
#define BENCH_PARAM_THRESHOLD \
    { "threshold_us", "100", 0, 1e7, false, "count the samples above this latency in microseconds (0: none)" }
/* The bench's threshold_us (BENCH_PARAM_THRESHOLD) in ns, for a metric's
 * threshold_ns: the samples over it are counted (and traced). */
uint64_t bench_threshold_ns(const rts_ctx *ctx);
#define BENCH_PARAM_WARMUP(def_text) \
    { "warmup", def_text, 0, 1e9, true, "operations of each kind before recording" }

/* A metric of rts_stamp deltas whose samples each hold one stamp pair's
 * overhead; NULL after rts_ctx_fail. */
rts_metric *bench_stamp_metric(rts_ctx *ctx, const char *id, const char *description);

/* A metric of latencies against planned times (a wake-up, a timer expiry),
 * in ns. Nothing is subtracted: the planned time is exact, and the one clock
 * read after the event belongs to the latency, as cyclictest counts it. It
 * keeps the worst sample of each second from origin_ns (samples come with
 * rts_metric_add_at). NULL after rts_ctx_fail. */
rts_metric *bench_latency_metric(rts_ctx *ctx, const char *id, const char *description, uint64_t origin_ns);

/* True while a measuring loop that has done i iterations (warm-up ones
 * included) should go on: the run is not stopping and, unless count is 0,
 * fewer than warmup + count iterations are done. */
bool bench_more(const rts_ctx *ctx, uint64_t i, uint64_t warmup, uint64_t count);

/* A busy real-time loop that pauses. RT throttling stops real-time threads
 * that keep a CPU busy beyond its runtime (95 % of each second by default)
 * for the rest of the period, and the fair server of newer kernels does
 * the same when normal tasks wait: a loop that leaves its CPU for a share
 * of every BENCH_REST_WINDOW_NS is never stopped. The pauses come between
 * samples (the caller says where); the share is parameter "rest"
 * (BENCH_PARAM_REST), 0 for no pause. */
#define BENCH_REST_WINDOW_NS 10000000u
#define BENCH_PARAM_REST \
    { "rest", "0.1", 0, 0.5, false, "share of the time the busy threads leave the CPU, between samples, so that " \
                                    "RT throttling never stops them (0: never)" }
typedef struct {
    uint64_t busy_ns, rest_ns; /* rest_ns 0: never */
    uint64_t next_ns;          /* when the next pause is due */
    uint64_t rests;            /* pauses taken */
} bench_rest;

/* Start the windows now, with the share of the bench's "rest" parameter. */
void bench_rest_start(bench_rest *r, const rts_ctx *ctx);

/* Called between samples: pause when a pause is due; true when it paused. */
bool bench_rest_due(bench_rest *r);

/* Yield the CPU until *v reads want; false if timeout_ns passed first.
 * Never stops early for the stop flag: callers use it to finish a hand-over
 * another thread is blocked in. */
bool bench_await(const bench_counter *v, uint64_t want, uint64_t timeout_ns);

/* Start fn(arg) on cpu at the granted priority plus prio_offset, supervise
 * the run (progress of metric progress), and join it. False when it could
 * not start (the bench is then failed). fn should call rts_ctx_stop when it
 * ends early. */
bool bench_run_measurer(rts_ctx *ctx, const char *name, int cpu, int prio_offset, void (*fn)(void *), void *arg,
                        const rts_metric *progress);

/* cyclictest's loop, on the calling thread until the run stops: sleep until
 * the absolute times origin_ns + k * interval_ns, from the first after the
 * call (threads given one origin wake together), and record each wake-up's
 * lateness (actual minus planned) in m at its planned time, the first
 * warmup wake-ups excepted. Counts the wake-ups and the periods missed
 * entirely (overruns). With a tracer, a wake-up over m's threshold keeps the
 * kernel's trace (spike_trace.h); the periods that pass while it is read
 * are not measured and are counted apart (trace_skipped), not as overruns. */
typedef struct {
    spike_tracer *tracer; /* given by the caller; NULL: no trace */
    uint64_t wakeups, overruns, trace_skipped;
} bench_periodic;
void bench_periodic_wakeups(rts_ctx *ctx, rts_metric *m, uint64_t origin_ns, uint64_t interval_ns, uint64_t warmup,
                            bench_periodic *out);

/* Create the mutex the bench's "inherit" parameter asks for (declared with
 * BENCH_PARAM_INHERIT); NULL after rts_ctx_fail. */
rts_mutex *bench_mutex_create(rts_ctx *ctx);

#define BENCH_PARAM_INHERIT \
    { "inherit", "0", 0, 1, true, "1: a priority-inheritance mutex" }

/* What one measuring thread did: whether it stayed on its CPU, and its
 * context switches (-1: the port does not count them). */
typedef struct {
    int cpu;
    bool stayed;
    long long switches;
} bench_watch;

/* Start watching the calling thread, which should be on cpu. */
void bench_watch_begin(bench_watch *w, int cpu);

/* Stop watching: stayed and switches then cover the time since begin. */
void bench_watch_end(bench_watch *w);

/* Record check "same_cpu" (every watch stayed on its CPU) on m and
 * invalidate m if one did not. b may be NULL. */
void bench_check_same_cpu(rts_metric *m, const bench_watch *a, const bench_watch *b);

#endif
