/*
 * POSIX port: shared memory between the probe and processes it starts.
 * Contracts in include/rtscope/port.h.
 *
 * On Linux a region is a memory file sealed at its size, which another
 * process opens through /proc/PID/fd/N: it is freed with its last mapping,
 * even when the probe is killed, and nobody can cut it below a mapping
 * (whose next access would fault). Elsewhere it is a file in /dev/shm or
 * the temporary directory, removed by its creator on close.
 *
 * Threads of several processes wait on a word of a region with a futex
 * (shared, not FUTEX_PRIVATE: other processes map the same pages).
 */
#define _GNU_SOURCE
#include "rtscope/port.h"

#include "port_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif
#if defined(__linux__) && defined(MFD_ALLOW_SEALING)
#define HAVE_SEALED_SHM 1
#else
#define HAVE_SEALED_SHM 0
#endif

struct rts_shm {
    int fd;
    void *base;
    size_t size;
    bool owned;               /* a named file of rts_shm_create: removed on close */
    char path[256];
};

/* Fail with why = "what path: errno's text"; s released. */
static rts_status shm_fail(rts_shm *s, const char *what, char *why, size_t whysize)
{
    int err = errno;
    snprintf(why, whysize, "%s %s: %s", what, s->path, strerror(err));
    rts_shm_close(s);
    return err == EACCES || err == EPERM ? RTS_EPERM : err == ENOMEM || err == ENOSPC ? RTS_ENOMEM : RTS_EFAIL;
}

static rts_shm *shm_new(void)
{
    rts_shm *s = calloc(1, sizeof *s);
    if (s)
        s->fd = -1;
    return s;
}

static bool shm_map(rts_shm *s)
{
    void *m = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    if (m == MAP_FAILED)
        return false;
    s->base = m;
    return true;
}

/* A new file of size bytes (zeros), sealed at that size where it can be. */
static bool shm_file(rts_shm *s)
{
#if HAVE_SEALED_SHM
    s->fd = memfd_create("rtscope-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    snprintf(s->path, sizeof s->path, "/proc/%ld/fd/%d", (long)getpid(), s->fd);
    return s->fd >= 0 && ftruncate(s->fd, (off_t)s->size) == 0 &&
           fcntl(s->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0;
#else
    const char *tmp = getenv("TMPDIR");
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp && tmp[0] ? tmp : "/tmp";
    snprintf(s->path, sizeof s->path, "%s/rtscope-shm-XXXXXX", dir);
    s->fd = mkostemp(s->path, O_CLOEXEC);
    s->owned = s->fd >= 0;
    return s->owned && ftruncate(s->fd, (off_t)s->size) == 0;
#endif
}

rts_status rts_shm_create(rts_shm **out, size_t bytes, char *why, size_t whysize)
{
    *out = NULL;
    rts_shm *s = shm_new();
    if (!s || bytes == 0) {
        free(s);
        snprintf(why, whysize, bytes ? "out of memory for shared memory" : "shared memory of 0 bytes");
        return bytes ? RTS_ENOMEM : RTS_EINVAL;
    }
    s->size = bytes;
    if (!shm_file(s))
        return shm_fail(s, "cannot create shared memory", why, whysize);
    if (!shm_map(s))
        return shm_fail(s, "cannot map shared memory", why, whysize);
    *out = s;
    return RTS_OK;
}

rts_status rts_shm_open(rts_shm **out, const char *path, char *why, size_t whysize)
{
    *out = NULL;
    rts_shm *s = shm_new();
    if (!s) {
        snprintf(why, whysize, "out of memory for shared memory");
        return RTS_ENOMEM;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    struct stat st;
    s->fd = open(path, O_RDWR | O_CLOEXEC);
    if (s->fd < 0 || fstat(s->fd, &st) != 0)
        return shm_fail(s, "cannot open shared memory", why, whysize);
    s->size = (size_t)st.st_size;
    if (s->size == 0 || !shm_map(s))
        return shm_fail(s, "cannot map shared memory", why, whysize);
    *out = s;
    return RTS_OK;
}

int rts_posix_shm_fd(const rts_shm *s); /* for pin_posix.c: a pin's write() goes through the file */
int rts_posix_shm_fd(const rts_shm *s) { return s->fd; }

const char *rts_shm_path(const rts_shm *s) { return s->path; }

void *rts_shm_base(const rts_shm *s) { return s->base; }

size_t rts_shm_size(const rts_shm *s) { return s->size; }

void rts_shm_close(rts_shm *s)
{
    if (!s)
        return;
    if (s->base)
        munmap(s->base, s->size);
    if (s->fd >= 0)
        close(s->fd);
    if (s->owned)
        unlink(s->path);
    free(s);
}

#ifdef __linux__

rts_status rts_shm_wait(atomic_uint *word, unsigned expected, uint64_t timeout_ns)
{
    struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u), .tv_nsec = (long)(timeout_ns % 1000000000u) };
    long r = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, timeout_ns == RTS_FOREVER ? NULL : &ts,
                     NULL, 0);
    return r != 0 && errno == ETIMEDOUT ? RTS_ETIMEDOUT : RTS_OK;
}

void rts_shm_wake(atomic_uint *word) { syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0); }

#else

#define POLL_NS 100000u

rts_status rts_shm_wait(atomic_uint *word, unsigned expected, uint64_t timeout_ns)
{
    uint64_t start = rts_time_ns();
    while (atomic_load(word) == expected) {
        if (timeout_ns != RTS_FOREVER && rts_time_ns() - start >= timeout_ns)
            return RTS_ETIMEDOUT;
        rts_sleep_ns(POLL_NS);
    }
    return RTS_OK;
}

void rts_shm_wake(atomic_uint *word) { (void)word; }

#endif
