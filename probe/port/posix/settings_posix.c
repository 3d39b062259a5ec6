/*
 * POSIX port: the system settings the probe changes, saved before their
 * first change and put back newest first (contract in rtscope/port.h). One
 * table for the process, so that every way it can end finds them: the
 * run's end (rts_settings_restore), exit (atexit), the watchdog's end
 * (rts_process_end), a second stop request, a crash or another signal
 * that ends it (signal handlers).
 * Those last paths put them back with open, write, close, rmdir and
 * nanosleep only, which are async-signal-safe; an entry is filled before it is counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtscope/port.h"

void rts_posix_settings_restore_now(void); /* output_posix.c, port_posix.c */
void rts_posix_files_let_go_here(void);    /* file_posix.c */

/* A run changes a few: RT throttling, lat.timerlat's eight, an instance. */
#define SETTINGS_MAX 24

typedef struct {
    char path[192];
    char before[64];
    bool dir; /* a directory made: removed, not written */
} saved_setting;

static saved_setting saved[SETTINGS_MAX];
static volatile sig_atomic_t saved_count;
static pthread_mutex_t saving = PTHREAD_MUTEX_INITIALIZER;

/* A directory still in use (a tracefs instance whose trace another thread
 * is reading, when a second stop request ends the process) is tried again,
 * every millisecond for this long: that thread lets the file go at its next
 * chunk (rts_posix_ending), but a loaded machine may not run it at once. */
#define DIR_BUSY_TRIES 2000

/* Set when the process ends while settings may still be changed. */
static volatile sig_atomic_t ending;

bool rts_posix_ending(void) { return ending != 0; }

/* Put s back, as a signal handler may: false with errno. */
static bool put_back(const saved_setting *s)
{
    if (s->dir) {
        for (int tries = 1; rmdir(s->path) != 0; tries++) {
            if (errno == ENOENT)
                return true;
            if (errno != EBUSY || tries == DIR_BUSY_TRIES)
                return false;
            struct timespec ms = { 0, 1000000 };
            nanosleep(&ms, NULL);
        }
        return true;
    }
    int fd;
    do
        fd = open(s->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return false;
    size_t n = strlen(s->before);
    ssize_t wrote;
    do
        wrote = write(fd, s->before, n);
    while (wrote < 0 && errno == EINTR);
    int error = wrote < 0 ? errno : EIO;
    close(fd);
    errno = error;
    return wrote == (ssize_t)n;
}

void rts_posix_settings_restore_now(void)
{
    ending = 1;
    rts_posix_files_let_go_here();
    for (int i = saved_count - 1; i >= 0; i--) {
        saved_count = i;
        put_back(&saved[i]);
    }
}

static void restore_at_exit(void) { rts_posix_settings_restore_now(); }

/* A signal that ends the process by default (a crash, a lost reader, a
 * CPU limit): the settings back, then the default action. */
static void on_fatal(int sig)
{
    rts_posix_settings_restore_now();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Once, before the first setting changes: the paths that end the process
 * without the run's end put them back too. */
static bool guard(char *why, size_t whysize)
{
    static bool guarded;
    if (guarded)
        return true;
    if (atexit(restore_at_exit) != 0) {
        snprintf(why, whysize, "cannot register putting back the system settings at exit");
        return false;
    }
    /* SIGINT, SIGTERM and SIGHUP are stop requests (port_posix.c); SIGUSR1
     * and the real-time signals are the port's interrupts. */
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS,
                                 SIGTRAP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ };
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(fatal[i], &sa, NULL);
    }
    guarded = true;
    return true;
}

/* The value read, in the form it is written back (rtscope/port.h). */
static void value_to_write(const char *read, char *value, size_t size)
{
    const char *open_at = strchr(read, '[');
    const char *expanded = strstr(read, "(expanded: ");
    size_t n;
    if (open_at && strchr(open_at, ']')) {
        read = open_at + 1;
        n = (size_t)(strchr(read, ']') - read);
    } else if (expanded) {
        read = expanded + strlen("(expanded: ");
        n = strcspn(read, ")");
    } else {
        n = strcspn(read, "\n");
    }
    if (n >= size)
        n = size - 1;
    memcpy(value, read, n);
    value[n] = '\0';
}

/* Whether path is saved already. */
static bool known(const char *path)
{
    for (int i = 0; i < saved_count; i++)
        if (strcmp(saved[i].path, path) == 0)
            return true;
    return false;
}

/* Save path (its value before, or that it is a directory made) as the
 * newest entry; false with one line in why. Called holding saving. */
static bool save(const char *path, bool dir, char *why, size_t whysize)
{
    if (known(path))
        return true;
    if (saved_count == SETTINGS_MAX) {
        snprintf(why, whysize, "%s: more system settings than the %d a run can put back", path, SETTINGS_MAX);
        return false;
    }
    if (strlen(path) >= sizeof saved[0].path) {
        /* Its head only: the path is known to be long (and an unbounded %s trips 32-bit gcc's check). */
        snprintf(why, whysize, "%.100s…: a path too long to put it back", path);
        return false;
    }
    if (!guard(why, whysize))
        return false;
    saved_setting *s = &saved[saved_count];
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    s->dir = dir;
    if (!dir) {
        rts_file *f;
        char read[256], failed[160];
        size_t got = 0;
        rts_status st = rts_file_open(&f, path, failed, sizeof failed);
        if (st == RTS_OK) {
            st = rts_file_read(f, read, sizeof read - 1, &got);
            rts_file_close(f);
        }
        if (st != RTS_OK) {
            snprintf(why, whysize, "%s: cannot read it to put it back after: %s", path, rts_status_str(st));
            return false;
        }
        read[got] = '\0';
        value_to_write(read, s->before, sizeof s->before);
    }
    saved_count = saved_count + 1; /* counted once filled: a signal handler may read it */
    return true;
}

rts_status rts_setting_write(const char *path, const char *text, char *why, size_t whysize)
{
    pthread_mutex_lock(&saving);
    bool ok = save(path, false, why, whysize);
    pthread_mutex_unlock(&saving);
    return ok ? rts_file_write_text(path, text, why, whysize) : RTS_EFAIL;
}

rts_status rts_setting_dir_make(const char *path, char *why, size_t whysize)
{
    /* Saved before it is made, so that a signal ending the process in
     * between finds it to remove (a directory not made yet is no error). */
    pthread_mutex_lock(&saving);
    int count_before = saved_count;
    rts_status made = save(path, true, why, whysize) ? rts_dir_make(path, why, whysize) : RTS_EFAIL;
    if (made != RTS_OK)
        saved_count = count_before;
    pthread_mutex_unlock(&saving);
    return made;
}

unsigned rts_settings_mark(void) { return (unsigned)saved_count; }

bool rts_settings_restore(unsigned mark, char *why, size_t whysize)
{
    bool all = true;
    pthread_mutex_lock(&saving);
    for (int i = saved_count - 1; i >= (int)mark; i--) {
        saved_count = i;
        if (!put_back(&saved[i]) && all) {
            if (saved[i].dir)
                snprintf(why, whysize, "%s not removed: %s", saved[i].path, strerror(errno));
            else
                snprintf(why, whysize, "%s not put back to %s: %s", saved[i].path, saved[i].before,
                         strerror(errno));
            all = false;
        }
    }
    pthread_mutex_unlock(&saving);
    return all;
}
