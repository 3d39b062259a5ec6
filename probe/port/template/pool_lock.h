/* The template port's lock for the common block pool (port/common/pool.c):
 * the cheapest lock the OS has around a few instructions, taken from a
 * thread (FreeRTOS: taskENTER_CRITICAL, as port/freertos/pool_lock.h;
 * Zephyr: irq_lock, whose key the lock then holds). The template has no
 * OS and locks nothing. */
#ifndef RTSCOPE_POOL_LOCK_H
#define RTSCOPE_POOL_LOCK_H

#include <stdbool.h>

typedef unsigned char rts_pool_lock;

/* Make l ready; false when the OS cannot. */
static inline bool rts_pool_lock_init(rts_pool_lock *l)
{
    (void)l;
    return true;
}

/* Hold l around a few instructions; then give it back. */
static inline void rts_pool_lock_take(rts_pool_lock *l) { (void)l; }
static inline void rts_pool_lock_give(rts_pool_lock *l) { (void)l; }

/* Release l, held by nobody. */
static inline void rts_pool_lock_destroy(rts_pool_lock *l) { (void)l; }

#endif
