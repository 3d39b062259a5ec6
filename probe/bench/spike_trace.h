/*
 * A kernel trace at a latency spike, as cyclictest's break-trace and rtla
 * timerlat's auto-analysis give one: while a latency bench measures, the
 * kernel's tracer records scheduling, wake-up and interrupt events into a
 * tracefs instance of rtscope's own; when a sample passes the metric's
 * threshold, the measuring thread stops the trace at once, keeps the
 * events of its CPU around the sample on the metric (rts_spike), and goes on
 * tracing (trace=each, up to trace_limit) or stops (trace=first). The
 * analyzer reads them to say what held the CPU.
 *
 * Where there is no tracefs or no permission to use it, one warning says so
 * and the bench measures without tracing.
 */
#ifndef RTSCOPE_SPIKE_TRACE_H
#define RTSCOPE_SPIKE_TRACE_H

#include "rtscope/bench.h"

/* The parameters of a bench that traces its spikes. */
#define SPIKE_TRACE_PARAMS                                                                                       \
    RTS_PARAM_CHOICE("trace", "off", "off,first,each",                                                       \
                     "kernel trace around a sample over threshold_us: at the first one, at each (up to "     \
                     "trace_limit), or off"),                                                                \
        { "trace_limit", "10", 1, 1000, true, "trace=each: the most traces kept; then tracing stops" }

typedef struct spike_tracer spike_tracer;

/* Start tracing for the bench as its trace parameter asks, spikes being
 * samples of m over m->threshold_ns. NULL when trace is off, or when it
 * cannot trace (then a warning says why). */
spike_tracer *spike_trace_start(rts_ctx *ctx, const rts_metric *m);

/* After a sample of m, planned at planned_ns and taken at actual_ns (the
 * monotonic clock) on the caller's CPU: when it is over the threshold, keep
 * the trace around it on m. Returns true when it did, which takes time: the
 * caller's next planned times may have passed meanwhile. Several measuring
 * threads may call it; one keeps a trace at a time. t NULL: false. */
bool spike_trace_sample(spike_tracer *t, rts_metric *m, uint64_t planned_ns, uint64_t actual_ns);

/* A bench whose trace something else stops (lat.timerlat: the kernel's own
 * stop condition) uses the tracer's instance, spike_trace_dir (its trace,
 * tracing_on, current_tracer), and once the trace stopped and it found the
 * sample over the threshold: spike_trace_keep keeps cpu's lines from before
 * planned_ns (as spike_trace_sample does) to until_ns, as a spike of m taken
 * at actual_ns. It returns whether more traces are wanted (trace=each, under
 * trace_limit); then spike_trace_resume clears the trace and traces on (false
 * when it cannot: no more traces). */
const char *spike_trace_dir(const spike_tracer *t);
bool spike_trace_keep(spike_tracer *t, rts_metric *m, int cpu, uint64_t planned_ns, uint64_t actual_ns,
                      uint64_t until_ns);
bool spike_trace_resume(spike_tracer *t);

/* Record on m, for a bench whose spikes go on several metrics, traced_spikes
 * (those kept on m) and trace_failures (the bench's); before
 * spike_trace_stop(ctx, t, NULL). */
void spike_trace_record(const spike_tracer *t, rts_metric *m);

/* Stop tracing, remove the instance, and record on m how tracing went
 * (checks traced_spikes, trace_failures; m NULL: the bench records them with
 * spike_trace_record). t NULL: nothing. */
void spike_trace_stop(rts_ctx *ctx, spike_tracer *t, rts_metric *m);

#endif
