/* The POSIX simulator's clock: the host's CLOCK_MONOTONIC (board.h). */
#ifndef RTSCOPE_FREERTOS_BOARD_TIME_H
#define RTSCOPE_FREERTOS_BOARD_TIME_H

#include <stdint.h>
#include <time.h>

/* Host time in ns: what the simulator's tasks see pass, tick or not. */
static inline uint64_t board_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
