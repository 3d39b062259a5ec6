/* A run's result output, written as the run goes (see output.h). */
#include "output.h"

#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "text.h"

bool rts_output_open(rts_output *o, const char *dest)
{
    *o = (rts_output){ .dest = dest };
    if (!dest)
        return true;
    char why[RTS_MESSAGE_TEXT];
    if (rts_sink_open(&o->sink, dest, why, sizeof why) == RTS_OK)
        return true;
    rts_text_fmt(rts_diag_write, "rtscope-probe: cannot write %s: %s\n", dest, why);
    return false;
}

/* The document's bytes, to the sink (an rts_json_write_fn). */
static bool to_sink(void *arg, const char *data, size_t n)
{
    rts_output *o = arg;
    o->write_failed = rts_sink_write(o->sink, data, n) != RTS_OK;
    return !o->write_failed;
}

void rts_output_started(rts_run *run, void *arg)
{
    rts_output *o = arg;
    bool to_console = o->dest && strcmp(o->dest, RTS_SINK_CONSOLE) == 0;
    o->benches_told = 0;
    o->summary = run->req->quiet ? NULL : to_console ? rts_diag_write : rts_console_write;
    if (o->sink)
        rts_result_begin(&o->writer, run, to_sink, o);
    if (o->summary)
        rts_result_print_heading(run, o->summary);
}

/* Write and summarise the next bench result, then release its metrics. */
static void tell_bench(rts_output *o, rts_run *run)
{
    rts_bench_result *r = &run->results[o->benches_told++];
    if (o->sink)
        rts_result_add_bench(&o->writer, run);
    if (o->summary)
        rts_result_print_bench(run, r, o->summary);
    for (unsigned k = 0; k < r->nmetrics; k++)
        rts_metric_free(r->metrics[k]);
    r->nmetrics = 0;
}

void rts_output_measured(rts_run *run, void *arg) { tell_bench(arg, run); }

/* End the document and commit it; false after saying why. */
static bool end_document(rts_output *o, const rts_run *run)
{
    char why[RTS_MESSAGE_TEXT];
    bool whole = rts_result_end(&o->writer, run);
    rts_sink *sink = o->sink;
    o->sink = NULL;
    if (!whole && !o->write_failed) { /* the writer's own failure: a bug, the sink is fine */
        rts_sink_abort(sink);
        snprintf(why, sizeof why, "the document could not be completed");
    } else if (rts_sink_commit(sink, why, sizeof why) == RTS_OK) {
        return true; /* a failed write makes the commit fail with its reason */
    }
    rts_text_fmt(rts_diag_write, "rtscope-probe: cannot write %s: %s\n", o->dest, why);
    return false;
}

bool rts_output_publish(rts_run *run, void *arg)
{
    rts_output *o = arg;
    while (o->benches_told < run->req->nbenches)
        tell_bench(o, run);
    bool ok = !o->sink || end_document(o, run);
    if (o->summary)
        rts_result_print_run(run, o->summary);
    return ok;
}
