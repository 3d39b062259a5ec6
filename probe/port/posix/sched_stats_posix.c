/*
 * POSIX port: per-thread scheduler statistics. Contracts in
 * include/rtscope/port.h.
 *
 * Linux counts, per thread, the time it ran and the time it waited on a
 * run queue (sched_info, also without CONFIG_SCHEDSTATS) and shows both in
 * /proc/thread-self/schedstat (Linux 3.17 and later) as "RUN_NS WAIT_NS
 * TIMESLICES". The file is opened once per thread and read with pread:
 * opening it costs 7 us, a pread 1 us. POSIX itself has no such count.
 */
#define _GNU_SOURCE
#include "rtscope/port.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define SCHEDSTAT_PATH "/proc/thread-self/schedstat"

bool rts_posix_sched_stats_supported(void); /* for rts_port_caps (port_posix.c) */

struct rts_sched_stats {
    int fd;
};

#ifdef __linux__

bool rts_posix_sched_stats_supported(void) { return access(SCHEDSTAT_PATH, R_OK) == 0; }

rts_status rts_sched_stats_open(rts_sched_stats **out)
{
    *out = NULL;
    rts_sched_stats *s = rts_heap_alloc(sizeof *s);
    if (!s)
        return RTS_ENOMEM;
    do
        s->fd = open(SCHEDSTAT_PATH, O_RDONLY | O_CLOEXEC);
    while (s->fd < 0 && errno == EINTR);
    if (s->fd < 0) {
        rts_heap_free(s);
        return errno == ENOENT ? RTS_ENOTSUP : RTS_EFAIL;
    }
    *out = s;
    return RTS_OK;
}

rts_status rts_sched_stats_read(rts_sched_stats *s, rts_sched_times *times)
{
    char text[96];
    ssize_t n;
    do
        n = pread(s->fd, text, sizeof text - 1, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return RTS_EFAIL;
    text[n] = '\0';
    unsigned long long run_ns, wait_ns;
    if (sscanf(text, "%llu %llu", &run_ns, &wait_ns) != 2)
        return RTS_EFAIL;
    *times = (rts_sched_times){ .run_ns = run_ns, .wait_ns = wait_ns };
    return RTS_OK;
}

void rts_sched_stats_close(rts_sched_stats *s)
{
    if (!s)
        return;
    close(s->fd);
    rts_heap_free(s);
}

#else

bool rts_posix_sched_stats_supported(void) { return false; }

rts_status rts_sched_stats_open(rts_sched_stats **out)
{
    *out = NULL;
    return RTS_ENOTSUP;
}

rts_status rts_sched_stats_read(rts_sched_stats *s, rts_sched_times *times)
{
    (void)s;
    (void)times;
    return RTS_ENOTSUP;
}

void rts_sched_stats_close(rts_sched_stats *s) { (void)s; }

#endif
