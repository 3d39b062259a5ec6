/* The host's monotonic clock in ns: the POSIX port's rts_time_ns, and the
 * clock of FreeRTOS's POSIX simulator board. Inline: its cost is part of
 * every sample. */
#ifndef RTSCOPE_POSIX_MONOTONIC_H
#define RTSCOPE_POSIX_MONOTONIC_H

#include <stdint.h>
#include <time.h>

static inline uint64_t rts_posix_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Its resolution in ns (0 when the host does not say). */
static inline uint64_t rts_posix_monotonic_resolution_ns(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
