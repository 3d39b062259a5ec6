/*
 * ThreadX port of the rtscope porting layer. Contracts are in
 * include/rtscope/port.h; what depends on the hardware (clock, console,
 * result channel, interrupts, exit) is the board's (probe/boards/board.h,
 * shared with the other RTOS ports; what a board needs of ThreadX is in
 * boards/NAME/ here). This file only says how ThreadX does the rest: every
 * object's control block (and a thread's stack, unless the caller gives
 * one) is a block of the kernel's byte pool, which is also the probe's
 * heap; the block pool is the kernel's own (tx_block_pool).
 *
 * The probe's own main (and a C test's) is compiled as rts_app_main
 * (port.mk); main here brings the board up and enters the kernel, whose
 * tx_application_define makes the heap and the first thread, which runs it.
 * What ThreadX has no use for here (processes, files, pins, a ticker, GPIO,
 * scheduler statistics) is the common "not supported", and its setup of
 * one CPU the common one (port/common/); the console, the result's sink
 * and the end of the run are every board port's (boards/board_services.c).
 */
#include <stdio.h>
#include <string.h>

#include "tx_api.h"

#include "board.h"
#include "board_glue.h"
#include "port_time.h"
#include "../common/build_info.h"
#include "../common/rtos_ticks.h"
#include "rtscope/port.h"

/* What the port needs of tx_user.h. */
#if TX_MAX_PRIORITIES < RTS_PRIORITY_MAX + 2
#error "rtscope's ThreadX port maps priorities 1..99 and other to 99..1 and 100: TX_MAX_PRIORITIES must be above 100"
#endif
#ifdef TX_DISABLE_PREEMPTION_THRESHOLD
#error "rtscope's ThreadX port holds the scheduler with a preemption threshold (port_sched_hold)"
#endif
#ifndef RTS_OS_CONFIG_NAME
#error "the configuration's tx_user.h must name itself (RTS_OS_CONFIG_NAME)"
#endif

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define THREADX_VERSION                                                                                                \
    STRINGIFY(THREADX_MAJOR_VERSION) "." STRINGIFY(THREADX_MINOR_VERSION) "." STRINGIFY(THREADX_PATCH_VERSION)

static void soft_irq_entry(void *arg);

/* No processes, files, cycle counter or scheduler statistics, and no
 * memory lock: memory never pages. What ThreadX offers is strict
 * priorities and inheriting mutexes; the rest is the board's (board_caps). */
unsigned rts_port_caps(void)
{
    /* Asked once: the board's probe registers soft_irq_entry, which must
     * not replace a bench's handler registered since. */
    static unsigned caps;
    if (!caps)
        caps = RTS_CAP_PRIORITY_SCHED | RTS_CAP_PI_MUTEX | board_caps(soft_irq_entry);
    return caps;
}

const char *rts_port_name(void) { return "threadx"; }

/* ------------------------------------------------------------------ time */

#define NS_PER_TICK (1000000000u / TX_TIMER_TICKS_PER_SECOND)

/* Ticks to wait for at least ns (rtos_ticks.h), within the kernel's longest finite wait. */
static ULONG ticks_at_least(uint64_t ns)
{
    uint64_t ticks = rts_ticks_at_least(ns, NS_PER_TICK);
    return ticks >= (uint64_t)TX_WAIT_FOREVER ? TX_WAIT_FOREVER - 1 : (ULONG)ticks;
}

/* A port timeout as the kernel's wait option: 0 stays 0, RTS_FOREVER waits without bound. */
static ULONG wait_option(uint64_t timeout_ns)
{
    return timeout_ns == 0 ? TX_NO_WAIT : timeout_ns == RTS_FOREVER ? TX_WAIT_FOREVER : ticks_at_least(timeout_ns);
}

/* The status of a wait that did not get what it waited for. */
static rts_status missed(uint64_t timeout_ns) { return timeout_ns == 0 ? RTS_EAGAIN : RTS_ETIMEDOUT; }

/* Sleeps are in whole ticks; the board's clock decides when one is over. */
rts_status rts_sleep_until_ns(uint64_t abs_ns)
{
    for (uint64_t now = board_time_ns(); now < abs_ns; now = board_time_ns())
        tx_thread_sleep(ticks_at_least(abs_ns - now) - 1);
    return RTS_OK;
}

rts_status rts_sleep_ns(uint64_t rel_ns) { return rts_sleep_until_ns(board_time_ns() + rel_ns); }

uint64_t rts_sleep_granularity_ns(void) { return NS_PER_TICK; }

/* ------------------------------------------------------- scheduling setup */

/* ThreadX priorities run from 0, the highest: "other" is 100, fifo 1..99
 * is 99..1 (0 stays free). Every thread is made without a time slice, as
 * on FreeRTOS: round robin is refused, so that both kernels schedule alike. */
#define PRIORITY_OTHER 100u

static rts_status kernel_priority(rts_policy policy, int priority, UINT *out)
{
    if (policy == RTS_POLICY_OTHER) {
        *out = PRIORITY_OTHER;
        return RTS_OK;
    }
    if (policy == RTS_POLICY_RR)
        return RTS_ENOTSUP;
    if (priority < RTS_PRIORITY_MIN || priority > RTS_PRIORITY_MAX)
        return RTS_EINVAL;
    *out = PRIORITY_OTHER - (UINT)priority;
    return RTS_OK;
}

/* The scheduler's hold (port_sched_hold, below): its depth, and the
 * holder's threshold to give back. */
static unsigned hold_depth;
static UINT held_threshold;

/* The kernel makes the new priority the thread's preemption threshold too
 * (no threshold of its own); under a hold the threshold stays 0 until the
 * release gives it the new priority. */
rts_status rts_self_set_sched(rts_policy policy, int priority)
{
    UINT prio, old;
    rts_status st = kernel_priority(policy, priority, &prio);
    TX_THREAD *self = tx_thread_identify();
    if (st != RTS_OK || !self)
        return st != RTS_OK ? st : RTS_EINVAL;
    tx_thread_priority_change(self, prio, &old);
    if (hold_depth) {
        held_threshold = prio;
        tx_thread_preemption_change(self, 0, &old);
    }
    return RTS_OK;
}

/* The board's hold on the scheduler (board.h): a preemption threshold of
 * 0, above every thread of the probe's, from a thread; nested holds count. */
void port_sched_hold(void)
{
    TX_THREAD *self = tx_thread_identify();
    if (self && hold_depth++ == 0)
        tx_thread_preemption_change(self, 0, &held_threshold);
}

void port_sched_release(void)
{
    TX_THREAD *self = tx_thread_identify();
    UINT old;
    if (self && hold_depth > 0 && --hold_depth == 0)
        tx_thread_preemption_change(self, held_threshold, &old);
}

/* ---------------------------------------------------------------- threads */

/* A thread is a ThreadX thread whose control block comes first, so that
 * tx_thread_identify is its rts_thread; a semaphore holds its resume token
 * (one at most) and another is put when fn has returned. The joiner then
 * terminates and deletes it, so that its memory is released only once the
 * kernel is done with it. */
struct rts_thread {
    TX_THREAD tcb;
    TX_SEMAPHORE resume;
    TX_SEMAPHORE finished;
    void (*fn)(void *);
    void *arg;
    void *own_stack; /* the port's stack, or NULL */
    char name[16];   /* the kernel keeps the pointer */
};

/* The first thread, which runs the program (tx_application_define, below):
 * not one rts_thread_create made. */
static TX_THREAD app_thread;

static void thread_entry(ULONG input)
{
    (void)input;
    rts_thread *t = (rts_thread *)tx_thread_identify();
    t->fn(t->arg);
    tx_semaphore_put(&t->finished);
}

rts_status rts_thread_create(rts_thread **out, const rts_thread_attr *attr, void (*fn)(void *), void *arg)
{
    UINT prio;
    rts_status st = kernel_priority(attr->policy, attr->priority, &prio);
    if (st != RTS_OK)
        return st;
    if (attr->cpu > 0)
        return RTS_EINVAL;
    size_t stack_bytes = attr->stack_size ? attr->stack_size : RTS_THREAD_STACK_BYTES;
    rts_thread *t = rts_heap_calloc(1, sizeof *t);
    if (!t)
        return RTS_ENOMEM;
    void *stack = attr->stack;
    if (!stack)
        stack = t->own_stack = rts_heap_alloc(stack_bytes);
    if (!stack) {
        rts_heap_free(t);
        return RTS_ENOMEM;
    }
    t->fn = fn;
    t->arg = arg;
    /* Copied, not printed: snprintf's frames (0.6 KiB of newlib's vfprintf) would sit on top of the
     * caller's, and tm.basic spawns from under its 4 KiB array, the main thread's deepest point (its
     * last byte stays the 0 of calloc). */
    strncpy(t->name, attr->name ? attr->name : "rtscope", sizeof t->name - 1);
    tx_semaphore_create(&t->resume, t->name, 0);
    tx_semaphore_create(&t->finished, t->name, 0);
    /* Made stopped and started once *out is set: it may run at once. */
    if (tx_thread_create(&t->tcb, t->name, thread_entry, 0, stack, (ULONG)stack_bytes, prio, prio, TX_NO_TIME_SLICE,
                         TX_DONT_START) != TX_SUCCESS) {
        tx_semaphore_delete(&t->resume);
        tx_semaphore_delete(&t->finished);
        rts_heap_free(t->own_stack);
        rts_heap_free(t);
        return RTS_EINVAL;
    }
    *out = t;
    tx_thread_resume(&t->tcb);
    return RTS_OK;
}

rts_status rts_thread_join(rts_thread *t)
{
    if (t == rts_thread_self())
        return RTS_EINVAL;
    tx_semaphore_get(&t->finished, TX_WAIT_FOREVER);
    tx_thread_terminate(&t->tcb);
    tx_thread_delete(&t->tcb);
    tx_semaphore_delete(&t->resume);
    tx_semaphore_delete(&t->finished);
    rts_heap_free(t->own_stack);
    rts_heap_free(t);
    return RTS_OK;
}

size_t rts_thread_stack_min(void) { return TX_MINIMUM_STACK; }

rts_thread *rts_thread_self(void)
{
    TX_THREAD *self = tx_thread_identify();
    return self == &app_thread ? NULL : (rts_thread *)self;
}

rts_status rts_thread_suspend_self(void)
{
    rts_thread *self = rts_thread_self();
    if (!self)
        return RTS_EINVAL;
    tx_semaphore_get(&self->resume, TX_WAIT_FOREVER);
    return RTS_OK;
}

/* A token already there is the one remembered: the ceiling refuses a second. */
rts_status rts_thread_resume(rts_thread *t)
{
    tx_semaphore_ceiling_put(&t->resume, 1);
    return RTS_OK;
}

void rts_thread_relinquish(void) { tx_thread_relinquish(); }

/* The kernel's own count of the times it scheduled the thread in. */
long long rts_self_switches(void)
{
    TX_THREAD *self = tx_thread_identify();
    return self ? (long long)self->tx_thread_run_count : -1;
}

/* ------------------------------------------------------------- semaphores */

struct rts_sem {
    TX_SEMAPHORE sem;
    ULONG max;
};

rts_status rts_sem_create(rts_sem **out, unsigned initial, unsigned max)
{
    if (max == 0 || initial > max)
        return RTS_EINVAL;
    rts_sem *s = rts_heap_alloc(sizeof *s);
    if (!s)
        return RTS_ENOMEM;
    tx_semaphore_create(&s->sem, "rtscope", initial);
    s->max = max;
    *out = s;
    return RTS_OK;
}

rts_status rts_sem_give(rts_sem *s)
{
    return tx_semaphore_ceiling_put(&s->sem, s->max) == TX_SUCCESS ? RTS_OK : RTS_EAGAIN;
}

__attribute__((noinline)) static rts_status sem_take_waiting(rts_sem *s, uint64_t timeout_ns)
{
    return tx_semaphore_get(&s->sem, wait_option(timeout_ns)) == TX_SUCCESS ? RTS_OK : RTS_ETIMEDOUT;
}

/* Without a wait, the kernel's call and nothing else. */
rts_status rts_sem_take(rts_sem *s, uint64_t timeout_ns)
{
    if (timeout_ns == 0)
        return tx_semaphore_get(&s->sem, TX_NO_WAIT) == TX_SUCCESS ? RTS_OK : RTS_EAGAIN;
    return sem_take_waiting(s, timeout_ns);
}

void rts_sem_destroy(rts_sem *s)
{
    if (!s)
        return;
    tx_semaphore_delete(&s->sem);
    rts_heap_free(s);
}

/* ---------------------------------------------------------------- mutexes */

struct rts_mutex {
    TX_MUTEX mutex;
};

rts_status rts_mutex_create(rts_mutex **out, bool inherit)
{
    rts_mutex *m = rts_heap_alloc(sizeof *m);
    if (!m)
        return RTS_ENOMEM;
    tx_mutex_create(&m->mutex, "rtscope", inherit ? TX_INHERIT : TX_NO_INHERIT);
    *out = m;
    return RTS_OK;
}

rts_status rts_mutex_lock(rts_mutex *m)
{
    return tx_mutex_get(&m->mutex, TX_WAIT_FOREVER) == TX_SUCCESS ? RTS_OK : RTS_EFAIL;
}

/* The kernel refuses to put a mutex the caller does not own. */
rts_status rts_mutex_unlock(rts_mutex *m) { return tx_mutex_put(&m->mutex) == TX_SUCCESS ? RTS_OK : RTS_EPERM; }

void rts_mutex_destroy(rts_mutex *m)
{
    if (!m)
        return;
    tx_mutex_delete(&m->mutex);
    rts_heap_free(m);
}

/* --------------------------------------------------------- message queues */

/* ThreadX's messages are 1 to 16 ULONGs: a message of another size travels
 * in the next whole number of them, through a buffer on the stack (also
 * when the caller's message is not aligned for ULONG access). */
#define QUEUE_MAX_WORDS 16u

struct rts_queue {
    TX_QUEUE queue;
    size_t msg_size;
    bool direct; /* msg_size is whole ULONGs: no buffer needed when aligned */
    ULONG storage[];
};

static bool aligned_words(const void *msg) { return (uintptr_t)msg % _Alignof(ULONG) == 0; }

rts_status rts_queue_create(rts_queue **out, size_t msg_size, unsigned capacity)
{
    size_t words = (msg_size + sizeof(ULONG) - 1) / sizeof(ULONG);
    if (msg_size == 0 || capacity == 0 || words > QUEUE_MAX_WORDS ||
        capacity > (SIZE_MAX - sizeof(rts_queue)) / (words * sizeof(ULONG)))
        return RTS_EINVAL;
    size_t storage_bytes = words * sizeof(ULONG) * capacity;
    rts_queue *q = rts_heap_alloc(sizeof *q + storage_bytes);
    if (!q)
        return RTS_ENOMEM;
    q->msg_size = msg_size;
    q->direct = msg_size % sizeof(ULONG) == 0;
    tx_queue_create(&q->queue, "rtscope", (UINT)words, q->storage, (ULONG)storage_bytes);
    *out = q;
    return RTS_OK;
}

/* The general case, out of the fast path's way (its buffer and the
 * timeout's conversion would otherwise be set up on every call). */
__attribute__((noinline)) static rts_status queue_send_slow(rts_queue *q, const void *msg, uint64_t timeout_ns)
{
    ULONG buffer[QUEUE_MAX_WORDS];
    void *words = (void *)(uintptr_t)msg;
    if (!q->direct || !aligned_words(msg))
        words = memcpy(buffer, msg, q->msg_size);
    return tx_queue_send(&q->queue, words, wait_option(timeout_ns)) == TX_SUCCESS ? RTS_OK : missed(timeout_ns);
}

__attribute__((noinline)) static rts_status queue_receive_slow(rts_queue *q, void *msg, uint64_t timeout_ns)
{
    if (q->direct && aligned_words(msg))
        return tx_queue_receive(&q->queue, msg, wait_option(timeout_ns)) == TX_SUCCESS ? RTS_OK : missed(timeout_ns);
    ULONG buffer[QUEUE_MAX_WORDS];
    if (tx_queue_receive(&q->queue, buffer, wait_option(timeout_ns)) != TX_SUCCESS)
        return missed(timeout_ns);
    memcpy(msg, buffer, q->msg_size);
    return RTS_OK;
}

/* The fast path: a message of whole words that lies aligned is sent and
 * received where it lies, without waiting: the kernel's call and nothing
 * else (Thread-Metric's message test is this). */
rts_status rts_queue_send(rts_queue *q, const void *msg, uint64_t timeout_ns)
{
    if (timeout_ns == 0 && q->direct && aligned_words(msg))
        return tx_queue_send(&q->queue, (void *)(uintptr_t)msg, TX_NO_WAIT) == TX_SUCCESS ? RTS_OK : RTS_EAGAIN;
    return queue_send_slow(q, msg, timeout_ns);
}

rts_status rts_queue_receive(rts_queue *q, void *msg, uint64_t timeout_ns)
{
    if (timeout_ns == 0 && q->direct && aligned_words(msg))
        return tx_queue_receive(&q->queue, msg, TX_NO_WAIT) == TX_SUCCESS ? RTS_OK : RTS_EAGAIN;
    return queue_receive_slow(q, msg, timeout_ns);
}

void rts_queue_destroy(rts_queue *q)
{
    if (!q)
        return;
    tx_queue_delete(&q->queue);
    rts_heap_free(q);
}

/* ------------------------------------------------------ fixed-block pools */

/* The kernel's block pool, called straight, as Thread-Metric's memory
 * test calls it on ThreadX: each block follows a pointer of the kernel's
 * (its pool while taken, the next free block while not), so blocks are
 * the rounded block size plus that pointer apart, and a block given back
 * is not checked (port.h: anything but one of this pool's is undefined). */
struct rts_pool {
    TX_BLOCK_POOL pool;
    ALIGN_TYPE memory[];
};

rts_status rts_pool_create(rts_pool **out, size_t block_size, unsigned count)
{
    size_t align = sizeof(ALIGN_TYPE);
    if (block_size == 0 || count == 0 || block_size > UINT32_MAX / 2)
        return RTS_EINVAL;
    size_t stride = (block_size + align - 1) / align * align + sizeof(UCHAR *);
    if (count > (SIZE_MAX - sizeof(rts_pool)) / stride || (uint64_t)stride * count > UINT32_MAX)
        return RTS_EINVAL;
    rts_pool *p = rts_heap_alloc(sizeof *p + stride * count);
    if (!p)
        return RTS_ENOMEM;
    if (tx_block_pool_create(&p->pool, "rtscope", (ULONG)block_size, p->memory, (ULONG)(stride * count)) !=
            TX_SUCCESS ||
        p->pool.tx_block_pool_total != count) {
        tx_block_pool_delete(&p->pool);
        rts_heap_free(p);
        return RTS_EINVAL;
    }
    *out = p;
    return RTS_OK;
}

rts_status rts_pool_alloc(rts_pool *p, void **block)
{
    return tx_block_allocate(&p->pool, block, TX_NO_WAIT) == TX_SUCCESS ? RTS_OK : RTS_ENOMEM;
}

rts_status rts_pool_free(rts_pool *p, void *block)
{
    (void)p;
    tx_block_release(block);
    return RTS_OK;
}

void rts_pool_destroy(rts_pool *p)
{
    if (!p)
        return;
    tx_block_pool_delete(&p->pool);
    rts_heap_free(p);
}

/* ---------------------------------------------------- software interrupt */

/* The board's interrupt runs the bench's handler itself, in which
 * ThreadX's services may be called as from any interrupt: the kernel knows
 * it is in one (on a Cortex-M by the IPSR; in its Linux simulator by the
 * interrupt thread's context save) and switches on the way out if it must,
 * so nothing need stand between them. Until a bench registers its handler,
 * the board's runs this one (rts_port_caps), which does nothing. */
static void soft_irq_entry(void *arg) { (void)arg; }

rts_status rts_soft_irq_register(void (*handler)(void *), void *arg)
{
    return board_soft_irq_register(handler, arg);
}

rts_status rts_soft_irq_raise(void) { return board_soft_irq_raise(); }

/* ------------------------------------------------------------------ heap */

/* The kernel's byte pool over the board's memory (rts_threadx_heap_memory);
 * made before the first thread, asked without waiting. */
static TX_BYTE_POOL heap;

void *rts_heap_alloc(size_t bytes)
{
    void *p;
    if (bytes > UINT32_MAX)
        return NULL;
    return tx_byte_allocate(&heap, &p, bytes ? (ULONG)bytes : 1, TX_NO_WAIT) == TX_SUCCESS ? p : NULL;
}

void rts_heap_free(void *p)
{
    if (p)
        tx_byte_release(p);
}

/* -------------------------------------------------------------- kernel */

#ifdef TX_ENABLE_STACK_CHECKING
/* The kernel found a thread's stack pattern overwritten or its pointer
 * beyond its stack (dev configuration). */
static void stack_error(TX_THREAD *thread)
{
    char text[96];
    snprintf(text, sizeof text, "thread %s overflowed its stack", thread->tx_thread_name);
    board_fatal(text);
}
#endif

/* ------------------------------------------------------- system identity */

/* The board's part (CPU, clock source, emulator or simulator), then the
 * kernel's: ThreadX, its version, commit and configuration. */
void rts_sysinfo_read(rts_sysinfo *info)
{
    *info = (rts_sysinfo){ .realtime_kernel = -1, .cpu_count = 1, .isolated_known = 1, .rt_runtime_us = -1,
                           .rt_period_us = -2 };
    board_sysinfo(info);
    snprintf(info->os, sizeof info->os, "ThreadX");
    snprintf(info->kernel_release, sizeof info->kernel_release, "%s", THREADX_VERSION);
    /* The rest of the build (tick, compiler, flags …) is the manifest's, system.os_config. */
    snprintf(info->kernel_version, sizeof info->kernel_version, "Eclipse ThreadX %s %s, %s configuration",
             THREADX_VERSION, RTS_KERNEL_SOURCE_ID, RTS_OS_CONFIG_NAME);
    snprintf(info->preempt_model, sizeof info->preempt_model, "full");
}

/* The configuration manifest, from tx_user.h, the kernel's headers and the
 * build's flags. Time slicing is off because every thread is made without
 * a slice (rts_thread_create); the task selection is the port's lowest
 * set bit of the ready-priority map (a CLZ on a Cortex-M3) where tx_port.h
 * gives one, else the kernel's generic C. */
#define BOOL_TEXT(on) ((on) ? "true" : "false")
#ifdef TX_DISABLE_ERROR_CHECKING
#define ERROR_CHECKING 0
#else
#define ERROR_CHECKING 1
#endif
#ifdef TX_ENABLE_STACK_CHECKING
#define STACK_CHECKING 1
#else
#define STACK_CHECKING 0
#endif
#if defined(TX_ENABLE_EVENT_TRACE)
#define TRACE_TEXT "event trace"
#elif defined(TX_ENABLE_EXECUTION_CHANGE_NOTIFY) || defined(TX_EXECUTION_PROFILE_ENABLE)
#define TRACE_TEXT "execution change notify"
#else
#define TRACE_TEXT "false"
#endif
#ifdef TX_LOWEST_SET_BIT_CALCULATE
#define TASK_SELECTION_TEXT "priority bitmap, the port's lowest set bit"
#else
#define TASK_SELECTION_TEXT "priority bitmap, generic"
#endif

const rts_os_setting *rts_os_config(size_t *count)
{
    static char tick_hz[12], priorities[12];
    static const rts_os_setting settings[] = {
        { "kernel", "ThreadX" },
        { "kernel_version", THREADX_VERSION },
        RTS_KERNEL_SOURCE_SETTINGS,
        { "config", RTS_OS_CONFIG_NAME },
        { "tick_hz", tick_hz },
        { "preemption", "true" },
        { "time_slicing", "false" },
        { "assertions", BOOL_TEXT(ERROR_CHECKING) },
        { "stack_check", BOOL_TEXT(STACK_CHECKING) },
        { "trace", TRACE_TEXT },
        { "heap", "byte pool" },
        { "task_selection", TASK_SELECTION_TEXT },
        { "priorities", priorities },
        { "compiler", RTS_COMPILER },
        { "cflags", RTS_BUILD_FLAGS },
    };
    snprintf(tick_hz, sizeof tick_hz, "%lu", (unsigned long)TX_TIMER_TICKS_PER_SECOND);
    snprintf(priorities, sizeof priorities, "%u", (unsigned)TX_MAX_PRIORITIES);
    *count = sizeof settings / sizeof settings[0];
    return settings;
}

/* --------------------------------------------------------------- startup */

/* The first thread runs the program (board_run_program). It starts as
 * "other", as a process's main thread does; the run raises it to the
 * policy asked for. */
static void app_entry(ULONG input)
{
    (void)input;
    board_run_program();
}

/* port.mk renames the program's main, not the port's. */
#undef main

/* Called by the kernel once it is initialised, before it schedules. */
void tx_application_define(void *first_unused_memory)
{
    (void)first_unused_memory;
    static ULONG app_stack[RTS_MAIN_STACK_BYTES / sizeof(ULONG)];
    void *memory;
    size_t bytes;
    rts_threadx_heap_memory(&memory, &bytes);
#ifdef TX_ENABLE_STACK_CHECKING
    tx_thread_stack_error_notify(stack_error);
#endif
    if (tx_byte_pool_create(&heap, "rtscope heap", memory, (ULONG)bytes) != TX_SUCCESS ||
        tx_thread_create(&app_thread, "rtscope-main", app_entry, 0, app_stack, sizeof app_stack, PRIORITY_OTHER,
                         PRIORITY_OTHER, TX_NO_TIME_SLICE, TX_AUTO_START) != TX_SUCCESS)
        board_fatal("ThreadX: the heap or the first thread could not be made");
}

/* The board's startup (or the simulator's process) calls main. */
int main(void)
{
    board_init();
    tx_kernel_enter();
    board_fatal("ThreadX: the kernel returned");
}
