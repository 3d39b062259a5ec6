/* Formatted text through the port (see text.h). */
#include "text.h"

#include <stdio.h>
#include <string.h>

#include "rtscope/config.h"
#include "rtscope/port.h"

void rts_text_vfmt(rts_text_fn out, const char *fmt, va_list ap)
{
    char line[RTS_TEXT_LINE];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof line) {
        out(line, (size_t)n);
    } else if (n >= 0) {
        char *long_text = rts_heap_alloc((size_t)n + 1);
        if (long_text)
            vsnprintf(long_text, (size_t)n + 1, fmt, again);
        out(long_text ? long_text : line, long_text ? (size_t)n : sizeof line - 1);
        rts_heap_free(long_text);
    }
    va_end(again);
}

void rts_text_fmt(rts_text_fn out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rts_text_vfmt(out, fmt, ap);
    va_end(ap);
}

void rts_text_vinto(char *buf, size_t size, const char *fmt, va_list ap)
{
    int n = vsnprintf(buf, size, fmt, ap);
    if (n >= 0 && (size_t)n >= size && size >= sizeof "...")
        memcpy(buf + size - sizeof "...", "...", sizeof "...");
}

void rts_text_into(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rts_text_vinto(buf, size, fmt, ap);
    va_end(ap);
}

void rts_text_puts(rts_text_fn out, const char *text) { out(text, strlen(text)); }

void rts_warn(rts_warnings *w, const char *fmt, ...)
{
    if (w->count >= RTS_MAX_WARNINGS)
        return;
    char *line = w->text[w->count++];
    va_list ap;
    va_start(ap, fmt);
    rts_text_vinto(line, sizeof w->text[0], fmt, ap);
    va_end(ap);
    if (!w->quiet)
        rts_text_fmt(rts_diag_write, "warning: %s\n", line);
}
