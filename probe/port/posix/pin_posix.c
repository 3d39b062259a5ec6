/*
 * POSIX port: pins (a shared, mapped one-page file) and the ticker (a
 * timerfd, Linux only). Contracts in include/rtscope/port.h.
 *
 * A pin is shared memory of one page (shm_posix.c). On Linux that is a
 * memory file sealed at its size: a generator that truncates it (a shell's
 * `>` instead of `1<>`) is refused by the OS, where a file cut below its
 * mapped page would make the observer's next load fault (SIGBUS) and end
 * the probe.
 */
#define _GNU_SOURCE
#include "rtscope/port.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/timerfd.h>
#endif

int rts_posix_shm_fd(const rts_shm *s); /* shm_posix.c: the region's file, for a pin's write() */

/* ------------------------------------------------------------------ pins */

struct rts_pin {
    rts_shm *shm;
};

/* A pin around the region a call just made (st its status, why already said on failure). */
static rts_status pin_of(rts_pin **out, rts_shm *shm, rts_status st, char *why, size_t whysize)
{
    *out = NULL;
    if (st != RTS_OK)
        return st;
    rts_pin *p = malloc(sizeof *p);
    if (!p) {
        rts_shm_close(shm);
        snprintf(why, whysize, "out of memory for a pin");
        return RTS_ENOMEM;
    }
    p->shm = shm;
    *out = p;
    return RTS_OK;
}

rts_status rts_pin_create(rts_pin **out, char *why, size_t whysize)
{
    long page = sysconf(_SC_PAGESIZE);
    rts_shm *shm = NULL;
    rts_status st = rts_shm_create(&shm, page > 0 ? (size_t)page : 4096, why, whysize);
    if (st == RTS_OK)
        *(unsigned char *)rts_shm_base(shm) = '0'; /* low */
    return pin_of(out, shm, st, why, whysize);
}

rts_status rts_pin_open(rts_pin **out, const char *path, char *why, size_t whysize)
{
    rts_shm *shm = NULL;
    rts_status st = rts_shm_open(&shm, path, why, whysize);
    return pin_of(out, shm, st, why, whysize);
}

const char *rts_pin_path(const rts_pin *p) { return rts_shm_path(p->shm); }

volatile unsigned char *rts_pin_byte(const rts_pin *p) { return rts_shm_base(p->shm); }

rts_status rts_pin_write(rts_pin *p, unsigned char byte)
{
    return pwrite(rts_posix_shm_fd(p->shm), &byte, 1, 0) == 1 ? RTS_OK : RTS_EFAIL;
}

void rts_pin_close(rts_pin *p)
{
    if (!p)
        return;
    rts_shm_close(p->shm);
    free(p);
}

/* ---------------------------------------------------------------- ticker */

#ifdef __linux__
struct rts_ticker {
    int fd;
};

static struct timespec ts_of(uint64_t ns)
{
    return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
}

rts_status rts_ticker_start(rts_ticker **out, uint64_t first_ns, uint64_t period_ns)
{
    *out = NULL;
    rts_ticker *t = calloc(1, sizeof *t);
    if (!t)
        return RTS_ENOMEM;
    t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec its = { .it_value = ts_of(first_ns), .it_interval = ts_of(period_ns) };
    if (t->fd < 0 || timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
        int err = errno;
        if (t->fd >= 0)
            close(t->fd);
        free(t);
        return err == EINVAL ? RTS_EINVAL : err == ENOMEM ? RTS_ENOMEM : RTS_EFAIL;
    }
    *out = t;
    return RTS_OK;
}

rts_status rts_ticker_wait(rts_ticker *t, uint64_t *expiries)
{
    uint64_t n = 0;
    ssize_t got = read(t->fd, &n, sizeof n);
    if (got != (ssize_t)sizeof n)
        return got < 0 && errno == EINTR ? RTS_EAGAIN : RTS_EFAIL;
    if (expiries)
        *expiries = n;
    return RTS_OK;
}

void rts_ticker_stop(rts_ticker *t)
{
    if (!t)
        return;
    close(t->fd);
    free(t);
}
#else
rts_status rts_ticker_start(rts_ticker **out, uint64_t first_ns, uint64_t period_ns)
{
    (void)first_ns;
    (void)period_ns;
    *out = NULL;
    return RTS_ENOTSUP;
}

rts_status rts_ticker_wait(rts_ticker *t, uint64_t *expiries)
{
    (void)t;
    (void)expiries;
    return RTS_ENOTSUP;
}

void rts_ticker_stop(rts_ticker *t) { (void)t; }
#endif
