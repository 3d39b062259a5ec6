/* A capture in sigrok-cli's CSV (-O csv): see wave_capture.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave_capture.h"

/* Where the channel and the time are in a CSV line. */
typedef struct {
    int column;              /* the channel's; -1: not found yet */
    int time_column;         /* -1: none */
    int listed;              /* the channel's place in the "; Channels" comment, -1: not there */
    int channels;            /* how many that comment lists */
    bool timed;              /* the times are the time column's (no samplerate) */
} csv_layout;

/* Field n (from 0) of a CSV line: its start and length, or NULL. */
static const char *csv_field(const char *line, int n, size_t *len)
{
    for (; n > 0; n--) {
        line = strchr(line, ',');
        if (!line)
            return NULL;
        line++;
    }
    *len = strcspn(line, ",");
    return line;
}

static bool same(const char *s, size_t len, const char *word) { return strlen(word) == len && !strncmp(s, word, len); }

/* A comment line: the samplerate, or the channels in their column order. */
static void csv_comment(capture *c, csv_layout *lay)
{
    char number[32], unit[8];
    const char *list = strstr(c->text, "): ");
    if (sscanf(c->text, "; Samplerate: %31s %7s", number, unit) == 2)
        capture_set_rate(c, number, unit);
    else if (strncmp(c->text, "; Channels (", 12) == 0 && list) {
        c->names[0] = '\0';
        size_t n;
        lay->channels = 0;
        for (const char *name = list + 3; *name; name += n + (name[n] == ',')) {
            name += strspn(name, " ");
            n = strcspn(name, ",");
            capture_add_name(c, name, n);
            if (same(name, n, c->channel))
                lay->listed = lay->channels;
            lay->channels++;
        }
    }
}

/* The unit of a time column labelled label (label=units), in ns; 0 when it names none. */
static double csv_time_unit(const char *label, size_t len)
{
    static const struct { const char *label; double ns; } units[] = {
        { "seconds", 1e9 }, { "milliseconds", 1e6 }, { "microseconds", 1e3 }, { "nanoseconds", 1 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (same(label, len, units[i].label))
            return units[i].ns;
    return 0;
}

/* A column label as sigrok writes them: a channel's name, a unit
 * ("logic", "V", "microseconds") or "Time"; text with spaces or signs is
 * not one (a file that is no capture). */
static bool is_label(const char *s, size_t len)
{
    size_t word = 0;
    while (word < len && (strchr("_-.()[]/#", s[word]) || (s[word] >= '0' && s[word] <= '9') ||
                          ((s[word] | 0x20) >= 'a' && (s[word] | 0x20) <= 'z')))
        word++;
    return len > 0 && word == len;
}

/* The first line after the comments: column labels, unless it is a sample
 * already (label=off). *pending: it is a sample. False after failing the bench. */
static bool csv_labels(capture *c, csv_layout *lay, bool *pending)
{
    size_t n;
    const char *label = csv_field(c->text, 0, &n);
    char *end;
    strtod(label, &end);
    *pending = n > 0 && end == label + n;
    if (*pending) { /* no labels: a time column when there is a field more than the channels */
        int fields = 0;
        while (csv_field(c->text, fields, &n))
            fields++;
        lay->time_column = fields == lay->channels + 1 ? 0 : -1;
        return true;
    }
    c->unit_ns = csv_time_unit(label, n);
    lay->time_column = c->unit_ns > 0 || same(label, n, "Time") || same(label, n, "samples") ? 0 : -1;
    bool named = false;
    for (int k = 0; (label = csv_field(c->text, k, &n)); k++) {
        if (!is_label(label, n))
            return capture_bad(c, CAPTURE_NOT_A_CAPTURE ": its line %lu is neither a sample nor column labels", c->text_line);
        named |= k > lay->time_column && !same(label, n, "logic");
        if (k > lay->time_column && same(label, n, c->channel))
            lay->column = k;
    }
    for (int k = lay->time_column + 1; named && !c->names[0] && (label = csv_field(c->text, k, &n)); k++)
        capture_add_name(c, label, n);
    return true;
}

/* The line of sample number index (from 0). */
static bool csv_sample(capture *c, const csv_layout *lay, uint64_t index)
{
    size_t n;
    const char *v = csv_field(c->text, lay->column, &n);
    if (!v)
        return capture_bad(c, "line %lu: no value of channel %s", c->text_line, c->channel);
    if (n != 1 || (*v != '0' && *v != '1'))
        return capture_bad(c, "line %lu: '%.*s' is not a level (0 or 1) of channel %s", c->text_line, (int)(n < 20 ? n : 20),
                   v, c->channel);
    if (!lay->timed)
        return capture_sample(c, (uint64_t)llround((double)index * c->interval_ns), *v - '0');
    const char *t = csv_field(c->text, 0, &n);
    char *end;
    double at = strtod(t, &end);
    if (end != t + n || at < 0)
        return capture_bad(c, "line %lu: the time is not a number", c->text_line);
    return capture_sample(c, capture_to_ns(c, at), *v - '0');
}

/* How the CSV's columns are laid out, from its comments and labels; false
 * after failing the bench. *pending: the last line read is a sample. */
static bool csv_layout_read(capture *c, csv_layout *lay, bool *pending)
{
    int got;
    while ((got = capture_next_line(c)) > 0 && (c->text[0] == ';' || !c->text[0]))
        csv_comment(c, lay);
    if (got < 0)
        return false;
    if (got == 0)
        return capture_bad(c, "no samples in it");
    if (!csv_labels(c, lay, pending))
        return false;
    if (lay->column < 0 && lay->listed >= 0)
        lay->column = lay->listed + lay->time_column + 1;
    if (lay->column < 0)
        return capture_no_channel(c);
    if (c->interval_ns <= 0 && (lay->time_column < 0 || c->unit_ns <= 0))
        return capture_bad(c, "no samplerate in its header and no time column in a known unit: the times are unknown");
    lay->timed = c->interval_ns <= 0;
    if (lay->timed)
        c->interval_ns = c->unit_ns; /* the finest time the column can tell */
    return true;
}

bool capture_read_csv(capture *c)
{
    csv_layout lay = { .column = -1, .time_column = -1, .listed = -1 };
    bool pending = false;
    if (!csv_layout_read(c, &lay, &pending))
        return false;
    uint64_t index = 0;
    int got;
    if (pending && !csv_sample(c, &lay, index++))
        return false;
    while ((got = capture_next_line(c)) > 0)
        if (c->text[0] && c->text[0] != ';' && !csv_sample(c, &lay, index++))
            return false;
    return got == 0;
}
