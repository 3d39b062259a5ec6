/*
 * Tracefs settings saved and put back (bench/tracefs.h, through the port's
 * system settings, rts_setting_write): a fake tracefs in a temporary
 * directory, its files holding what the kernel's show — a choice list, a
 * ring buffer's unexpanded size, a CPU list — each set and then put back,
 * newest first, to the value it had, in the form the kernel takes; a
 * setting changed twice goes back to its first value. (How the process's
 * other ends put them back: test_settings.c.)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tracefs.h"

static char dir[] = "/tmp/rtscope-test-tracefs-XXXXXX";

static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void read_back(const char *name, char *got, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    got[0] = '\0';
    tracefs_read_small(path, got, size);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    put("trace_clock", "[local] global counter uptime perf mono mono_raw boot\n");
    put("buffer_size_kb", "7 (expanded: 1408)\n");
    put("current_tracer", "function\n");
    put("cpus", "0-1\n");
    char why[256] = "", got[128];
    unsigned mark = rts_settings_mark();
    CHECK(tracefs_set(dir, "trace_clock", "mono", why, sizeof why), "%s", why);
    CHECK(tracefs_set(dir, "buffer_size_kb", "1024", why, sizeof why), "%s", why);
    CHECK(tracefs_set(dir, "current_tracer", "nop", why, sizeof why), "%s", why);
    CHECK(tracefs_set(dir, "current_tracer", "timerlat", why, sizeof why), "%s", why);
    CHECK(tracefs_set(dir, "cpus", "1", why, sizeof why), "%s", why);
    CHECK(rts_settings_mark() == mark + 4, "four settings saved, each once: %u", rts_settings_mark() - mark);
    read_back("current_tracer", got, sizeof got);
    CHECK(strcmp(got, "timerlat") == 0, "set: %s", got);
    CHECK(!tracefs_set(dir, "missing", "1", why, sizeof why) && strstr(why, "cannot read it"),
          "a setting that cannot be read is not changed: %s", why);
    CHECK(rts_settings_restore(mark, why, sizeof why), "%s", why);
    const char *const expected[][2] = {
        { "trace_clock", "local" },
        { "buffer_size_kb", "1408" },
        { "current_tracer", "function" },
        { "cpus", "0-1" },
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        read_back(expected[i][0], got, sizeof got);
        CHECK(strcmp(got, expected[i][1]) == 0, "%s put back to %s, not %s", expected[i][0], expected[i][1], got);
    }
    CHECK(rts_settings_mark() == mark, "nothing left to put back");
    /* A setting that cannot be put back is named; the others go back all the same. */
    CHECK(tracefs_set(dir, "cpus", "1", why, sizeof why), "%s", why);
    CHECK(tracefs_set(dir, "trace_clock", "mono", why, sizeof why), "%s", why);
    char path[256];
    snprintf(path, sizeof path, "%s/trace_clock", dir);
    unlink(path);
    mkdir(path, 0700);
    CHECK(!rts_settings_restore(mark, why, sizeof why) && strstr(why, "trace_clock not put back to local"), "%s",
          why);
    read_back("cpus", got, sizeof got);
    CHECK(strcmp(got, "0-1") == 0, "the other put back: %s", got);
    rmdir(path);
    const char *const names[] = { "buffer_size_kb", "current_tracer", "cpus" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    return check_report("tracefs");
}
