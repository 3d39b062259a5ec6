/* A run's result output and publish step (see output.h). */
#include "output.h"

#include <stdio.h>
#include <string.h>

#include "result.h"
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

/* Write the run's document and commit it; false after saying why. */
static bool write_document(rts_output *o, const rts_run *run)
{
    char why[RTS_MESSAGE_TEXT];
    bool whole = rts_result_write(run, to_sink, o);
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
    bool ok = !o->sink || write_document(o, run);
    bool to_console = o->dest && strcmp(o->dest, RTS_SINK_CONSOLE) == 0;
    if (!run->req->quiet)
        rts_result_print_summary(run, to_console ? rts_diag_write : rts_console_write);
    return ok;
}
