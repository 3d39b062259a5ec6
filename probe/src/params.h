/* Parameters: each bench's values, from its declared defaults and the run's --param assignments. */
#ifndef RTSCOPE_PARAMS_H
#define RTSCOPE_PARAMS_H

#include "run.h"

/* The choices of choice parameter p, words separated by commas (see
 * RTS_PARAM_CHOICE); NULL for a parameter of another kind. */
const char *rts_param_choices(const rts_param_decl *p);

/* The next word of a list of choices: its start, its length in *len, and
 * *cursor (first set to the list) moved past it; NULL after the last. */
const char *rts_param_choice_next(const char **cursor, size_t *len);

/* Index of the parameter called name among b's declared ones, or -1. */
int rts_param_index(const rts_bench *b, const char *name);

/* Resolve each requested bench's parameter values (its defaults, then the
 * assignments that concern it) into run->results, binding each result to
 * its bench. On bad input writes one line to err and returns false. */
bool rts_params_resolve(rts_run *run, char *err, size_t errsize);

#endif
