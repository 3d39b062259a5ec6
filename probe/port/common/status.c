/* rts_status_str and rts_policy_name for every port: the names of the port's
 * status codes and scheduling policies (no OS call). */
#include "rtscope/port.h"

const char *rts_status_str(rts_status st)
{
    switch (st) {
    case RTS_OK: return "ok";
    case RTS_ETIMEDOUT: return "timed out";
    case RTS_EAGAIN: return "would block";
    case RTS_EPERM: return "not permitted";
    case RTS_EINVAL: return "invalid argument";
    case RTS_ENOMEM: return "out of memory";
    case RTS_ENOTSUP: return "not supported";
    case RTS_EFAIL: return "failed";
    }
    return "unknown status";
}

const char *rts_policy_name(rts_policy p)
{
    switch (p) {
    case RTS_POLICY_FIFO: return "fifo";
    case RTS_POLICY_RR: return "rr";
    case RTS_POLICY_OTHER: break;
    }
    return "other";
}
