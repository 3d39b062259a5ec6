/* The result document and the human summary of a run. */
#ifndef RTSCOPE_RESULT_H
#define RTSCOPE_RESULT_H

#include <stdio.h>

#include "run.h"

/* Write the result document of run (schema/result-v3.schema.json) to out;
 * false when it could not be written whole. */
bool rts_result_write(const rts_run *run, FILE *out);

/* Print the human summary table of run to out. */
void rts_result_print_summary(const rts_run *run, FILE *out);

#endif
