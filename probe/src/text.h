/*
 * Formatted text for people, through the port: rts_console_write (the
 * probe's output) or rts_diag_write (progress, warnings, errors). Only the
 * C library's vsnprintf underneath, no stdio streams.
 */
#ifndef RTSCOPE_TEXT_H
#define RTSCOPE_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "rtscope/config.h"

/* Where text goes: rts_console_write or rts_diag_write (or a test's). */
typedef void (*rts_text_fn)(const char *text, size_t n);

/* Format as printf does and hand the text to out in one call (so that a
 * line is not interleaved with another thread's). Text longer than
 * RTS_TEXT_LINE - 1 bytes is formatted on the heap; if the heap refuses,
 * its first RTS_TEXT_LINE - 1 bytes are written. */
void rts_text_fmt(rts_text_fn out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* rts_text_fmt with the arguments in ap. */
void rts_text_vfmt(rts_text_fn out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Format as snprintf does into buf of size bytes; a text that does not fit
 * is cut and ends with "..." so that a reader sees it was (a small build
 * shrinks the message buffers, RTS_MESSAGE_TEXT). */
void rts_text_into(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* rts_text_into with the arguments in ap. */
void rts_text_vinto(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* Hand the NUL-terminated text to out as it is. */
void rts_text_puts(rts_text_fn out, const char *text);

/* A run's warnings: one line each, the first RTS_MAX_WARNINGS kept. */
typedef struct {
    char text[RTS_MAX_WARNINGS][RTS_MESSAGE_TEXT];
    unsigned count;
    bool quiet; /* kept only, not also written to diagnostics */
} rts_warnings;

/* Add a warning formatted as printf does to w (dropped when w is full),
 * and write it to diagnostics unless w is quiet. */
void rts_warn(rts_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
