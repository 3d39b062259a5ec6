/*
 * The spike trace on an RTOS, in every build of one (full or MCU=small; the
 * Makefile's ON_LINUX): an RTOS has no kernel tracer to read, so its builds
 * leave out the code that reads Linux's (spike_trace.c over tracefs.c,
 * 1.8 KiB) and answer alike. The benches keep their trace parameters; asking
 * for a trace says in one warning that the OS has none, and the bench
 * measures without one (as it does where a Linux kernel has no tracefs).
 */
#include <string.h>

#include "spike_trace.h"

spike_tracer *spike_trace_start(rts_ctx *ctx, const rts_metric *m)
{
    (void)m;
    const char *mode = rts_ctx_param_text(ctx, "trace");
    if (strcmp(mode, "off") != 0)
        rts_ctx_warn(ctx, "trace=%s: no kernel tracer on this OS", mode);
    return NULL;
}

bool spike_trace_sample(spike_tracer *t, rts_metric *m, uint64_t planned_ns, uint64_t actual_ns)
{
    (void)t, (void)m, (void)planned_ns, (void)actual_ns;
    return false;
}

void spike_trace_stop(rts_ctx *ctx, spike_tracer *t, rts_metric *m) { (void)ctx, (void)t, (void)m; }

/* lat.timerlat's part (a bench an RTOS skips, for want of files): there
 * is never a tracer to use. */
const char *spike_trace_dir(const spike_tracer *t)
{
    (void)t;
    return NULL;
}

bool spike_trace_keep(spike_tracer *t, rts_metric *m, int cpu, uint64_t planned_ns, uint64_t actual_ns,
                      uint64_t until_ns)
{
    (void)t, (void)m, (void)cpu, (void)planned_ns, (void)actual_ns, (void)until_ns;
    return false;
}

bool spike_trace_resume(spike_tracer *t)
{
    (void)t;
    return false;
}

void spike_trace_record(const spike_tracer *t, rts_metric *m) { (void)t, (void)m; }
