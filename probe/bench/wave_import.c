/*
 * wave.import — a square wave captured by someone else, a logic analyzer
 * through sigrok-cli, analysed edge by edge exactly as wave.square's
 * observer's edges are (docs/wave.md, "Imported captures"): the same
 * metrics and checks, labelled {"model": "capture", "period_us": P}.
 *
 * The capture is read by its format's parser (wave_capture.h: CSV or VCD,
 * as sigrok-cli 0.7 writes them), each edge into the edge analysis as it is
 * read; its resolution is its sample interval, and it has no blind
 * intervals. Live (the driver parameter): sigrok-cli runs first, bounded by
 * the run (wave_sigrok.h), and its file is read as an imported one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wave_capture.h"
#include "wave_metrics.h"
#include "wave_sigrok.h"

typedef struct {
    rts_ctx *ctx;
    const char *path;        /* what messages call the capture */
    capture in;
    rts_edges edges;
    wave_metrics metrics;
} importer;

/* The capture is wrong: fail the bench with one line naming the file. False. */
static bool bad(importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool bad(importer *im, const char *fmt, ...)
{
    char what[RTS_MESSAGE_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    rts_ctx_fail(im->ctx, "%s: %s", im->path, what);
    return false;
}

/* The capture's edges, into the edge analysis (a capture_edge_fn). */
static void edge(void *arg, uint64_t at_ns, int level)
{
    importer *im = arg;
    rts_edges_edge(&im->edges, at_ns, level);
}

/* Whether the run asked the bench to stop (the capture's stopping). */
static bool stopping(void *arg) { return rts_ctx_stopping(arg); }

/* What the analysis saw, on wave.period; false after failing the bench
 * when the capture holds no wave to judge. A period the capture cannot
 * resolve (under 4 sample intervals, as for wave.square's observer) is
 * measured, and marked invalid. */
static bool judge(importer *im, double period_us)
{
    const rts_edge_counts *c = &im->edges.counts;
    wave_metrics_check(&im->metrics, c, (uint64_t)llround(im->in.interval_ns), 0.0);
    if (im->in.level < 0)
        return bad(im, "no samples of channel %s in it", im->in.channel);
    if (c->edges_seen == 0)
        return bad(im, "no edges on channel %s: it stays %s", im->in.channel, im->in.level ? "high" : "low");
    if (c->periods_judged < 2)
        return bad(im, "%llu period%s on channel %s: a wave of at least 2 is needed",
                   (unsigned long long)c->periods_judged, c->periods_judged == 1 ? "" : "s", im->in.channel);
    if (period_us * 1000.0 < 4.0 * im->in.interval_ns)
        wave_metrics_invalidate(&im->metrics, "its sample interval of %.0f ns cannot resolve a period of %g us",
                                im->in.interval_ns, period_us);
    return true;
}

/* An importer of the capture at path (opened), named name in messages,
 * for channel; NULL after failing the bench. Release with importer_close. */
static importer *importer_open(rts_ctx *ctx, const char *path, const char *name, const char *channel)
{
    char why[RTS_MESSAGE_TEXT];
    rts_file *file;
    if (rts_file_open(&file, path, why, sizeof why) != RTS_OK) {
        rts_ctx_fail(ctx, "%s", why);
        return NULL;
    }
    importer *im = rts_heap_alloc(sizeof *im);
    if (!im) {
        rts_ctx_fail(ctx, "out of memory for the capture's reader");
        rts_file_close(file);
        return NULL;
    }
    *im = (importer){ .ctx = ctx, .path = name };
    capture_init(&im->in, file, channel, edge, im, stopping, ctx);
    return im;
}

static void importer_close(importer *im)
{
    rts_file_close(im->in.file);
    rts_heap_free(im);
}

/* The capture at path analysed; false after failing the bench. */
static bool analyse(rts_ctx *ctx, const char *path, const char *name)
{
    /* 1. The capture opened, the metrics made. */
    double period_us = rts_ctx_param(ctx, "period_us");
    importer *im = importer_open(ctx, path, name, rts_ctx_param_text(ctx, "channel"));
    if (!im)
        return false;
    bool ok = wave_metrics_make(ctx, &im->metrics, "capture", period_us);
    /* 2. Its samples through the edge analysis, as they are read. */
    if (ok) {
        rts_edges_init(&im->edges, im->metrics.nominal_ns, wave_metrics_add, &im->metrics);
        ok = capture_read(&im->in, rts_ctx_param_text(ctx, "format")) || bad(im, "%s", im->in.why);
    }
    /* 3. What the analysis saw. */
    ok = ok && judge(im, period_us);
    importer_close(im);
    return ok;
}

/* A live capture (a driver named) needs sigrok-cli, which the target may
 * not have; an import needs only the file the user names (missing: fails). */
static bool can_run(const rts_ctx *ctx, char *why, size_t whysize)
{
    if (!rts_ctx_param_text(ctx, "driver")[0])
        return true;
    if (!(rts_port_caps() & RTS_CAP_PROCESSES))
        snprintf(why, whysize, "a live capture runs sigrok-cli: this port cannot run programs");
    else if (!rts_proc_findable("sigrok-cli"))
        snprintf(why, whysize, "sigrok-cli is not installed: a live capture needs it (Debian: apt install sigrok-cli)");
    else
        return true;
    return false;
}

static int run(rts_ctx *ctx)
{
    const char *file = rts_ctx_param_text(ctx, "file");
    sigrok_plan plan = { .driver = rts_ctx_param_text(ctx, "driver"), .config = rts_ctx_param_text(ctx, "config"),
                       .group = rts_ctx_param_text(ctx, "group"), .format = rts_ctx_param_text(ctx, "format"),
                       .samples = rts_ctx_param(ctx, "samples") };
    if (!plan.driver[0]) {
        if (!file[0])
            rts_ctx_fail(ctx, "name the capture (--param file=PATH) or a driver to capture live (--param driver=demo)");
        return file[0] && analyse(ctx, file, file) ? 0 : 1;
    }
    if (file[0]) {
        rts_ctx_fail(ctx, "file and driver both given: import a capture (file) or capture live (driver), not both");
        return 1;
    }
    sigrok_live *lv = sigrok_live_capture(ctx, &plan);
    if (!lv)
        return 1;
    bool ok = analyse(ctx, sigrok_live_path(lv), sigrok_live_name(lv));
    sigrok_live_close(lv);
    return ok ? 0 : 1;
}

static const rts_param_decl params[] = {
    RTS_PARAM_TEXT("file", "", "the capture: sigrok-cli -O csv (rows are samples) or -O vcd"),
    RTS_PARAM_TEXT("channel", "D0", "the channel of the wave, by its sigrok name"),
    { "period_us", "1000", 0.01, 1e7, false, "the wave's nominal period in microseconds" },
    RTS_PARAM_CHOICE("format", "auto", "auto,csv,vcd",
                     "the capture's format; auto: VCD when it begins with $ (a live capture: VCD unless csv)"),
    RTS_PARAM_TEXT("driver", "",
                   "capture live with sigrok-cli --driver this (e.g. demo:analog_channels=0); \"\": import file"),
    RTS_PARAM_TEXT("config", "", "a live capture's sigrok-cli --config (e.g. pattern=incremental); \"\": none"),
    RTS_PARAM_TEXT("group", "Logic",
                   "the channel group --config applies to (sigrok-cli --channel-group); \"\": the device's"),
    { "samples", "1000", 1, 1e12, true, "how many samples a live capture takes (sigrok-cli --samples)" },
};

RTS_BENCH_DEFINE(rts_bench_wave_import) = {
    .id = "wave.import",
    .summary = "a square wave captured by a logic analyzer (sigrok-cli CSV or VCD), judged edge by edge",
    .metrics = wave_metric_ids,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_FILES,
    .can_run = can_run,
    .run = run,
};
