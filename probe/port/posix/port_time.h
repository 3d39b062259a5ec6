/* POSIX port: the inline monotonic clock every port must provide (see rtscope/port.h). */
#ifndef RTSCOPE_PORT_TIME_H
#define RTSCOPE_PORT_TIME_H

#include "monotonic.h"

static inline uint64_t rts_time_ns(void) { return rts_posix_monotonic_ns(); }

#endif
