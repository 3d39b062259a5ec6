/* The result document and the human summary of a run. */
#ifndef RTSCOPE_RESULT_H
#define RTSCOPE_RESULT_H

#include "rtscope/json.h"
#include "run.h"
#include "text.h"

/* Write the result document of run (schema/result-v4.schema.json) through
 * write(arg, ...); false when it could not be written whole. */
bool rts_result_write(const rts_run *run, rts_json_write_fn write, void *arg);

/* Write s as the result's "system" member (also what rtscope-probe system
 * prints, for rtscope doctor) into the object j is in. */
void rts_result_write_system(rts_json *j, const rts_sysinfo *s);

/* Write the OS's configuration manifest (rts_os_config) as "os_config" into
 * the object j is in: "true"/"false" as booleans, whole numbers as integers,
 * the rest as text; nothing when count is 0. */
void rts_result_write_os_config(rts_json *j, const rts_os_setting *settings, size_t count);

/* Print the human summary table of run to out. */
void rts_result_print_summary(const rts_run *run, rts_text_fn out);

#endif
