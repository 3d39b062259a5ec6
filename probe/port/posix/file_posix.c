/* POSIX port: files read in chunks. Contracts in include/rtscope/port.h. */
#include "rtscope/port.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct rts_file {
    int fd;
};

rts_status rts_file_open(rts_file **out, const char *path, char *why, size_t whysize)
{
    *out = NULL;
    rts_file *f = rts_heap_alloc(sizeof *f);
    if (!f) {
        snprintf(why, whysize, "out of memory opening %s", path);
        return RTS_ENOMEM;
    }
    do
        f->fd = open(path, O_RDONLY | O_CLOEXEC);
    while (f->fd < 0 && errno == EINTR);
    if (f->fd < 0) {
        snprintf(why, whysize, "cannot open %s: %s", path, strerror(errno));
        rts_heap_free(f);
        return RTS_EFAIL;
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
    close(f->fd);
    rts_heap_free(f);
}
