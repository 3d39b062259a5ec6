/* Reading a capture, what its two parsers share: see wave_capture.h. */
#include "wave_capture.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void capture_init(capture *c, rts_file *file, const char *channel, capture_edge_fn edge, void *edge_arg,
                  bool (*stopping)(void *arg), void *stop_arg)
{
    memset(c, 0, sizeof *c);
    c->file = file;
    c->channel = channel;
    c->edge = edge;
    c->edge_arg = edge_arg;
    c->stopping = stopping;
    c->stop_arg = stop_arg;
    c->level = -1;
    c->line = 1;
}

int capture_next_byte(capture *c)
{
    if (c->pos == c->len) {
        if (c->failed || c->stopped)
            return -1;
        c->stopped = c->stopping && c->stopping(c->stop_arg);
        c->failed = !c->stopped && rts_file_read(c->file, c->chunk, sizeof c->chunk, &c->len) != RTS_OK;
        c->pos = 0;
        if (c->stopped || c->failed)
            c->len = 0;
        if (c->len == 0)
            return -1;
    }
    int byte = (unsigned char)c->chunk[c->pos++];
    if (byte == '\n')
        c->line++;
    return byte;
}

bool capture_bad(capture *c, const char *fmt, ...)
{
    if (c->why[0])
        return false; /* the first thing wrong is the one said */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return false;
}

/* Without its end, '\r' dropped; a line too long or with bytes no text has
 * is not a capture of sigrok-cli's. */
int capture_next_line(capture *c)
{
    size_t n = 0;
    int byte;
    c->text_line = c->line;
    while ((byte = capture_next_byte(c)) >= 0 && byte != '\n') {
        if ((byte < ' ' && byte != '\t' && byte != '\r') || byte == 0x7f) {
            capture_bad(c, CAPTURE_NOT_A_CAPTURE ": line %lu is not text", c->text_line);
            return -1;
        }
        if (n + 1 >= sizeof c->text) {
            capture_bad(c, "line %lu is longer than %zu bytes", c->text_line, sizeof c->text - 1);
            return -1;
        }
        if (byte != '\r')
            c->text[n++] = (char)byte;
    }
    c->text[n] = '\0';
    return byte >= 0 || n > 0;
}

bool capture_is_space(int byte) { return byte == ' ' || byte == '\t' || byte == '\r' || byte == '\n'; }

int capture_next_word(capture *c)
{
    int byte;
    while (capture_is_space(byte = capture_next_byte(c)))
        ;
    size_t n = 0;
    c->text_line = c->line;
    for (; byte > ' ' && byte < 0x7f; byte = capture_next_byte(c)) {
        if (n + 1 >= sizeof c->text) {
            capture_bad(c, "line %lu: a word longer than %zu bytes", c->text_line, sizeof c->text - 1);
            return -1;
        }
        c->text[n++] = (char)byte;
    }
    c->text[n] = '\0';
    if (byte >= 0 && !capture_is_space(byte)) {
        capture_bad(c, CAPTURE_NOT_A_CAPTURE ": line %lu is not text", c->line);
        return -1;
    }
    return n > 0;
}

bool capture_sample(capture *c, uint64_t at_ns, int level)
{
    if (c->level >= 0 && at_ns < c->last_ns)
        return capture_bad(c, "line %lu: the time goes back", c->text_line);
    if (c->level >= 0 && level != c->level)
        c->edge(c->edge_arg, at_ns, level);
    c->level = level;
    c->last_ns = at_ns;
    return true;
}

bool capture_set_rate(capture *c, const char *number, const char *unit)
{
    static const struct { const char *unit; double hz; } units[] = {
        { "Hz", 1 }, { "kHz", 1e3 }, { "MHz", 1e6 }, { "GHz", 1e9 },
    };
    char *end;
    double value = strtod(number, &end);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (end != number && value > 0 && strcmp(unit, units[i].unit) == 0) {
            c->interval_ns = 1e9 / (value * units[i].hz);
            return true;
        }
    return false;
}

uint64_t capture_to_ns(const capture *c, double t) { return (uint64_t)llround(t * c->unit_ns); }

void capture_add_name(capture *c, const char *name, size_t len)
{
    size_t used = strlen(c->names);
    snprintf(c->names + used, sizeof c->names - used, "%s%.*s", used ? ", " : "", (int)len, name);
}

bool capture_no_channel(capture *c)
{
    if (!c->names[0])
        return capture_bad(c, CAPTURE_NOT_A_CAPTURE ": it names no channels");
    return capture_bad(c, "no channel %s in it (it has %s)", c->channel, c->names);
}

/* Whether the capture is VCD: as format says, else when its first word is
 * a $keyword; false with why for an empty file. */
static bool is_vcd(capture *c, const char *format, bool *vcd)
{
    int byte;
    while (capture_is_space(byte = capture_next_byte(c)))
        ;
    if (byte < 0)
        return c->failed || c->stopped || capture_bad(c, "the file is empty");
    c->pos--; /* the byte is read again */
    *vcd = strcmp(format, "auto") == 0 ? byte == '$' : strcmp(format, "vcd") == 0;
    return true;
}

bool capture_read(capture *c, const char *format)
{
    bool vcd = false, ok = is_vcd(c, format, &vcd) && (vcd ? capture_read_vcd(c) : capture_read_csv(c));
    /* What cut the reading short is what is wrong, not what a parser made of the cut (no samples). */
    if (c->failed || c->stopped)
        c->why[0] = '\0';
    if (c->failed)
        return capture_bad(c, "the OS could not read it (line %lu)", c->line);
    if (c->stopped)
        return capture_bad(c, "stopped at line %lu: the run ended first (a longer --duration gives it time)", c->line);
    return ok;
}
