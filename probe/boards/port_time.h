/* Every RTOS port on a board (boards/board.h): the inline monotonic clock
 * (rtscope/port.h) is the board's free-running clock of sub-tick
 * resolution (board_time.h). */
#ifndef RTSCOPE_PORT_TIME_H
#define RTSCOPE_PORT_TIME_H

#include <stdint.h>

#include "board_time.h"

static inline uint64_t rts_time_ns(void) { return board_time_ns(); }

#endif
