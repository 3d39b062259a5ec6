/*
 * The run's output through the port's sink, on this host (POSIX: it lists
 * a directory): a published document appears whole, and a failed one
 * leaves nothing behind, not even its temporary.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "output.h"

static rts_run_request req;
static rts_run run;
static char dir[] = "/tmp/rtscope-test-output-XXXXXX";

/* Entries of dir besides . and .. */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

/* Diagnostics off while a failure the test provokes is reported. */
static int quiet_stderr(void)
{
    fflush(stderr);
    int saved = dup(2);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(null);
    return saved;
}

static void restore_stderr(int saved)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

static void test_published_whole(void)
{
    char path[256], text[64] = "";
    snprintf(path, sizeof path, "%s/result.json", dir);
    rts_output o;
    CHECK(rts_output_open(&o, path), "output opened");
    rts_output_started(&run, &o);
    CHECK(rts_output_publish(&run, &o), "published");
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    CHECK(strncmp(text, "{\n  \"format\": \"rtscope-result\",\n  \"version\": 4,", 46) == 0, "document: %s", text);
    CHECK(entries() == 1, "only the document in the directory: %d entries", entries());
    remove(path);
}

/* The destination is a directory: the rename fails at commit, and the
 * temporary written beside it is removed. */
static void test_failed_commit_leaves_nothing(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/taken", dir);
    mkdir(path, 0700);
    rts_output o;
    CHECK(rts_output_open(&o, path), "output opened beside a directory");
    rts_output_started(&run, &o);
    int saved = quiet_stderr();
    bool published = rts_output_publish(&run, &o);
    restore_stderr(saved);
    CHECK(!published, "publishing over a directory fails");
    CHECK(entries() == 1, "no temporary left: %d entries", entries());
    rmdir(path);
}

static void test_open_refused(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/missing/result.json", dir);
    rts_output o;
    int saved = quiet_stderr();
    bool opened = rts_output_open(&o, path);
    restore_stderr(saved);
    CHECK(!opened && entries() == 0, "a destination in a missing directory is refused at open");
}

/* A destination that is not a regular file (here a FIFO; /dev/null alike) is
 * written through, never renamed over: it is still a FIFO afterwards. */
static void test_a_fifo_stays_a_fifo(void)
{
    char path[256], text[64] = "";
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0, "fifo made");
    int reader = open(path, O_RDONLY | O_NONBLOCK);
    rts_output o;
    CHECK(rts_output_open(&o, path), "output opened");
    rts_output_started(&run, &o);
    CHECK(rts_output_publish(&run, &o), "published");
    ssize_t n = read(reader, text, sizeof text - 1);
    close(reader);
    struct stat st;
    CHECK(n > 0 && strncmp(text, "{", 1) == 0, "the document came through the fifo");
    CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "still a fifo");
    CHECK(entries() == 1, "no temporary file beside it: %d entries", entries());
    unlink(path);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    fixture_run(&run, &req);
    req.quiet = true; /* no summary on the console */
    rts_metric_add(fixture_metric(&run, "fix.time", RTS_UNIT_NS, 1), 1234);
    test_published_whole();
    test_failed_commit_leaves_nothing();
    test_open_refused();
    test_a_fifo_stays_a_fifo();
    rmdir(dir);
    return check_report("test_output");
}
