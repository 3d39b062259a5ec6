/*
 * A streaming JSON writer: the text goes out in chunks of up to
 * RTS_JSON_CHUNK bytes through a write function as it is made, so a
 * document of any size needs only the writer's own few hundred bytes.
 * Strings are escaped and made valid UTF-8; non-finite numbers become
 * null. Keys are given with each value (NULL inside arrays). Errors (a
 * write refused, nesting too deep, a close without an open) are sticky:
 * nothing more is written, and rts_json_finish says so.
 */
#ifndef RTSCOPE_JSON_H
#define RTSCOPE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtscope/config.h"

/* Where the text goes: take n bytes at data, or return false. */
typedef bool (*rts_json_write_fn)(void *arg, const char *data, size_t n);

typedef struct {
    rts_json_write_fn write;
    void *arg;
    char chunk[RTS_JSON_CHUNK];         /* text not handed over yet */
    size_t len;
    int depth;
    bool has_items[RTS_JSON_MAX_DEPTH]; /* a value was written at this depth */
    bool inline_at[RTS_JSON_MAX_DEPTH]; /* container printed on one line */
    bool failed;
} rts_json;

/* Start a document whose text goes to write(arg, ...). */
void rts_json_init(rts_json *j, rts_json_write_fn write, void *arg);

/* Hand over the text still held. True when the document is whole: no
 * error, every container closed, every byte taken by write. */
bool rts_json_finish(rts_json *j);

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
