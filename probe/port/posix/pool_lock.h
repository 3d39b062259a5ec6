/* The POSIX port's lock for the common block pool (port/common/pool.c): a
 * mutex, as user space cannot hold off preemption any cheaper. */
#ifndef RTSCOPE_POOL_LOCK_H
#define RTSCOPE_POOL_LOCK_H

#include <pthread.h>
#include <stdbool.h>

typedef pthread_mutex_t rts_pool_lock;

/* Make l ready; false when the OS cannot. */
static inline bool rts_pool_lock_init(rts_pool_lock *l) { return pthread_mutex_init(l, NULL) == 0; }

/* Hold l around a few instructions, from a thread; then give it back. */
static inline void rts_pool_lock_take(rts_pool_lock *l) { pthread_mutex_lock(l); }
static inline void rts_pool_lock_give(rts_pool_lock *l) { pthread_mutex_unlock(l); }

/* Release l, held by nobody. */
static inline void rts_pool_lock_destroy(rts_pool_lock *l) { pthread_mutex_destroy(l); }

#endif
