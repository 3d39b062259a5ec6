/*
 * A streaming JSON writer into a growing buffer. Strings are escaped and
 * made valid UTF-8; non-finite numbers become null. Keys are given with
 * each value (NULL inside arrays). Errors (out of memory, nesting too deep)
 * are sticky: check rts_json_ok before using the text.
 */
#ifndef RTSCOPE_JSON_H
#define RTSCOPE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtscope/config.h"

typedef struct {
    char *buf;
    size_t len, cap;
    int depth;
    bool has_items[RTS_JSON_MAX_DEPTH]; /* a value was written at this depth */
    bool inline_at[RTS_JSON_MAX_DEPTH]; /* container printed on one line */
    bool failed;
} rts_json;

void rts_json_init(rts_json *j);
void rts_json_free(rts_json *j);
bool rts_json_ok(const rts_json *j);
/* The text so far (NUL-terminated; "" after a failure). */
const char *rts_json_text(const rts_json *j);

/* Containers; one_line prints the container without line breaks. */
void rts_json_object_begin(rts_json *j, const char *key, bool one_line);
void rts_json_object_end(rts_json *j);
void rts_json_array_begin(rts_json *j, const char *key, bool one_line);
void rts_json_array_end(rts_json *j);

/* Values; a NULL string writes null. */
void rts_json_string(rts_json *j, const char *key, const char *value);
void rts_json_int(rts_json *j, const char *key, long long value);
void rts_json_uint(rts_json *j, const char *key, uint64_t value);
void rts_json_double(rts_json *j, const char *key, double value);
void rts_json_bool(rts_json *j, const char *key, bool value);
void rts_json_null(rts_json *j, const char *key);

#endif
