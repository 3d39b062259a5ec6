/*
 * System settings put back (rtscope/port.h, port/posix/settings_posix.c)
 * over a fake root: a temporary directory whose files stand for a setting
 * (sched_rt_runtime_us's "950000") and a tracefs instance made in it. Each
 * way a process can end is a child that changes them and ends that way —
 * the run's end (rts_settings_restore), exit, the watchdog's end
 * (rts_process_end), a second stop request, a crash, an abort, a lost
 * reader (SIGPIPE) — and the
 * parent reads every setting before and after. Nested marks put back a
 * bench's own and leave the run's.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "rtscope/port.h"

static char root[] = "/tmp/rtscope-test-settings-XXXXXX";
static char runtime[256], clock_path[256], instance[256];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void read_back(const char *path, char *got, size_t size)
{
    got[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(got, 1, size - 1, f);
        got[n] = '\0';
        fclose(f);
    }
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Change the three settings as a run does: the run's, then a bench's. */
static void change_all(void)
{
    char why[200];
    if (rts_setting_write(runtime, "-1", why, sizeof why) != RTS_OK ||
        rts_setting_dir_make(instance, why, sizeof why) != RTS_OK ||
        rts_setting_write(clock_path, "mono", why, sizeof why) != RTS_OK) {
        fprintf(stderr, "child: %s\n", why);
        _exit(3);
    }
}

typedef enum { END_EXIT, END_PROCESS_END, END_SECOND_STOP, END_CRASH, END_ABORT, END_LOST_READER } ending;

static const char *const ending_names[] = { "exit",    "the watchdog's end", "a second stop request",
                                             "a crash", "an abort",           "a lost reader (SIGPIPE)" };

/* In a child: change the settings, then end the way asked. */
static void child(ending how)
{
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core); /* a crash on purpose leaves no core file */
    rts_stop_requests_catch();
    change_all();
    switch (how) {
    case END_EXIT:
        exit(0);
    case END_PROCESS_END:
        rts_process_end(1);
    case END_SECOND_STOP:
        raise(SIGINT);
        raise(SIGINT);
        break;
    case END_CRASH:
        raise(SIGSEGV);
        break;
    case END_ABORT:
        abort();
    case END_LOST_READER: {
        int ends[2];
        if (pipe(ends) == 0) {
            close(ends[0]);
            (void)!write(ends[1], "x", 1);
        }
        break;
    }
    }
    _exit(4); /* not ended as asked */
}

static void check_put_back(const char *how)
{
    char got[64];
    read_back(runtime, got, sizeof got);
    CHECK(strcmp(got, "950000") == 0, "after %s: sched_rt_runtime_us put back, not %s", how, got);
    read_back(clock_path, got, sizeof got);
    CHECK(strcmp(got, "local") == 0, "after %s: trace_clock put back, not %s", how, got);
    CHECK(!is_dir(instance), "after %s: the instance removed", how);
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(runtime, sizeof runtime, "%s/sched_rt_runtime_us", root);
    snprintf(clock_path, sizeof clock_path, "%s/trace_clock", root);
    snprintf(instance, sizeof instance, "%s/rtscope", root);
    put(runtime, "950000\n");
    put(clock_path, "[local] global counter uptime perf mono\n");

    /* The run's end, with a bench's mark inside the run's. */
    char why[200] = "", got[64];
    unsigned run_mark = rts_settings_mark();
    CHECK(rts_setting_write(runtime, "-1", why, sizeof why) == RTS_OK, "%s", why);
    unsigned bench_mark = rts_settings_mark();
    CHECK(rts_setting_dir_make(instance, why, sizeof why) == RTS_OK && is_dir(instance), "%s", why);
    CHECK(rts_setting_write(clock_path, "mono", why, sizeof why) == RTS_OK, "%s", why);
    read_back(runtime, got, sizeof got);
    CHECK(strcmp(got, "-1") == 0, "changed: %s", got);
    CHECK(rts_settings_restore(bench_mark, why, sizeof why), "%s", why);
    read_back(clock_path, got, sizeof got);
    CHECK(strcmp(got, "local") == 0 && !is_dir(instance), "the bench's put back: %s", got);
    read_back(runtime, got, sizeof got);
    CHECK(strcmp(got, "-1") == 0, "the run's left until the run ends: %s", got);
    CHECK(rts_settings_restore(run_mark, why, sizeof why), "%s", why);
    check_put_back("the run's end");
    CHECK(rts_settings_mark() == run_mark, "nothing left to put back: %u", rts_settings_mark());

    /* A directory that cannot be removed is named. */
    CHECK(rts_setting_dir_make(instance, why, sizeof why) == RTS_OK, "%s", why);
    char inside[300];
    snprintf(inside, sizeof inside, "%s/left", instance);
    put(inside, "");
    CHECK(!rts_settings_restore(run_mark, why, sizeof why) && strstr(why, "not removed"), "%s", why);
    unlink(inside);
    rmdir(instance);

    for (ending how = END_EXIT; how <= END_LOST_READER; how++) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0)
            child(how);
        int status = 0;
        waitpid(pid, &status, 0);
        bool ended = how == END_EXIT          ? WIFEXITED(status) && WEXITSTATUS(status) == 0
                     : how == END_PROCESS_END ? WIFEXITED(status) && WEXITSTATUS(status) == 1
                     : how == END_SECOND_STOP ? WIFSIGNALED(status) && WTERMSIG(status) == SIGINT
                     : how == END_CRASH       ? WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV
                     : how == END_ABORT       ? WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT
                                              : WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE;
        CHECK(ended, "the child ended by %s (status 0x%x)", ending_names[how], (unsigned)status);
        check_put_back(ending_names[how]);
    }

    unlink(runtime);
    unlink(clock_path);
    rmdir(root);
    return check_report("settings");
}
