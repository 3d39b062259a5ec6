/* The POSIX simulator's clock: the host's CLOCK_MONOTONIC (board.h), what
 * the simulator's tasks see pass, tick or not. */
#ifndef RTSCOPE_POSIX_SIM_BOARD_TIME_H
#define RTSCOPE_POSIX_SIM_BOARD_TIME_H

#include "../../port/posix/monotonic.h"

static inline uint64_t board_time_ns(void) { return rts_posix_monotonic_ns(); }

#endif
