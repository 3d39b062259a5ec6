/*
 * wave.import's parsers (bench/wave_capture.h) on captures written here as
 * sigrok-cli writes them: the edges of one channel, at their times, through
 * the one edge callback; the sample interval; the format found by its first
 * word; and what is wrong with a capture that is not right, in one line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "wave_capture.h"

typedef struct {
    uint64_t at_ns[64];
    int level[64];
    int count;
} edges_seen;

static void record(void *arg, uint64_t at_ns, int level)
{
    edges_seen *e = arg;
    if (e->count < 64) {
        e->at_ns[e->count] = at_ns;
        e->level[e->count] = level;
    }
    e->count++;
}

static bool stop_now(void *arg)
{
    (void)arg;
    return true;
}

/* Read text as a capture of channel in format; the edges into seen, the
 * capture's state into c. */
static bool parse(const char *text, const char *channel, const char *format, edges_seen *seen, capture *c,
                  bool (*stopping)(void *arg))
{
    char path[] = "/tmp/rtscope-test-capture-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        perror("capture file");
        exit(1);
    }
    close(fd);
    rts_file *f;
    char why[200];
    if (rts_file_open(&f, path, why, sizeof why) != RTS_OK) {
        fprintf(stderr, "%s\n", why);
        exit(1);
    }
    memset(seen, 0, sizeof *seen);
    capture_init(c, f, channel, record, seen, stopping, NULL);
    bool ok = capture_read(c, format);
    rts_file_close(f);
    unlink(path);
    return ok;
}

/* The wave of tests/data/README.md's square captures, on D1: rises at 5,
 * 15, 25, 36, 45 µs, falls at 10, 20, 30, 40 µs. */
static const uint64_t square_us[] = { 5, 10, 15, 20, 25, 30, 36, 40, 45 };

static void check_square(const char *what, const edges_seen *seen)
{
    CHECK(seen->count == 9, "%s: 9 edges, not %d", what, seen->count);
    for (int i = 0; i < 9 && i < seen->count; i++)
        CHECK(seen->at_ns[i] == square_us[i] * 1000u && seen->level[i] == (i % 2 == 0),
              "%s: edge %d at %llu ns to %d", what, i, (unsigned long long)seen->at_ns[i], seen->level[i]);
}

/* The square wave as CSV rows of 1 µs, D0 low, D1 the wave; each row
 * prefixed with its time in µs when timed. */
static void square_csv(char *out, size_t size, const char *header, bool timed)
{
    size_t used = (size_t)snprintf(out, size, "%s", header);
    int level = 0;
    size_t next = 0;
    for (int us = 0; us < 48; us++) {
        if (next < sizeof square_us / sizeof square_us[0] && (uint64_t)us == square_us[next]) {
            level = !level;
            next++;
        }
        used += timed ? (size_t)snprintf(out + used, size - used, "%d,0,%d\n", us, level)
                      : (size_t)snprintf(out + used, size - used, "0,%d\n", level);
    }
}

static void test_csv(void)
{
    char text[4096];
    edges_seen seen;
    capture c;
    square_csv(text, sizeof text, "; Channels (2/8): D0, D1\n; Samplerate: 1 MHz\nD0,D1\n", false);
    CHECK(parse(text, "D1", "auto", &seen, &c, NULL), "%s", c.why);
    check_square("csv by samplerate", &seen);
    CHECK(c.interval_ns == 1000.0, "the sample interval: %g", c.interval_ns);
    CHECK(parse(text, "D0", "csv", &seen, &c, NULL) && seen.count == 0 && c.level == 0, "D0 stays low: %s", c.why);

    square_csv(text, sizeof text, "; Channels (2/8): D0, D1\nmicroseconds,logic,logic\n", true);
    CHECK(parse(text, "D1", "auto", &seen, &c, NULL), "%s", c.why);
    check_square("csv by its time column", &seen);
    CHECK(c.interval_ns == 1000.0, "the time column's unit: %g", c.interval_ns);

    square_csv(text, sizeof text, "; Channels (2/8): D0, D1\n; Samplerate: 1 MHz\n", true);
    CHECK(parse(text, "D1", "auto", &seen, &c, NULL), "no labels (label=off): %s", c.why);
    check_square("csv without labels", &seen);

    square_csv(text, sizeof text, "; Channels (2/8): D0, D1\n; Samplerate: 1 MHz\nD0,D1\n", false);
    CHECK(!parse(text, "D7", "auto", &seen, &c, NULL) && strcmp(c.why, "no channel D7 in it (it has D0, D1)") == 0,
          "%s", c.why);
    CHECK(!parse("; Channels (1/8): D0\nmicroseconds,logic\n5,0\n4,1\n", "D0", "auto", &seen, &c, NULL) &&
              strcmp(c.why, "line 4: the time goes back") == 0,
          "%s", c.why);
    CHECK(!parse("; Samplerate: 1 MHz\nD0\n0\n2\n", "D0", "auto", &seen, &c, NULL) &&
              strcmp(c.why, "line 4: '2' is not a level (0 or 1) of channel D0") == 0,
          "%s", c.why);
    CHECK(!parse("; Channels (1/8): D0\nD0\n0\n1\n", "D0", "auto", &seen, &c, NULL) &&
              strstr(c.why, "no samplerate in its header"),
          "%s", c.why);
    CHECK(!parse("Dear colleague, the wave is attached.\n", "D0", "auto", &seen, &c, NULL) &&
              strstr(c.why, CAPTURE_NOT_A_CAPTURE),
          "a letter: %s", c.why);
}

static void test_vcd(void)
{
    const char *square = "$date a hand-made wave $end\n$comment\n  Acquisition with 2/8 channels at 1 MHz\n$end\n"
                         "$timescale 100 ns $end\n$scope module libsigrok $end\n$var wire 1 ! D0 $end\n"
                         "$var wire 1 \" D1 $end\n$upscope $end\n$enddefinitions $end\n"
                         "#0 0! 0\"\n#50 1\"\n#100 0\"\n#150 1\"\n#200 0\"\n#250 1\"\n#300 0\"\n#360 1\"\n"
                         "#400 0\"\n#450 1\"\n#480\n";
    edges_seen seen;
    capture c;
    CHECK(parse(square, "D1", "auto", &seen, &c, NULL), "%s", c.why);
    check_square("vcd", &seen);
    CHECK(c.interval_ns == 1000.0 && c.unit_ns == 100.0, "the samplerate's interval %g, the timescale %g",
          c.interval_ns, c.unit_ns);
    CHECK(!parse(square, "D5", "vcd", &seen, &c, NULL) && strcmp(c.why, "no channel D5 in it (it has D0, D1)") == 0,
          "%s", c.why);
    CHECK(!parse("$var wire 1 ! D0 $end\n$enddefinitions $end\n#0 0!\n", "D0", "auto", &seen, &c, NULL) &&
              strcmp(c.why, "no $timescale in it") == 0,
          "%s", c.why);
    CHECK(!parse("$timescale 1 us $end\n$var wire 1 ! D0 $end\n$enddefinitions $end\n#0 0!\nA0: -10.0000 V DC\n",
                 "D0", "auto", &seen, &c, NULL) &&
              strstr(c.why, "analog samples"),
          "%s", c.why);
    CHECK(!parse("$timescale 1 us $end\n$var wire 1 ! D0 $end\n$enddefinitions $end\n#5 0!\n#3 1!\n", "D0", "auto",
                 &seen, &c, NULL) &&
              strstr(c.why, "the time goes back"),
          "%s", c.why);
}

static void test_reading(void)
{
    edges_seen seen;
    capture c;
    CHECK(!parse("  \n", "D0", "auto", &seen, &c, NULL) && strcmp(c.why, "the file is empty") == 0, "%s", c.why);
    CHECK(!parse("; Samplerate: 1 MHz\nD0\n0\n1\n", "D0", "auto", &seen, &c, stop_now) && c.stopped &&
              strstr(c.why, "stopped at line 1: the run ended first"),
          "a stop is said as one: %s", c.why);
}

int main(void)
{
    test_csv();
    test_vcd();
    test_reading();
    return check_report("capture parsers");
}
