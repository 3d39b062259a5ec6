/*
 * POSIX port: pins (a shared, mapped one-page file) and the ticker (a
 * timerfd, Linux only). Contracts in include/rtscope/port.h.
 *
 * On Linux a pin is a memory file sealed against shrinking: a generator
 * that truncates it (a shell's `>` instead of `1<>`) is refused by the OS,
 * where a file cut below its mapped page would make the observer's next
 * load fault (SIGBUS) and end the probe.
 */
#define _GNU_SOURCE
#include "rtscope/port.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/timerfd.h>
#endif
#if defined(__linux__) && defined(MFD_ALLOW_SEALING)
#define HAVE_SEALED_PIN 1
#else
#define HAVE_SEALED_PIN 0
#endif

/* ------------------------------------------------------------------ pins */

struct rts_pin {
    int fd;
    unsigned char *page;
    size_t size;
    bool owned;               /* a file of rts_pin_create in a directory: removed on close */
    char path[256];
};

#if !HAVE_SEALED_PIN
/* A directory for the pin: memory-backed when there is one, so that no
 * write-back to a disk ever touches it. */
static const char *pin_directory(void)
{
    const char *tmp = getenv("TMPDIR");
    if (access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    return tmp && tmp[0] ? tmp : "/tmp";
}
#endif

/* Fail with why = "what path: errno's text"; p (with its file when owned) released. */
static rts_status pin_fail(rts_pin *p, const char *what, char *why, size_t whysize)
{
    int err = errno;
    snprintf(why, whysize, "%s %s: %s", what, p->path, strerror(err));
    rts_pin_close(p);
    return err == EACCES || err == EPERM ? RTS_EPERM : err == ENOMEM ? RTS_ENOMEM : RTS_EFAIL;
}

/* Map p's open file, of one page, shared. */
static bool pin_map(rts_pin *p)
{
    long page = sysconf(_SC_PAGESIZE);
    p->size = page > 0 ? (size_t)page : 4096;
    void *m = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
    if (m == MAP_FAILED)
        return false;
    p->page = m;
    return true;
}

static rts_pin *pin_new(void)
{
    rts_pin *p = calloc(1, sizeof *p);
    if (p)
        p->fd = -1;
    return p;
}

/* Open p's new file: a sealed memory file named through /proc where there
 * are such, else a file in pin_directory() that rts_pin_close removes. */
static bool pin_file(rts_pin *p)
{
#if HAVE_SEALED_PIN
    p->fd = memfd_create("rtscope-pin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    snprintf(p->path, sizeof p->path, "/proc/%ld/fd/%d", (long)getpid(), p->fd);
    return p->fd >= 0;
#else
    snprintf(p->path, sizeof p->path, "%s/rtscope-pin-XXXXXX", pin_directory());
    p->fd = mkostemp(p->path, O_CLOEXEC);
    p->owned = p->fd >= 0;
    return p->owned;
#endif
}

/* One page, low, and (where it can be) sealed at that size. */
static bool pin_size(rts_pin *p)
{
    long page = sysconf(_SC_PAGESIZE);
    if (ftruncate(p->fd, page > 0 ? page : 4096) != 0 || pwrite(p->fd, "0", 1, 0) != 1)
        return false;
#if HAVE_SEALED_PIN
    return fcntl(p->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0;
#else
    return true;
#endif
}

rts_status rts_pin_create(rts_pin **out, char *why, size_t whysize)
{
    *out = NULL;
    rts_pin *p = pin_new();
    if (!p) {
        snprintf(why, whysize, "out of memory for a pin");
        return RTS_ENOMEM;
    }
    if (!pin_file(p))
        return pin_fail(p, "cannot create pin", why, whysize);
    if (!pin_size(p))
        return pin_fail(p, "cannot size pin", why, whysize);
    if (!pin_map(p))
        return pin_fail(p, "cannot map pin", why, whysize);
    *out = p;
    return RTS_OK;
}

rts_status rts_pin_open(rts_pin **out, const char *path, char *why, size_t whysize)
{
    *out = NULL;
    rts_pin *p = pin_new();
    if (!p) {
        snprintf(why, whysize, "out of memory for a pin");
        return RTS_ENOMEM;
    }
    snprintf(p->path, sizeof p->path, "%s", path);
    p->fd = open(path, O_RDWR | O_CLOEXEC);
    if (p->fd < 0)
        return pin_fail(p, "cannot open pin", why, whysize);
    if (!pin_map(p))
        return pin_fail(p, "cannot map pin", why, whysize);
    *out = p;
    return RTS_OK;
}

const char *rts_pin_path(const rts_pin *p) { return p->path; }

volatile unsigned char *rts_pin_byte(const rts_pin *p) { return p->page; }

rts_status rts_pin_write(rts_pin *p, unsigned char byte)
{
    return pwrite(p->fd, &byte, 1, 0) == 1 ? RTS_OK : RTS_EFAIL;
}

void rts_pin_close(rts_pin *p)
{
    if (!p)
        return;
    if (p->page)
        munmap(p->page, p->size);
    if (p->fd >= 0)
        close(p->fd);
    if (p->owned)
        unlink(p->path);
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
