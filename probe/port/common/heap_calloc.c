/*
 * rts_heap_calloc of rtscope/port.h for every port whose heap gives no
 * zeroed allocation of its own: rts_heap_alloc of count * size bytes (none
 * when that overflows), zeroed. A port whose OS has calloc calls it instead
 * (port/posix/port_posix.c).
 */
#include <string.h>

#include "rtscope/port.h"

void *rts_heap_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = rts_heap_alloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}
