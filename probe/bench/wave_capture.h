/*
 * A logic analyzer's capture of a wave, as sigrok-cli 0.7 writes it, read
 * into one channel's edges: wave.import's parsers, one file per format
 * (wave_capture_csv.c, wave_capture_vcd.c) over the reading they share
 * (wave_capture.c). Each edge goes to one callback, as it is read; nothing
 * is kept per sample or edge, and the file is read in chunks through the
 * port. Nothing here knows the bench: what is wrong is one line in why.
 *
 * Formats:
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
 * samplerate of its $comment, else its timescale).
 */
#ifndef RTSCOPE_WAVE_CAPTURE_H
#define RTSCOPE_WAVE_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtscope/port.h"

#define CAPTURE_CHUNK_BYTES 4096
#define CAPTURE_LINE_BYTES 1024   /* the longest CSV line or VCD token, with its NUL */
#define CAPTURE_NAMES_BYTES 96    /* the channels a capture has, for a message */
#define CAPTURE_WHY_BYTES RTS_MESSAGE_TEXT
#define CAPTURE_NOT_A_CAPTURE "not a capture of sigrok-cli (-O csv or -O vcd)"

/* The channel changed to level (0 or 1) at at_ns from the capture's start. */
typedef void (*capture_edge_fn)(void *arg, uint64_t at_ns, int level);

typedef struct {
    /* Given (capture_init). */
    rts_file *file;
    const char *channel;
    capture_edge_fn edge;
    void *edge_arg;
    bool (*stopping)(void *arg); /* whether to stop reading, asked once a chunk; NULL: never */
    void *stop_arg;
    /* What was read. */
    int level;                   /* the channel's level in the last sample; -1 before the first */
    uint64_t last_ns;            /* time of the last sample */
    double interval_ns;          /* the sample interval; 0: unknown */
    double unit_ns;              /* the capture's unit of time (a CSV time column's, a VCD's timescale); 0: unknown */
    bool failed;                 /* the OS could not read it */
    bool stopped;                /* stopping said so */
    unsigned long line;          /* the line being read, from 1 */
    char why[CAPTURE_WHY_BYTES]; /* the first thing wrong with it */
    /* The parsers' reading. */
    char chunk[CAPTURE_CHUNK_BYTES];
    size_t pos, len;
    char names[CAPTURE_NAMES_BYTES]; /* the capture's channels, for a message */
    char text[CAPTURE_LINE_BYTES];   /* the line or word being read */
    unsigned long text_line;         /* its line, from 1 */
} capture;

/* Start reading file (open) for channel, each edge to edge(edge_arg, ...). */
void capture_init(capture *c, rts_file *file, const char *channel, capture_edge_fn edge, void *edge_arg,
                  bool (*stopping)(void *arg), void *stop_arg);

/* Read the capture to its end in format ("auto": VCD when its first word is
 * a $keyword, else CSV; "csv"; "vcd"): false with one line in c->why at the
 * first thing wrong, the OS's failing to read it or a stop. */
bool capture_read(capture *c, const char *format);

/* The two parsers (capture_read picks one). */
bool capture_read_csv(capture *c);
bool capture_read_vcd(capture *c);

/* For the parsers (wave_capture.c). */
int capture_next_byte(capture *c);   /* -1 at the end, a read error or a stop */
int capture_next_line(capture *c);   /* into c->text: 1, 0 at the end, -1 after capture_bad */
int capture_next_word(capture *c);   /* the same, a word between white space */
bool capture_is_space(int c);
bool capture_bad(capture *c, const char *fmt, ...) __attribute__((format(printf, 2, 3))); /* false */
bool capture_sample(capture *c, uint64_t at_ns, int level); /* an edge when level changed */
bool capture_set_rate(capture *c, const char *number, const char *unit); /* "200", "kHz" */
uint64_t capture_to_ns(const capture *c, double t);                     /* t in the capture's unit */
void capture_add_name(capture *c, const char *name, size_t len);
bool capture_no_channel(capture *c); /* false */

#endif
