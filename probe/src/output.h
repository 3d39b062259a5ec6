/*
 * Where a run's result goes, through a sink of the port, as the run goes:
 * the document's head once the run is set up, each bench's metrics once it
 * has measured (then released: the run holds one bench's metrics at a
 * time), its tail and the commit at the end. The sink takes the document
 * chunk by chunk (RTS_JSON_CHUNK bytes at most), so a channel that frames
 * or forwards chunks (a file, a UART) never holds the whole of it. The
 * summary is printed the same way, bench by bench.
 */
#ifndef RTSCOPE_OUTPUT_H
#define RTSCOPE_OUTPUT_H

#include "result.h"
#include "run.h"

typedef struct {
    const char *dest;      /* NULL: no document; RTS_SINK_CONSOLE: the console */
    rts_sink *sink;        /* open until published */
    bool write_failed;     /* the sink refused bytes */
    rts_result_writer writer;
    unsigned benches_told; /* run->results[0 .. benches_told) are written and summarised */
    rts_text_fn summary;   /* where the summary goes; NULL: quiet */
} rts_output;

/* Open the sink for dest (NULL: the run writes no document), so that a
 * destination that cannot be written is found before measuring. False
 * after saying why on diagnostics. */
bool rts_output_open(rts_output *o, const char *dest);

/* The run's output steps (rts_run's started, measured and publish, with an
 * opened rts_output as their argument). */

/* The run is set up: start the document and the summary. */
void rts_output_started(rts_run *run, void *arg);

/* The run's next bench has measured (or was skipped): write its metrics and
 * its summary rows, then release its metrics. */
void rts_output_measured(rts_run *run, void *arg);

/* The run has concluded: write what was not yet (the benches after one the
 * watchdog abandoned) and the document's end, and commit it, or drop it
 * when it could not be written whole, so that a half document never
 * appears; then end the summary (on the console, or on diagnostics when
 * the document went to the console). False when the document was not
 * written. */
bool rts_output_publish(rts_run *run, void *arg);

#endif
