/*
 * Where a run's result goes, through a sink of the port, and the run's
 * publish step: the document written and committed whole, then the summary.
 */
#ifndef RTSCOPE_OUTPUT_H
#define RTSCOPE_OUTPUT_H

#include "run.h"

typedef struct {
    const char *dest;    /* NULL: no document; RTS_SINK_CONSOLE: the console */
    rts_sink *sink;      /* open until published */
    bool write_failed;   /* the sink refused bytes */
} rts_output;

/* Open the sink for dest (NULL: the run writes no document), so that a
 * destination that cannot be written is found before measuring. False
 * after saying why on diagnostics. */
bool rts_output_open(rts_output *o, const char *dest);

/* The run's publish step (rts_run.publish, with an opened rts_output):
 * write the document and commit it, or drop it when it could not be
 * written whole, so that a half document never appears; then print the
 * summary (unless quiet) on the console, or on diagnostics when the
 * document went to the console. False when the document was not written. */
bool rts_output_publish(rts_run *run, void *arg);

#endif
