/* What a writer under test hands over, kept in memory (tests only: plain malloc). */
#ifndef RTSCOPE_CAPTURE_H
#define RTSCOPE_CAPTURE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;          /* NUL-terminated; NULL until something was taken */
    size_t len, cap;
    size_t calls;        /* write calls taken */
    size_t refuse_after; /* 0: take everything; else refuse once len would pass it */
} capture;

/* An rts_json_write_fn into the capture at arg. */
static inline bool capture_write(void *arg, const char *data, size_t n)
{
    capture *c = arg;
    if (c->refuse_after && c->len + n > c->refuse_after)
        return false;
    if (c->len + n + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 1024;
        while (c->len + n + 1 > cap)
            cap *= 2;
        char *text = realloc(c->text, cap);
        if (!text)
            return false;
        c->text = text;
        c->cap = cap;
    }
    memcpy(c->text + c->len, data, n);
    c->len += n;
    c->text[c->len] = '\0';
    c->calls++;
    return true;
}

/* The text taken so far ("" when none). */
static inline const char *capture_text(const capture *c) { return c->text ? c->text : ""; }

static inline void capture_free(capture *c)
{
    free(c->text);
    memset(c, 0, sizeof *c);
}

#endif
