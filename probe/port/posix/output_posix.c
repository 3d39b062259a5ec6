/*
 * POSIX port: console, diagnostics, result sinks and the end of the
 * process (contracts in include/rtscope/port.h). The console is stdout,
 * diagnostics stderr; a file sink writes a temporary file beside its
 * destination and renames it over the destination on commit. A destination
 * that is there and is a device or FIFO (/dev/null, a terminal)
 * is written directly: renaming over it would replace a device with a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtscope/port.h"

void rts_posix_proc_kill_all(void);        /* proc_posix.c */
void rts_posix_settings_restore_now(void); /* settings_posix.c */

void rts_console_write(const char *text, size_t n) { fwrite(text, 1, n, stdout); }

void rts_diag_write(const char *text, size_t n) { fwrite(text, 1, n, stderr); }

/* A process the probe started and did not release yet (a generator) goes
 * with it: the watchdog ends the probe this way, and nothing may be left
 * running then. */
_Noreturn void rts_process_end(int status)
{
    rts_posix_proc_kill_all();
    rts_posix_settings_restore_now(); /* _Exit runs no atexit handler */
    fflush(stdout);
    fflush(stderr);
    _Exit(status);
}

/* ---------------------------------------------------------------- sinks */

struct rts_sink {
    FILE *f;
    char *dest;     /* NULL: the console (stdout) */
    char *tmp;      /* the file written until commit; NULL: dest is written directly */
    int err;        /* errno of the first failed write; 0: none */
};

static rts_status status_of(int err)
{
    return err == EACCES || err == EPERM ? RTS_EPERM : err == ENOMEM ? RTS_ENOMEM : RTS_EFAIL;
}

/* Copy of text, or NULL. */
static char *copy_of(const char *text)
{
    size_t n = strlen(text) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, text, n) : NULL;
}

/* A name for the temporary of dest that no other run picks: dest.tmp-<16 hex>. */
static char *temporary_name(const char *dest)
{
    unsigned char r[8];
    rts_random_bytes(r, sizeof r);
    size_t size = strlen(dest) + sizeof ".tmp-" + 2 * sizeof r;
    char *tmp = malloc(size);
    if (!tmp)
        return NULL;
    int at = snprintf(tmp, size, "%s.tmp-", dest);
    for (size_t i = 0; i < sizeof r; i++)
        at += snprintf(tmp + at, size - (size_t)at, "%02x", r[i]);
    return tmp;
}

static void sink_free(rts_sink *s)
{
    free(s->dest);
    free(s->tmp);
    free(s);
}

/* Fail with err's text in why: the temporary (if any) is gone, s released. */
static rts_status sink_fail(rts_sink *s, int err, char *why, size_t whysize)
{
    if (s->f && s->f != stdout)
        fclose(s->f);
    if (s->f && s->tmp)
        remove(s->tmp);
    sink_free(s);
    snprintf(why, whysize, "%s", strerror(err));
    return status_of(err);
}

rts_status rts_sink_open(rts_sink **out, const char *dest, char *why, size_t whysize)
{
    *out = NULL;
    rts_sink *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, whysize, "%s", strerror(ENOMEM));
        return RTS_ENOMEM;
    }
    if (strcmp(dest, RTS_SINK_CONSOLE) == 0) {
        s->f = stdout;
        *out = s;
        return RTS_OK;
    }
    s->dest = copy_of(dest);
    if (!s->dest)
        return sink_fail(s, ENOMEM, why, whysize);
    struct stat st;
    if (stat(dest, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        s->f = fopen(dest, "w");
        if (!s->f)
            return sink_fail(s, errno, why, whysize);
        *out = s;
        return RTS_OK;
    }
    s->tmp = temporary_name(dest);
    if (!s->tmp)
        return sink_fail(s, ENOMEM, why, whysize);
    s->f = fopen(s->tmp, "wx"); /* x: never another's file */
    if (!s->f)
        return sink_fail(s, errno, why, whysize);
    *out = s;
    return RTS_OK;
}

rts_status rts_sink_write(rts_sink *s, const void *data, size_t n)
{
    if (s->err)
        return status_of(s->err);
    if (fwrite(data, 1, n, s->f) == n)
        return RTS_OK;
    s->err = errno ? errno : EIO;
    return status_of(s->err);
}

/* Everything written is on the device: flushed, synced (so that the rename
 * cannot outrun the data after a crash; a device or FIFO written directly
 * has nothing to sync) and closed. errno on failure. */
static int settle(rts_sink *s)
{
    int err = fflush(s->f) == 0 && (!s->tmp || fsync(fileno(s->f)) == 0) ? 0 : errno;
    FILE *f = s->f;
    s->f = NULL;
    if (fclose(f) != 0 && !err)
        err = errno;
    return err;
}

rts_status rts_sink_commit(rts_sink *s, char *why, size_t whysize)
{
    if (s->err)
        return sink_fail(s, s->err, why, whysize);
    if (!s->dest) { /* the console */
        int err = fflush(stdout) == 0 ? 0 : errno;
        if (err)
            return sink_fail(s, err, why, whysize);
        sink_free(s);
        return RTS_OK;
    }
    int err = settle(s);
    if (!err && s->tmp && rename(s->tmp, s->dest) != 0)
        err = errno;
    if (err) {
        if (s->tmp)
            remove(s->tmp);
        return sink_fail(s, err, why, whysize);
    }
    sink_free(s);
    return RTS_OK;
}

void rts_sink_abort(rts_sink *s)
{
    if (s->dest) {
        fclose(s->f);
        if (s->tmp)
            remove(s->tmp);
    }
    sink_free(s);
}
