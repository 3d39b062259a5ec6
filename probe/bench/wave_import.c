/*
 * wave.import — a square wave captured by someone else, a logic analyzer
 * through sigrok-cli, analysed edge by edge exactly as wave.square's
 * observer's edges are (docs/wave.md, "Imported captures"): the same
 * metrics and checks, labelled {"model": "capture", "period_us": P}.
 *
 * Formats, as sigrok-cli 0.7 writes them:
 *   CSV (-O csv): comment lines beginning with ';', among them
 *     "; Channels (2/8): D0, D3" and "; Samplerate: 200 kHz"; a line of
 *     column labels (label=channel "Time,D0,D3", label=units
 *     "microseconds,logic,logic", label=off none); then one line per
 *     sample, the time first when asked for (time=true), then each
 *     channel's 0 or 1. Sample k is at k / samplerate: rows are samples
 *     (sigrok-cli's default, dedup=false). Without a samplerate the time
 *     column gives the times, in the unit its label names.
 *   VCD (-O vcd): $timescale, "$var wire 1 <id> <name> $end", then
 *     "#<time>" and value changes "0<id>" / "1<id>".
 * The capture's resolution is its sample interval (a VCD's from the
 * samplerate of its $comment, else its timescale), and it has no blind
 * intervals. Memory is bounded: the file is read in chunks through the
 * port, and nothing is kept per sample or edge.
 *
 * Live (the driver parameter): the bench runs sigrok-cli itself through
 * the port's processes (argv, no shell) into the port's temporary file
 * (gone with the probe, even after a SIGKILL), bounded by the run's
 * duration and stopped with it (or Ctrl-C), then reads that file as an
 * imported one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wave_metrics.h"

#define CHUNK_BYTES 4096
#define LINE_BYTES 1024      /* the longest CSV line or VCD token, with its NUL */
#define NAMES_BYTES 96       /* the channels a capture has, for a message */
#define VCD_ID_BYTES 32      /* the longest VCD identifier, with its NUL (sigrok's have 1 to 3 bytes) */
#define NOT_A_CAPTURE "not a capture of sigrok-cli (-O csv or -O vcd)"

/* The capture file, byte by byte from chunks. */
typedef struct {
    rts_file *file;
    const rts_ctx *ctx;
    char chunk[CHUNK_BYTES];
    size_t pos, len;
    bool failed;             /* the OS could not read it */
    bool stopped;            /* the run asked the bench to stop */
    unsigned long line;      /* the line being read, from 1 */
} reader;

typedef struct {
    rts_ctx *ctx;
    const char *path, *channel;
    reader in;
    rts_edges edges;
    wave_metrics metrics;
    int level;               /* the channel's level in the last sample; -1 before the first */
    uint64_t last_ns;        /* time of the last sample */
    double interval_ns;      /* the sample interval; 0: unknown */
    double unit_ns;          /* the capture's unit of time (a CSV time column's, a VCD's timescale); 0: unknown */
    char names[NAMES_BYTES]; /* the capture's channels, for a message */
    char text[LINE_BYTES];   /* the line or word being read */
    unsigned long text_line; /* its line, from 1 */
} importer;

/* ------------------------------------------------------------ reading */

/* The next byte, or -1 at the end of the file, after a read error, or once
 * the run asked the bench to stop (checked once a chunk). */
static int next_byte(reader *r)
{
    if (r->pos == r->len) {
        if (r->failed || r->stopped)
            return -1;
        r->stopped = rts_ctx_stopping(r->ctx);
        r->failed = !r->stopped && rts_file_read(r->file, r->chunk, sizeof r->chunk, &r->len) != RTS_OK;
        r->pos = 0;
        if (r->stopped || r->failed)
            r->len = 0;
        if (r->len == 0)
            return -1;
    }
    int c = (unsigned char)r->chunk[r->pos++];
    if (c == '\n')
        r->line++;
    return c;
}

/* The capture is wrong: fail the bench with one line naming the file. False. */
static bool bad(importer *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool bad(importer *im, const char *fmt, ...)
{
    char what[RTS_MESSAGE_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    rts_ctx_fail(im->ctx, "%s: %s", im->path, what);
    return false;
}

/* Read the next line into im->text (without its end, '\r' dropped). 0 at
 * the end of the file, 1 for a line, -1 after failing the bench: a line
 * too long or with bytes no text has (not a capture of sigrok-cli's). */
static int next_line(importer *im)
{
    size_t n = 0;
    int c;
    im->text_line = im->in.line;
    while ((c = next_byte(&im->in)) >= 0 && c != '\n') {
        if ((c < ' ' && c != '\t' && c != '\r') || c == 0x7f) {
            bad(im, NOT_A_CAPTURE ": line %lu is not text", im->text_line);
            return -1;
        }
        if (n + 1 >= sizeof im->text) {
            bad(im, "line %lu is longer than %zu bytes", im->text_line, sizeof im->text - 1);
            return -1;
        }
        if (c != '\r')
            im->text[n++] = (char)c;
    }
    im->text[n] = '\0';
    return c >= 0 || n > 0;
}

static bool is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Read the next word (bytes between white space) into im->text: as next_line. */
static int next_word(importer *im)
{
    int c;
    while (is_space(c = next_byte(&im->in)))
        ;
    size_t n = 0;
    im->text_line = im->in.line;
    for (; c > ' ' && c < 0x7f; c = next_byte(&im->in)) {
        if (n + 1 >= sizeof im->text) {
            bad(im, "line %lu: a word longer than %zu bytes", im->text_line, sizeof im->text - 1);
            return -1;
        }
        im->text[n++] = (char)c;
    }
    im->text[n] = '\0';
    if (c >= 0 && !is_space(c)) {
        bad(im, NOT_A_CAPTURE ": line %lu is not text", im->in.line);
        return -1;
    }
    return n > 0;
}

/* ------------------------------------------------------------ samples */

/* The channel was at level at at_ns: an edge when that is a change. */
static bool sample(importer *im, uint64_t at_ns, int level)
{
    if (im->level >= 0 && at_ns < im->last_ns)
        return bad(im, "line %lu: the time goes back", im->text_line);
    if (im->level >= 0 && level != im->level)
        rts_edges_edge(&im->edges, at_ns, level);
    im->level = level;
    im->last_ns = at_ns;
    return true;
}

/* A samplerate as sigrok writes it ("200", "kHz") into the sample interval; false when it is none. */
static bool set_rate(importer *im, const char *number, const char *unit)
{
    static const struct { const char *unit; double hz; } units[] = {
        { "Hz", 1 }, { "kHz", 1e3 }, { "MHz", 1e6 }, { "GHz", 1e9 },
    };
    char *end;
    double value = strtod(number, &end);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (end != number && value > 0 && strcmp(unit, units[i].unit) == 0) {
            im->interval_ns = 1e9 / (value * units[i].hz);
            return true;
        }
    return false;
}

/* A time in the capture's unit, in ns. */
static uint64_t to_ns(const importer *im, double t) { return (uint64_t)llround(t * im->unit_ns); }

/* Add name to the capture's channel names shown when the channel is not found. */
static void add_name(importer *im, const char *name, size_t len)
{
    size_t used = strlen(im->names);
    snprintf(im->names + used, sizeof im->names - used, "%s%.*s", used ? ", " : "", (int)len, name);
}

static bool no_channel(importer *im)
{
    if (!im->names[0])
        return bad(im, NOT_A_CAPTURE ": it names no channels");
    return bad(im, "no channel %s in it (it has %s)", im->channel, im->names);
}

/* ------------------------------------------------------------------ CSV */

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
static void csv_comment(importer *im, csv_layout *lay)
{
    char number[32], unit[8];
    const char *list = strstr(im->text, "): ");
    if (sscanf(im->text, "; Samplerate: %31s %7s", number, unit) == 2)
        set_rate(im, number, unit);
    else if (strncmp(im->text, "; Channels (", 12) == 0 && list) {
        im->names[0] = '\0';
        size_t n;
        lay->channels = 0;
        for (const char *name = list + 3; *name; name += n + (name[n] == ',')) {
            name += strspn(name, " ");
            n = strcspn(name, ",");
            add_name(im, name, n);
            if (same(name, n, im->channel))
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
static bool csv_labels(importer *im, csv_layout *lay, bool *pending)
{
    size_t n;
    const char *label = csv_field(im->text, 0, &n);
    char *end;
    strtod(label, &end);
    *pending = n > 0 && end == label + n;
    if (*pending) { /* no labels: a time column when there is a field more than the channels */
        int fields = 0;
        while (csv_field(im->text, fields, &n))
            fields++;
        lay->time_column = fields == lay->channels + 1 ? 0 : -1;
        return true;
    }
    im->unit_ns = csv_time_unit(label, n);
    lay->time_column = im->unit_ns > 0 || same(label, n, "Time") || same(label, n, "samples") ? 0 : -1;
    bool named = false;
    for (int k = 0; (label = csv_field(im->text, k, &n)); k++) {
        if (!is_label(label, n))
            return bad(im, NOT_A_CAPTURE ": its line %lu is neither a sample nor column labels", im->text_line);
        named |= k > lay->time_column && !same(label, n, "logic");
        if (k > lay->time_column && same(label, n, im->channel))
            lay->column = k;
    }
    for (int k = lay->time_column + 1; named && !im->names[0] && (label = csv_field(im->text, k, &n)); k++)
        add_name(im, label, n);
    return true;
}

/* The line of sample number index (from 0). */
static bool csv_sample(importer *im, const csv_layout *lay, uint64_t index)
{
    size_t n;
    const char *v = csv_field(im->text, lay->column, &n);
    if (!v)
        return bad(im, "line %lu: no value of channel %s", im->text_line, im->channel);
    if (n != 1 || (*v != '0' && *v != '1'))
        return bad(im, "line %lu: '%.*s' is not a level (0 or 1) of channel %s", im->text_line, (int)(n < 20 ? n : 20),
                   v, im->channel);
    if (!lay->timed)
        return sample(im, (uint64_t)llround((double)index * im->interval_ns), *v - '0');
    const char *t = csv_field(im->text, 0, &n);
    char *end;
    double at = strtod(t, &end);
    if (end != t + n || at < 0)
        return bad(im, "line %lu: the time is not a number", im->text_line);
    return sample(im, to_ns(im, at), *v - '0');
}

/* How the CSV's columns are laid out, from its comments and labels; false
 * after failing the bench. *pending: the last line read is a sample. */
static bool csv_layout_read(importer *im, csv_layout *lay, bool *pending)
{
    int got;
    while ((got = next_line(im)) > 0 && (im->text[0] == ';' || !im->text[0]))
        csv_comment(im, lay);
    if (got < 0)
        return false;
    if (got == 0)
        return bad(im, "no samples in it");
    if (!csv_labels(im, lay, pending))
        return false;
    if (lay->column < 0 && lay->listed >= 0)
        lay->column = lay->listed + lay->time_column + 1;
    if (lay->column < 0)
        return no_channel(im);
    if (im->interval_ns <= 0 && (lay->time_column < 0 || im->unit_ns <= 0))
        return bad(im, "no samplerate in its header and no time column in a known unit: the times are unknown");
    lay->timed = im->interval_ns <= 0;
    if (lay->timed)
        im->interval_ns = im->unit_ns; /* the finest time the column can tell */
    return true;
}

static bool import_csv(importer *im)
{
    csv_layout lay = { .column = -1, .time_column = -1, .listed = -1 };
    bool pending = false;
    if (!csv_layout_read(im, &lay, &pending))
        return false;
    uint64_t index = 0;
    int got;
    if (pending && !csv_sample(im, &lay, index++))
        return false;
    while ((got = next_line(im)) > 0)
        if (im->text[0] && im->text[0] != ';' && !csv_sample(im, &lay, index++))
            return false;
    return got == 0;
}

/* ------------------------------------------------------------------ VCD */

/* Read the words of a $keyword ... $end section, calling on_word on each. */
static bool vcd_section(importer *im, void (*on_word)(importer *im, const char *prev, void *arg), void *arg)
{
    char prev[32] = ""; /* the word before, e.g. the number before a unit (cut) */
    int got;
    while ((got = next_word(im)) > 0 && strcmp(im->text, "$end") != 0) {
        if (on_word)
            on_word(im, prev, arg);
        snprintf(prev, sizeof prev, "%.*s", (int)sizeof prev - 1, im->text);
    }
    return got > 0 || (got == 0 && bad(im, "a section without its $end"));
}

/* $comment: sigrok's "... at 200 kHz" gives the samplerate. */
static void vcd_comment_word(importer *im, const char *prev, void *arg)
{
    (void)arg;
    set_rate(im, prev, im->text);
}

/* $timescale: "1 us" or "1us". */
static void vcd_timescale_word(importer *im, const char *prev, void *arg)
{
    static const struct { const char *unit; double ns; } units[] = {
        { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 }, { "ps", 1e-3 }, { "fs", 1e-6 },
    };
    (void)arg;
    char *end;
    double number = strtod(prev[0] ? prev : im->text, &end);
    const char *unit = prev[0] ? im->text : end;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].unit) == 0)
            im->unit_ns = number * units[i].ns;
}

/* $var: "wire 1 <id> <name> [bits]". The words come in that order. */
typedef struct {
    int word;
    bool one_bit;
    char id[VCD_ID_BYTES];
    char *found;             /* the channel's id */
} vcd_var;

static void vcd_var_word(importer *im, const char *prev, void *arg)
{
    (void)prev;
    vcd_var *v = arg;
    if (v->word == 1)
        v->one_bit = strcmp(im->text, "1") == 0;
    else if (v->word == 2)
        snprintf(v->id, sizeof v->id, "%.*s", VCD_ID_BYTES - 1, im->text);
    else if (v->word == 3) {
        add_name(im, im->text, strlen(im->text));
        if (v->one_bit && strcmp(im->text, im->channel) == 0)
            snprintf(v->found, sizeof v->id, "%.*s", VCD_ID_BYTES - 1, v->id);
    }
    v->word++;
}

/* The declarations, up to $enddefinitions: the channel's id into id. */
static bool vcd_header(importer *im, char id[VCD_ID_BYTES])
{
    int got;
    while ((got = next_word(im)) > 0 && strcmp(im->text, "$enddefinitions") != 0) {
        vcd_var var = { .found = id };
        bool ok = strcmp(im->text, "$var") == 0             ? vcd_section(im, vcd_var_word, &var)
                  : strcmp(im->text, "$timescale") == 0     ? vcd_section(im, vcd_timescale_word, NULL)
                  : strcmp(im->text, "$comment") == 0       ? vcd_section(im, vcd_comment_word, NULL)
                  : im->text[0] == '$'                      ? vcd_section(im, NULL, NULL)
                  : bad(im, NOT_A_CAPTURE ": '%.20s' at line %lu", im->text,
                        im->text_line);
        if (!ok)
            return false;
    }
    if (got <= 0)
        return got == 0 && bad(im, NOT_A_CAPTURE ": no $enddefinitions");
    if (im->unit_ns <= 0)
        return bad(im, "no $timescale in it");
    if (!id[0])
        return no_channel(im);
    if (im->interval_ns <= 0)
        im->interval_ns = im->unit_ns; /* the finest time a change can have */
    return vcd_section(im, NULL, NULL);
}

/* One word of the value changes. */
static bool vcd_change(importer *im, const char *id, uint64_t *at_ns)
{
    const char *w = im->text;
    if (w[0] == '#') {
        char *end;
        double t = strtod(w + 1, &end);
        if (end == w + 1 || *end || t < 0)
            return bad(im, "line %lu: '%.20s' is not a time", im->text_line, w);
        *at_ns = to_ns(im, t);
        return true;
    }
    if (strchr("01xXzZ", w[0]))
        return strcmp(w + 1, id) != 0 || w[0] > '1' || sample(im, *at_ns, w[0] - '0');
    if (strchr("bBrR", w[0])) /* a vector or a real: its id follows */
        return next_word(im) > 0 || bad(im, "line %lu: a value without its id", im->text_line);
    if (strcmp(w, "$comment") == 0)
        return vcd_section(im, NULL, NULL);
    if (w[0] == '$') /* $dumpvars and the like around changes, and their $end */
        return true;
    if (w[strlen(w) - 1] == ':') /* "A0: -10.0000 V DC": libsigrok 0.5.2 writes analog samples so */
        return bad(im, "line %lu: analog samples ('%.20s'): capture logic channels only (e.g. demo:analog_channels=0)",
                   im->text_line, w);
    return bad(im, "line %lu: '%.20s' is not a value change", im->text_line, w);
}

static bool import_vcd(importer *im)
{
    char id[VCD_ID_BYTES] = "";
    if (!vcd_header(im, id))
        return false;
    uint64_t at_ns = 0;
    int got;
    while ((got = next_word(im)) > 0)
        if (!vcd_change(im, id, &at_ns))
            return false;
    return got == 0;
}

/* ---------------------------------------------------------- live capture */

#define SLICE_NS 50000000ull         /* how often a capture looks at the stop flag */
#define STOP_GRACE_NS 1000000000ull  /* from SIGTERM to SIGKILL */

/* What a live capture is asked for: the bench's parameters. */
typedef struct {
    const char *driver, *config, *group, *format;
    double samples;
} live_plan;

/* A live capture: sigrok-cli writing into a temporary file of the port's
 * (gone with the probe, however it ends). */
typedef struct {
    rts_ctx *ctx;
    rts_tempfile *file;
    char name[RTS_MESSAGE_TEXT]; /* "sigrok-cli --driver demo", what messages name */
} live;

/* p, still running, asked to end, then killed with its group when it does not. */
static void proc_stop(rts_proc *p, int *status)
{
    rts_proc_signal(p, false);
    if (rts_proc_wait(p, STOP_GRACE_NS, status) == RTS_OK)
        return;
    rts_proc_signal(p, true);
    rts_proc_wait(p, RTS_FOREVER, status);
}

/* Remove the temporary file and release lv. */
static void live_close(live *lv)
{
    rts_tempfile_close(lv->file);
    rts_heap_free(lv);
}

/* sigrok-cli's arguments for plan into path (argv holds 16). Every
 * channel is captured: with a subset (--channels) libsigrok 0.5.2 writes
 * wrong data (probe/tests/data/README.md). --channel-group goes with
 * --config only, which it applies to (the demo's pattern is an option of
 * its Logic group; without --config sigrok-cli ignores it). VCD unless CSV
 * is asked for: VCD is written change by change, and with analog
 * channels on 0.5.2's CSV mixes their lines into the logic samples. */
static void sigrok_argv(const live_plan *plan, const char *path, char samples[24], const char *argv[16])
{
    int n = 0;
    snprintf(samples, 24, "%.0f", plan->samples);
    argv[n++] = "sigrok-cli";
    argv[n++] = "--driver";
    argv[n++] = plan->driver;
    if (plan->config[0] && plan->group[0]) {
        argv[n++] = "--channel-group";
        argv[n++] = plan->group;
    }
    if (plan->config[0]) {
        argv[n++] = "--config";
        argv[n++] = plan->config;
    }
    argv[n++] = "--samples";
    argv[n++] = samples;
    argv[n++] = "--output-format";
    argv[n++] = strcmp(plan->format, "csv") == 0 ? "csv:time=true" : "vcd";
    argv[n++] = "--output-file";
    argv[n++] = path;
    argv[n] = NULL;
}

/* Fail the bench for a capture that did not end well: stopped (by the
 * run's end or the user), or ended with a status. */
static void capture_failed(live *lv, rts_proc *p, bool ended, int status)
{
    const char *line = rts_proc_last_line(p);
    if (!ended && rts_stop_requested())
        rts_ctx_fail(lv->ctx, "%s: interrupted, the capture stopped", lv->name);
    else if (!ended)
        rts_ctx_fail(lv->ctx, "%s did not end within the run's %g s: stopped (fewer samples, or a longer --duration)",
                     lv->name, rts_ctx_planned_s(lv->ctx));
    else
        rts_ctx_fail(lv->ctx, "%s ended with exit status %d: %s%s%s", lv->name, status, line[0] ? "'" : "",
                     line[0] ? line : "nothing on its standard output (its reason is on standard error)",
                     line[0] ? "'" : "");
}

/* Capture with sigrok-cli into lv's file, within the run's duration; false
 * after failing the bench. Nothing of it runs on return. */
static bool capture(live *lv, const live_plan *plan)
{
    const char *argv[16];
    char samples[24], why[RTS_MESSAGE_TEXT];
    sigrok_argv(plan, rts_tempfile_path(lv->file), samples, argv);
    rts_proc *p;
    rts_proc_attr attr = { .argv = argv, .cpu = -1 };
    if (rts_proc_spawn(&p, &attr, why, sizeof why) != RTS_OK) {
        rts_ctx_fail(lv->ctx, "%s", why);
        return false;
    }
    int status = 0;
    bool ended = false;
    while (!ended && !rts_ctx_stopping(lv->ctx))
        ended = rts_proc_wait(p, SLICE_NS, &status) == RTS_OK;
    if (!ended)
        proc_stop(p, &status);
    if (!ended || status != 0)
        capture_failed(lv, p, ended, status);
    rts_proc_release(p);
    return ended && status == 0;
}

/* A live capture of plan, made in a temporary file (lv->file); NULL after
 * failing the bench, with nothing left running or behind. Release with live_close. */
static live *live_capture(rts_ctx *ctx, const live_plan *plan)
{
    live *lv = rts_heap_alloc(sizeof *lv);
    if (!lv) {
        rts_ctx_fail(ctx, "out of memory for a live capture");
        return NULL;
    }
    *lv = (live){ .ctx = ctx };
    snprintf(lv->name, sizeof lv->name, "sigrok-cli --driver %s", plan->driver);
    char why[RTS_MESSAGE_TEXT];
    if (rts_tempfile_create(&lv->file, why, sizeof why) != RTS_OK)
        rts_ctx_fail(ctx, "%s", why);
    if (!lv->file || !capture(lv, plan)) {
        live_close(lv);
        return NULL;
    }
    return lv;
}

/* ------------------------------------------------------------------ run */

/* The format the capture is in: as the parameter says, else VCD when its
 * first word is a $keyword; false after failing the bench (an empty file). */
static bool is_vcd(importer *im, const char *format, bool *vcd)
{
    int c;
    while (is_space(c = next_byte(&im->in)))
        ;
    if (c < 0)
        return im->in.failed || im->in.stopped || bad(im, "the file is empty");
    im->in.pos--; /* the byte is read again */
    *vcd = strcmp(format, "auto") == 0 ? c == '$' : strcmp(format, "vcd") == 0;
    return true;
}

/* What the analysis saw, on wave.period; false after failing the bench
 * when the capture holds no wave to judge. A period the capture cannot
 * resolve (under 4 sample intervals, as for wave.square's observer) is
 * measured, and marked invalid. */
static bool judge(importer *im, double period_us)
{
    const rts_edge_counts *c = &im->edges.counts;
    wave_metrics_check(&im->metrics, c, (uint64_t)llround(im->interval_ns), 0.0);
    if (im->level < 0)
        return bad(im, "no samples of channel %s in it", im->channel);
    if (c->edges_seen == 0)
        return bad(im, "no edges on channel %s: it stays %s", im->channel, im->level ? "high" : "low");
    if (c->periods_judged < 2)
        return bad(im, "%llu period%s on channel %s: a wave of at least 2 is needed",
                   (unsigned long long)c->periods_judged, c->periods_judged == 1 ? "" : "s", im->channel);
    if (period_us * 1000.0 < 4.0 * im->interval_ns)
        wave_metrics_invalidate(&im->metrics, "its sample interval of %.0f ns cannot resolve a period of %g us",
                                im->interval_ns, period_us);
    return true;
}

/* The capture read to its end (or the first thing wrong with it). */
static bool import(importer *im, const char *format)
{
    bool vcd = false, ok = is_vcd(im, format, &vcd) && (vcd ? import_vcd(im) : import_csv(im));
    if (im->in.failed)
        return bad(im, "the OS could not read it (line %lu)", im->in.line);
    if (im->in.stopped)
        return bad(im, "stopped at line %lu: the run ended first (a longer --duration gives it time)", im->in.line);
    return ok;
}

/* An importer of the capture at path (opened), named name in messages,
 * for channel; NULL after failing the bench. Release with importer_close. */
static importer *importer_open(rts_ctx *ctx, const char *path, const char *name, const char *channel)
{
    char why[RTS_MESSAGE_TEXT];
    rts_file *file;
    if (rts_file_open(&file, path, why, sizeof why) != RTS_OK) {
        rts_ctx_fail(ctx, "%s", why);
        return NULL;
    }
    importer *im = rts_heap_alloc(sizeof *im);
    if (!im) {
        rts_ctx_fail(ctx, "out of memory for the capture's reader");
        rts_file_close(file);
        return NULL;
    }
    *im = (importer){ .ctx = ctx, .path = name, .channel = channel, .level = -1,
                      .in = { .file = file, .ctx = ctx, .line = 1 } };
    return im;
}

static void importer_close(importer *im)
{
    rts_file_close(im->in.file);
    rts_heap_free(im);
}

/* The capture at path analysed; false after failing the bench. */
static bool analyse(rts_ctx *ctx, const char *path, const char *name)
{
    /* 1. The capture opened, the metrics made. */
    double period_us = rts_ctx_param(ctx, "period_us");
    importer *im = importer_open(ctx, path, name, rts_ctx_param_text(ctx, "channel"));
    if (!im)
        return false;
    bool ok = wave_metrics_make(ctx, &im->metrics, "capture", period_us);
    /* 2. Its samples through the edge analysis, as they are read. */
    if (ok) {
        rts_edges_init(&im->edges, im->metrics.nominal_ns, wave_metrics_add, &im->metrics);
        ok = import(im, rts_ctx_param_text(ctx, "format"));
    }
    /* 3. What the analysis saw. */
    ok = ok && judge(im, period_us);
    importer_close(im);
    return ok;
}

/* A live capture (a driver named) needs sigrok-cli, which the target may
 * not have; an import needs only the file the user names (missing: fails). */
static bool can_run(const rts_ctx *ctx, char *why, size_t whysize)
{
    if (!rts_ctx_param_text(ctx, "driver")[0])
        return true;
    if (!(rts_port_caps() & RTS_CAP_PROCESSES))
        snprintf(why, whysize, "a live capture runs sigrok-cli: this port cannot run programs");
    else if (!rts_proc_findable("sigrok-cli"))
        snprintf(why, whysize, "sigrok-cli is not installed: a live capture needs it (Debian: apt install sigrok-cli)");
    else
        return true;
    return false;
}

static int run(rts_ctx *ctx)
{
    const char *file = rts_ctx_param_text(ctx, "file");
    live_plan plan = { .driver = rts_ctx_param_text(ctx, "driver"), .config = rts_ctx_param_text(ctx, "config"),
                       .group = rts_ctx_param_text(ctx, "group"), .format = rts_ctx_param_text(ctx, "format"),
                       .samples = rts_ctx_param(ctx, "samples") };
    if (!plan.driver[0]) {
        if (!file[0])
            rts_ctx_fail(ctx, "name the capture (--param file=PATH) or a driver to capture live (--param driver=demo)");
        return file[0] && analyse(ctx, file, file) ? 0 : 1;
    }
    if (file[0]) {
        rts_ctx_fail(ctx, "file and driver both given: import a capture (file) or capture live (driver), not both");
        return 1;
    }
    live *lv = live_capture(ctx, &plan);
    if (!lv)
        return 1;
    bool ok = analyse(ctx, rts_tempfile_path(lv->file), lv->name);
    live_close(lv);
    return ok ? 0 : 1;
}

static const rts_param_decl params[] = {
    RTS_PARAM_TEXT("file", "", "the capture: sigrok-cli -O csv (rows are samples) or -O vcd"),
    RTS_PARAM_TEXT("channel", "D0", "the channel of the wave, by its sigrok name"),
    { "period_us", "1000", 0.01, 1e7, false, "the wave's nominal period in microseconds" },
    RTS_PARAM_CHOICE("format", "auto", "auto,csv,vcd",
                     "the capture's format; auto: VCD when it begins with $ (a live capture: VCD unless csv)"),
    RTS_PARAM_TEXT("driver", "",
                   "capture live with sigrok-cli --driver this (e.g. demo:analog_channels=0); \"\": import file"),
    RTS_PARAM_TEXT("config", "", "a live capture's sigrok-cli --config (e.g. pattern=incremental); \"\": none"),
    RTS_PARAM_TEXT("group", "Logic",
                   "the channel group --config applies to (sigrok-cli --channel-group); \"\": the device's"),
    { "samples", "1000", 1, 1e12, true, "how many samples a live capture takes (sigrok-cli --samples)" },
};

RTS_BENCH_DEFINE(rts_bench_wave_import) = {
    .id = "wave.import",
    .summary = "a square wave captured by a logic analyzer (sigrok-cli CSV or VCD), judged edge by edge",
    .metrics = wave_metric_ids,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_FILES,
    .can_run = can_run,
    .run = run,
};
