/* sigrok-cli capturing live for wave.import: see wave_sigrok.h. */
#include "wave_sigrok.h"

#include <stdio.h>
#include <string.h>

#define SLICE_NS 50000000ull         /* how often a capture looks at the stop flag */
#define STOP_GRACE_NS 1000000000ull  /* from SIGTERM to SIGKILL */

struct sigrok_live {
    rts_ctx *ctx;
    rts_tempfile *file;
    char name[RTS_MESSAGE_TEXT]; /* "sigrok-cli --driver demo", what messages name */
};
typedef sigrok_live live;

/* p, still running, asked to end, then killed with its group when it does not. */
static void proc_stop(rts_proc *p, int *status)
{
    rts_proc_signal(p, false);
    if (rts_proc_wait(p, STOP_GRACE_NS, status) == RTS_OK)
        return;
    rts_proc_signal(p, true);
    rts_proc_wait(p, RTS_FOREVER, status);
}

void sigrok_live_close(live *lv)
{
    rts_tempfile_close(lv->file);
    rts_heap_free(lv);
}

/* sigrok-cli's arguments for plan into path (argv holds 16). Every
 * channel is captured: with a subset (--channels) libsigrok 0.5.2 writes
 * wrong data (probe/tests/data/README.md). --channel-group goes with
 * --config only, which it applies to (the demo's pattern is an option of
 * its Logic group; without --config sigrok-cli ignores it). VCD unless CSV
 * is asked for: VCD is written change by change, and with analog
 * channels on 0.5.2's CSV mixes their lines into the logic samples. */
static void sigrok_argv(const sigrok_plan *plan, const char *path, char samples[24], const char *argv[16])
{
    int n = 0;
    snprintf(samples, 24, "%.0f", plan->samples);
    argv[n++] = "sigrok-cli";
    argv[n++] = "--driver";
    argv[n++] = plan->driver;
    if (plan->config[0] && plan->group[0]) {
        argv[n++] = "--channel-group";
        argv[n++] = plan->group;
    }
    if (plan->config[0]) {
        argv[n++] = "--config";
        argv[n++] = plan->config;
    }
    argv[n++] = "--samples";
    argv[n++] = samples;
    argv[n++] = "--output-format";
    argv[n++] = strcmp(plan->format, "csv") == 0 ? "csv:time=true" : "vcd";
    argv[n++] = "--output-file";
    argv[n++] = path;
    argv[n] = NULL;
}

/* Fail the bench for a capture that did not end well: stopped (by the
 * run's end or the user), or ended with a status. */
static void capture_failed(live *lv, rts_proc *p, bool ended, int status)
{
    const char *line = rts_proc_last_line(p);
    if (!ended && rts_stop_requested())
        rts_ctx_fail(lv->ctx, "%s: interrupted, the capture stopped", lv->name);
    else if (!ended)
        rts_ctx_fail(lv->ctx, "%s did not end within the run's %g s: stopped (fewer samples, or a longer --duration)",
                     lv->name, rts_ctx_planned_s(lv->ctx));
    else
        rts_ctx_fail(lv->ctx, "%s ended with exit status %d: %s%s%s", lv->name, status, line[0] ? "'" : "",
                     line[0] ? line : "nothing on its standard output (its reason is on standard error)",
                     line[0] ? "'" : "");
}

/* Capture with sigrok-cli into lv's file, within the run's duration; false
 * after failing the bench. Nothing of it runs on return. */
static bool capture(live *lv, const sigrok_plan *plan)
{
    const char *argv[16];
    char samples[24], why[RTS_MESSAGE_TEXT];
    sigrok_argv(plan, rts_tempfile_path(lv->file), samples, argv);
    rts_proc *p;
    rts_proc_attr attr = { .argv = argv, .cpu = -1 };
    if (rts_proc_spawn(&p, &attr, why, sizeof why) != RTS_OK) {
        rts_ctx_fail(lv->ctx, "%s", why);
        return false;
    }
    int status = 0;
    bool ended = false;
    while (!ended && !rts_ctx_stopping(lv->ctx))
        ended = rts_proc_wait(p, SLICE_NS, &status) == RTS_OK;
    if (!ended)
        proc_stop(p, &status);
    if (!ended || status != 0)
        capture_failed(lv, p, ended, status);
    rts_proc_release(p);
    return ended && status == 0;
}

live *sigrok_live_capture(rts_ctx *ctx, const sigrok_plan *plan)
{
    live *lv = rts_heap_alloc(sizeof *lv);
    if (!lv) {
        rts_ctx_fail(ctx, "out of memory for a live capture");
        return NULL;
    }
    *lv = (live){ .ctx = ctx };
    snprintf(lv->name, sizeof lv->name, "sigrok-cli --driver %s", plan->driver);
    char why[RTS_MESSAGE_TEXT];
    if (rts_tempfile_create(&lv->file, why, sizeof why) != RTS_OK)
        rts_ctx_fail(ctx, "%s", why);
    if (!lv->file || !capture(lv, plan)) {
        sigrok_live_close(lv);
        return NULL;
    }
    return lv;
}

const char *sigrok_live_path(const live *lv) { return rts_tempfile_path(lv->file); }

const char *sigrok_live_name(const live *lv) { return lv->name; }
