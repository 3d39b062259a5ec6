/*
 * The port's contract for reading files (rts_file_*, rtscope/port.h):
 * chunks of the caller's size, whole until the end, then nothing; a
 * missing file refused with one line naming it; a setting written whole
 * over a file's content (rts_file_write_text). Skipped without
 * RTS_CAP_FILES.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rtscope/port.h"

static const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz\n";

/* A temporary file holding text, its path in path. */
static bool make_file(char *path)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
    close(fd);
    return ok;
}

static void test_reads_in_chunks(void)
{
    char path[] = "/tmp/rtscope-test-file-XXXXXX", why[128] = "";
    CHECK(make_file(path), "temporary file made");
    rts_file *f;
    CHECK(rts_file_open(&f, path, why, sizeof why) == RTS_OK && f, "opened: %s", why);
    char got[sizeof text] = "";
    size_t n, total = 0, reads = 0;
    for (; f && rts_file_read(f, got + total, 7, &n) == RTS_OK && n > 0; reads++) {
        CHECK(n == 7 || total + n == sizeof text - 1, "short read only at the end (%zu at %zu)", n, total);
        total += n;
    }
    CHECK(total == sizeof text - 1 && memcmp(got, text, total) == 0, "read whole: %zu bytes", total);
    CHECK(reads == 6, "37 bytes in chunks of 7: 6 reads, not %zu", reads);
    CHECK(f && rts_file_read(f, got, 7, &n) == RTS_OK && n == 0, "nothing after the end");
    rts_file_close(f);
    rts_file_close(NULL);
    unlink(path);
}

static void test_missing_file(void)
{
    char why[128] = "";
    rts_file *f = (rts_file *)1;
    CHECK(rts_file_open(&f, "/nonexistent/capture.csv", why, sizeof why) != RTS_OK && !f, "refused");
    CHECK(strcmp(why, "cannot open /nonexistent/capture.csv: No such file or directory") == 0, "why: %s", why);
}

static void test_write_text(void)
{
    char path[] = "/tmp/rtscope-test-file-XXXXXX", why[160] = "", got[64] = "";
    CHECK(make_file(path), "temporary file made");
    CHECK(rts_file_write_text(path, "timerlat", why, sizeof why) == RTS_OK, "written: %s", why);
    rts_file *f;
    size_t n = 0;
    CHECK(rts_file_open(&f, path, why, sizeof why) == RTS_OK && rts_file_read(f, got, sizeof got, &n) == RTS_OK,
          "read back: %s", why);
    rts_file_close(f);
    CHECK(n == 8 && memcmp(got, "timerlat", 8) == 0, "truncated and replaced: %zu bytes", n);
    unlink(path);
    CHECK(rts_file_write_text("/nonexistent/tracing_on", "1", why, sizeof why) == RTS_EFAIL, "refused");
    CHECK(strcmp(why, "cannot write 1 to /nonexistent/tracing_on: No such file or directory") == 0, "why: %s", why);
}

int main(void)
{
    if (!(rts_port_caps() & RTS_CAP_FILES)) {
        printf("test_port_file: skipped (no RTS_CAP_FILES)\n");
        return 0;
    }
    test_reads_in_chunks();
    test_missing_file();
    test_write_text();
    return check_report("test_port_file");
}
