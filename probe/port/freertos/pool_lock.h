/* The FreeRTOS port's lock for the common block pool (port/common/pool.c):
 * a critical section (interrupts masked), the shortest lock the kernel
 * has; it needs no object, so the lock is an empty byte. */
#ifndef RTSCOPE_POOL_LOCK_H
#define RTSCOPE_POOL_LOCK_H

#include <stdbool.h>

#include "FreeRTOS.h"
#include "task.h"

typedef unsigned char rts_pool_lock;

/* Make l ready: nothing to make. */
static inline bool rts_pool_lock_init(rts_pool_lock *l)
{
    (void)l;
    return true;
}

/* Hold l around a few instructions, from a task; then give it back. */
static inline void rts_pool_lock_take(rts_pool_lock *l)
{
    (void)l;
    taskENTER_CRITICAL();
}

static inline void rts_pool_lock_give(rts_pool_lock *l)
{
    (void)l;
    taskEXIT_CRITICAL();
}

/* Release l: nothing to release. */
static inline void rts_pool_lock_destroy(rts_pool_lock *l) { (void)l; }

#endif
