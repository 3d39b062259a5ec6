/*
 * The result document and the human summary of a run, both made as the run
 * goes: a bench's metrics are written once it has measured, and can then
 * be released, so that a run holds the metrics of one bench at a time.
 */
#ifndef RTSCOPE_RESULT_H
#define RTSCOPE_RESULT_H

#include "rtscope/json.h"
#include "run.h"
#include "text.h"

/* The median of a calibration metric (per period, its own baseline or none),
 * kept after its bench for the ratios of the metrics it calibrates; NAN
 * when it is not usable (invalid, no figures). */
typedef struct {
    char id[RTS_METRIC_ID_MAX];
    double p50;
} rts_result_baseline;

/* The result document (schema/result-v4.schema.json) being written. */
typedef struct {
    rts_json json;
    unsigned benches_written; /* run->results[0 .. benches_written) have their metrics written */
    rts_result_baseline baselines[RTS_MAX_BASELINES];
    unsigned nbaselines;
} rts_result_writer;

/* Start the document of run, set up (system, timing, config known), its
 * text going through write(arg, ...). */
void rts_result_begin(rts_result_writer *w, const rts_run *run, rts_json_write_fn write, void *arg);

/* Write the metrics of the next bench of run (run->results[benches_written]),
 * which has measured: afterwards they are not read again. */
void rts_result_add_bench(rts_result_writer *w, const rts_run *run);

/* Write the metrics of the benches not written yet, then what is known at
 * the end (the benches' status, the run's); false when the document could
 * not be written whole. */
bool rts_result_end(rts_result_writer *w, const rts_run *run);

/* The whole document of a concluded run at once (begin, then end). */
bool rts_result_write(const rts_run *run, rts_json_write_fn write, void *arg);

/* Write s as the result's "system" member (also what rtscope-probe system
 * prints, for rtscope doctor) into the object j is in. */
void rts_result_write_system(rts_json *j, const rts_sysinfo *s);

/* Write the OS's configuration manifest (rts_os_config) as "os_config" into
 * the object j is in: "true"/"false" as booleans, whole numbers as integers,
 * the rest as text; nothing when count is 0. */
void rts_result_write_os_config(rts_json *j, const rts_os_setting *settings, size_t count);

/* The human summary, in three parts: the table's heading (before the first
 * bench), a bench's rows (once it has measured) and the run's line (at the
 * end). The metric column is as wide as the longest metric id the run's
 * benches declare. */
void rts_result_print_heading(const rts_run *run, rts_text_fn out);
void rts_result_print_bench(const rts_run *run, const rts_bench_result *r, rts_text_fn out);
void rts_result_print_run(const rts_run *run, rts_text_fn out);

#endif
