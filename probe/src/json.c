/* Streaming JSON writer (see rtscope/json.h). */
#include "rtscope/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rts_json_init(rts_json *j, rts_json_write_fn write, void *arg)
{
    memset(j, 0, sizeof *j);
    j->write = write;
    j->arg = arg;
}

/* Hand the chunk over; a refusal fails the document. */
static void flush(rts_json *j)
{
    if (j->len > 0 && !j->failed && !j->write(j->arg, j->chunk, j->len))
        j->failed = true;
    j->len = 0;
}

bool rts_json_finish(rts_json *j)
{
    flush(j);
    return !j->failed && j->depth == 0;
}

static void put(rts_json *j, const char *s, size_t n)
{
    while (n > 0 && !j->failed) {
        size_t room = sizeof j->chunk - j->len;
        size_t take = n < room ? n : room;
        memcpy(j->chunk + j->len, s, take);
        j->len += take;
        s += take;
        n -= take;
        if (j->len == sizeof j->chunk)
            flush(j);
    }
}

static void puts_(rts_json *j, const char *s) { put(j, s, strlen(s)); }

static void newline(rts_json *j)
{
    if (j->depth > 0 && j->inline_at[j->depth - 1])
        return;
    puts_(j, "\n");
    for (int i = 0; i < j->depth; i++)
        puts_(j, "  ");
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && c < 0xC2) || (n == 4 && c > 0xF4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, or a UTF-16 surrogate */
    if (n == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)))
        return 0;
    return n;
}

static void put_string(rts_json *j, const char *s)
{
    puts_(j, "\"");
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        char esc[8];
        size_t n = utf8_len(p);
        if (n == 0) {
            puts_(j, "\xEF\xBF\xBD"); /* U+FFFD for a byte that is not UTF-8 */
            p++;
        } else if (*p == '"' || *p == '\\') {
            snprintf(esc, sizeof esc, "\\%c", *p);
            puts_(j, esc);
            p++;
        } else if (*p < 0x20) {
            const char *named = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : NULL;
            if (!named)
                snprintf(esc, sizeof esc, "\\u%04x", *p);
            puts_(j, named ? named : esc);
            p++;
        } else {
            put(j, (const char *)p, n);
            p += n;
        }
    }
    puts_(j, "\"");
}

/* Separator, indentation and key before a value. */
static void begin_value(rts_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->has_items[j->depth - 1])
            puts_(j, j->inline_at[j->depth - 1] ? ", " : ",");
        j->has_items[j->depth - 1] = true;
        newline(j);
    }
    if (key) {
        put_string(j, key);
        puts_(j, ": ");
    }
}

static void open_container(rts_json *j, const char *key, bool one_line, const char *bracket)
{
    begin_value(j, key);
    puts_(j, bracket);
    if (j->depth >= RTS_JSON_MAX_DEPTH) {
        j->failed = true;
        return;
    }
    bool parent_inline = j->depth > 0 && j->inline_at[j->depth - 1];
    j->inline_at[j->depth] = one_line || parent_inline;
    j->has_items[j->depth] = false;
    j->depth++;
}

static void close_container(rts_json *j, const char *bracket)
{
    if (j->depth <= 0) {
        j->failed = true;
        return;
    }
    j->depth--;
    if (j->has_items[j->depth] && !j->inline_at[j->depth])
        newline(j);
    puts_(j, bracket);
    if (j->depth == 0)
        puts_(j, "\n");
}

void rts_json_object_begin(rts_json *j, const char *key, bool one_line) { open_container(j, key, one_line, "{"); }
void rts_json_object_end(rts_json *j) { close_container(j, "}"); }
void rts_json_array_begin(rts_json *j, const char *key, bool one_line) { open_container(j, key, one_line, "["); }
void rts_json_array_end(rts_json *j) { close_container(j, "]"); }

void rts_json_string(rts_json *j, const char *key, const char *value)
{
    begin_value(j, key);
    if (value)
        put_string(j, value);
    else
        puts_(j, "null");
}

void rts_json_int(rts_json *j, const char *key, long long value)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", value);
    begin_value(j, key);
    puts_(j, num);
}

void rts_json_uint(rts_json *j, const char *key, uint64_t value)
{
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)value);
    begin_value(j, key);
    puts_(j, num);
}

void rts_json_double(rts_json *j, const char *key, double value)
{
    char num[40];
    begin_value(j, key);
    if (!isfinite(value)) {
        puts_(j, "null");
        return;
    }
    /* Whole numbers print without a fraction; others keep 4 decimals,
     * well below the resolution of any clock the probe reads, small ones
     * (ratios) 6 significant digits, and those from 1 to 1000 (ratios
     * again: a wave's relative error of 128 %) 7, never fewer than 4
     * decimals. */
    if (value == floor(value) && fabs(value) < 1e15)
        snprintf(num, sizeof num, "%.0f", value);
    else if (fabs(value) < 1.0)
        snprintf(num, sizeof num, "%.6g", value);
    else if (fabs(value) < 1000.0)
        snprintf(num, sizeof num, "%.7g", value);
    else
        snprintf(num, sizeof num, "%.4f", value);
    puts_(j, num);
}

void rts_json_bool(rts_json *j, const char *key, bool value)
{
    begin_value(j, key);
    puts_(j, value ? "true" : "false");
}

void rts_json_null(rts_json *j, const char *key)
{
    begin_value(j, key);
    puts_(j, "null");
}
