/*
 * POSIX port: files read in chunks, and temporary files. Contracts in
 * include/rtscope/port.h.
 *
 * On Linux a temporary file is unnamed (O_TMPFILE) and other processes reach
 * it through /proc/PID/fd/N: when the probe dies, even by SIGKILL, the kernel
 * frees it with the probe's last descriptor. Elsewhere, or on a file system
 * without O_TMPFILE, it is a named file that rts_tempfile_close removes.
 */
#define _GNU_SOURCE
#include "rtscope/port.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rts_file {
    int fd;
};

/* The process is ending and putting its settings back (settings_posix.c):
 * a file is let go, so that a directory it is in can be removed. */
bool rts_posix_ending(void);

/* The files this thread holds open, as descriptor + 1 (0: a free slot). A
 * signal that ends the process runs on the thread it interrupted, which may
 * be in the middle of writing a file in the tracefs instance: that thread
 * never gets back to close it, and the instance could not be removed. So the
 * handler closes them first (rts_posix_files_let_go_here). A slot is freed
 * after its close: a handler in between closes a number closed already,
 * harmless as the process ends, where one before it would miss an open file.
 * Four: a thread holds one or two at once (a trace read, a setting written). */
#define FILES_HELD_MAX 4
static __thread volatile sig_atomic_t files_held[FILES_HELD_MAX];

void rts_posix_stop_signals(sigset_t *set); /* port_posix.c */

/* open(), the file held. A stop request that comes during the call waits
 * until the descriptor is held: its handler runs as the call returns, before
 * the caller has the descriptor. */
static int open_held(const char *path, int flags)
{
    sigset_t stops, before;
    rts_posix_stop_signals(&stops);
    pthread_sigmask(SIG_BLOCK, &stops, &before);
    int fd;
    do
        fd = open(path, flags);
    while (fd < 0 && errno == EINTR);
    int error = errno;
    for (int i = 0; fd >= 0 && i < FILES_HELD_MAX; i++)
        if (files_held[i] == 0) {
            files_held[i] = fd + 1;
            break;
        }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    errno = error;
    return fd;
}

static void close_held(int fd)
{
    close(fd);
    for (int i = 0; i < FILES_HELD_MAX; i++)
        if (files_held[i] == fd + 1) {
            files_held[i] = 0;
            return;
        }
}

void rts_posix_files_let_go_here(void)
{
    for (int i = 0; i < FILES_HELD_MAX; i++)
        if (files_held[i] != 0) {
            close(files_held[i] - 1);
            files_held[i] = 0;
        }
}

rts_status rts_file_open(rts_file **out, const char *path, char *why, size_t whysize)
{
    *out = NULL;
    rts_file *f = rts_heap_alloc(sizeof *f);
    if (!f) {
        snprintf(why, whysize, "out of memory opening %s", path);
        return RTS_ENOMEM;
    }
    f->fd = open_held(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) {
        int error = errno;
        snprintf(why, whysize, "cannot open %s: %s", path, strerror(error));
        rts_heap_free(f);
        return error == EACCES || error == EPERM ? RTS_EPERM : RTS_EFAIL;
    }
    *out = f;
    return RTS_OK;
}

rts_status rts_file_read(rts_file *f, void *buf, size_t size, size_t *got)
{
    /* read() may return fewer bytes than asked (a signal, a pipe): go on
     * until size or the end, as the contract promises. */
    size_t n = 0;
    while (n < size) {
        if (rts_posix_ending()) {
            *got = 0;
            return RTS_EFAIL;
        }
        ssize_t r = read(f->fd, (char *)buf + n, size - n);
        if (r == 0)
            break;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *got = 0;
            return RTS_EFAIL;
        }
        n += (size_t)r;
    }
    *got = n;
    return RTS_OK;
}

void rts_file_close(rts_file *f)
{
    if (!f)
        return;
    close_held(f->fd);
    rts_heap_free(f);
}

rts_status rts_file_write_text(const char *path, const char *text, char *why, size_t whysize)
{
    int fd = open_held(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    size_t len = strlen(text);
    ssize_t wrote = -1;
    if (fd >= 0) {
        do
            wrote = write(fd, text, len);
        while (wrote < 0 && errno == EINTR);
    }
    int error = errno;
    if (fd >= 0)
        close_held(fd);
    if (wrote != (ssize_t)len) {
        snprintf(why, whysize, "cannot write %s to %s: %s", len ? text : "nothing", path,
                 wrote >= 0 ? "short write" : strerror(error));
        return RTS_EFAIL;
    }
    return RTS_OK;
}

rts_status rts_dir_make(const char *path, char *why, size_t whysize)
{
    if (mkdir(path, 0700) == 0 || errno == EEXIST)
        return RTS_OK;
    snprintf(why, whysize, "cannot make %s: %s", path, strerror(errno));
    return RTS_EFAIL;
}

rts_status rts_dir_remove(const char *path, char *why, size_t whysize)
{
    if (rmdir(path) == 0)
        return RTS_OK;
    snprintf(why, whysize, "cannot remove %s: %s", path, strerror(errno));
    return RTS_EFAIL;
}

/* ------------------------------------------------------- temporary files */

struct rts_tempfile {
    int fd;
    bool named;               /* a named file, removed on close */
    char path[256];
};

static const char *temp_directory(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && tmp[0] ? tmp : "/tmp";
}

/* An unnamed file in dir reached through /proc; false where there is none. */
static bool temp_unnamed(rts_tempfile *t, const char *dir)
{
#ifdef O_TMPFILE
    t->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (t->fd >= 0)
        snprintf(t->path, sizeof t->path, "/proc/%ld/fd/%d", (long)getpid(), t->fd);
    return t->fd >= 0 && access(t->path, W_OK) == 0;
#else
    (void)t;
    (void)dir;
    return false;
#endif
}

rts_status rts_tempfile_create(rts_tempfile **out, char *why, size_t whysize)
{
    *out = NULL;
    rts_tempfile *t = rts_heap_calloc(1, sizeof *t);
    if (!t) {
        snprintf(why, whysize, "out of memory for a temporary file");
        return RTS_ENOMEM;
    }
    const char *dir = temp_directory();
    if (!temp_unnamed(t, dir)) {
        if (t->fd >= 0)
            close(t->fd);
        snprintf(t->path, sizeof t->path, "%s/rtscope-XXXXXX", dir);
        t->fd = mkostemp(t->path, O_CLOEXEC);
        t->named = t->fd >= 0;
    }
    if (t->fd < 0) {
        int err = errno;
        snprintf(why, whysize, "cannot make a temporary file in %s: %s", dir, strerror(err));
        rts_heap_free(t);
        return err == EACCES || err == EPERM ? RTS_EPERM : RTS_EFAIL;
    }
    *out = t;
    return RTS_OK;
}

const char *rts_tempfile_path(const rts_tempfile *t)
{
    return t->path;
}

void rts_tempfile_close(rts_tempfile *t)
{
    if (!t)
        return;
    if (t->named)
        unlink(t->path);
    close(t->fd);
    rts_heap_free(t);
}
