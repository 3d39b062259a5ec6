/* A capture in VCD (sigrok-cli -O vcd): see wave_capture.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave_capture.h"

#define VCD_ID_BYTES 32 /* the longest VCD identifier, with its NUL (sigrok's have 1 to 3 bytes) */

/* Read the words of a $keyword ... $end section, calling on_word on each. */
static bool vcd_section(capture *c, void (*on_word)(capture *c, const char *prev, void *arg), void *arg)
{
    char prev[32] = ""; /* the word before, e.g. the number before a unit (cut) */
    int got;
    while ((got = capture_next_word(c)) > 0 && strcmp(c->text, "$end") != 0) {
        if (on_word)
            on_word(c, prev, arg);
        snprintf(prev, sizeof prev, "%.*s", (int)sizeof prev - 1, c->text);
    }
    return got > 0 || (got == 0 && capture_bad(c, "a section without its $end"));
}

/* $comment: sigrok's "... at 200 kHz" gives the samplerate. */
static void vcd_comment_word(capture *c, const char *prev, void *arg)
{
    (void)arg;
    capture_set_rate(c, prev, c->text);
}

/* $timescale: "1 us" or "1us". */
static void vcd_timescale_word(capture *c, const char *prev, void *arg)
{
    static const struct { const char *unit; double ns; } units[] = {
        { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 }, { "ps", 1e-3 }, { "fs", 1e-6 },
    };
    (void)arg;
    char *end;
    double number = strtod(prev[0] ? prev : c->text, &end);
    const char *unit = prev[0] ? c->text : end;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].unit) == 0)
            c->unit_ns = number * units[i].ns;
}

/* $var: "wire 1 <id> <name> [bits]". The words come in that order. */
typedef struct {
    int word;
    bool one_bit;
    char id[VCD_ID_BYTES];
    char *found;             /* the channel's id */
} vcd_var;

static void vcd_var_word(capture *c, const char *prev, void *arg)
{
    (void)prev;
    vcd_var *v = arg;
    if (v->word == 1)
        v->one_bit = strcmp(c->text, "1") == 0;
    else if (v->word == 2)
        snprintf(v->id, sizeof v->id, "%.*s", VCD_ID_BYTES - 1, c->text);
    else if (v->word == 3) {
        capture_add_name(c, c->text, strlen(c->text));
        if (v->one_bit && strcmp(c->text, c->channel) == 0)
            snprintf(v->found, sizeof v->id, "%.*s", VCD_ID_BYTES - 1, v->id);
    }
    v->word++;
}

/* The declarations, up to $enddefinitions: the channel's id into id. */
static bool vcd_header(capture *c, char id[VCD_ID_BYTES])
{
    int got;
    while ((got = capture_next_word(c)) > 0 && strcmp(c->text, "$enddefinitions") != 0) {
        vcd_var var = { .found = id };
        bool ok = strcmp(c->text, "$var") == 0             ? vcd_section(c, vcd_var_word, &var)
                  : strcmp(c->text, "$timescale") == 0     ? vcd_section(c, vcd_timescale_word, NULL)
                  : strcmp(c->text, "$comment") == 0       ? vcd_section(c, vcd_comment_word, NULL)
                  : c->text[0] == '$'                      ? vcd_section(c, NULL, NULL)
                  : capture_bad(c, CAPTURE_NOT_A_CAPTURE ": '%.20s' at line %lu", c->text,
                        c->text_line);
        if (!ok)
            return false;
    }
    if (got <= 0)
        return got == 0 && capture_bad(c, CAPTURE_NOT_A_CAPTURE ": no $enddefinitions");
    if (c->unit_ns <= 0)
        return capture_bad(c, "no $timescale in it");
    if (!id[0])
        return capture_no_channel(c);
    if (c->interval_ns <= 0)
        c->interval_ns = c->unit_ns; /* the finest time a change can have */
    return vcd_section(c, NULL, NULL);
}

/* One word of the value changes. */
static bool vcd_change(capture *c, const char *id, uint64_t *at_ns)
{
    const char *w = c->text;
    if (w[0] == '#') {
        char *end;
        double t = strtod(w + 1, &end);
        if (end == w + 1 || *end || t < 0)
            return capture_bad(c, "line %lu: '%.20s' is not a time", c->text_line, w);
        *at_ns = capture_to_ns(c, t);
        return true;
    }
    if (strchr("01xXzZ", w[0]))
        return strcmp(w + 1, id) != 0 || w[0] > '1' || capture_sample(c, *at_ns, w[0] - '0');
    if (strchr("bBrR", w[0])) /* a vector or a real: its id follows */
        return capture_next_word(c) > 0 || capture_bad(c, "line %lu: a value without its id", c->text_line);
    if (strcmp(w, "$comment") == 0)
        return vcd_section(c, NULL, NULL);
    if (w[0] == '$') /* $dumpvars and the like around changes, and their $end */
        return true;
    if (w[strlen(w) - 1] == ':') /* "A0: -10.0000 V DC": libsigrok 0.5.2 writes analog samples so */
        return capture_bad(c, "line %lu: analog samples ('%.20s'): capture logic channels only (e.g. demo:analog_channels=0)",
                   c->text_line, w);
    return capture_bad(c, "line %lu: '%.20s' is not a value change", c->text_line, w);
}

bool capture_read_vcd(capture *c)
{
    char id[VCD_ID_BYTES] = "";
    if (!vcd_header(c, id))
        return false;
    uint64_t at_ns = 0;
    int got;
    while ((got = capture_next_word(c)) > 0)
        if (!vcd_change(c, id, &at_ns))
            return false;
    return got == 0;
}
