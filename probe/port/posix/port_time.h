/* POSIX port: the inline monotonic clock every port must provide (see rtscope/port.h). */
#ifndef RTSCOPE_PORT_TIME_H
#define RTSCOPE_PORT_TIME_H

#include <stdint.h>
#include <time.h>

/* Monotonic time in ns. Inline: its cost is part of every sample. */
static inline uint64_t rts_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
