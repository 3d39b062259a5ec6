/*
 * Template for a new port of the rtscope porting layer.
 *
 * Copy this folder to port/<os>/, fill in each function, and build with
 * `make PORT=<os>`. Contracts are in include/rtscope/port.h; the notes here
 * say how an RTOS usually meets them (FreeRTOS and Zephyr as examples).
 * Anything the OS cannot do: leave it returning RTS_ENOTSUP and clear its
 * flag in rts_port_caps(); benches that need it then report "skipped".
 *
 * This file compiles as it is (`make check-template`), and the whole probe
 * links against it for a Cortex-M3 (`make check-cross`), so it cannot drift
 * from the header: every function does nothing or returns "not supported".
 * Two things a 32-bit MCU port also needs to know: the probe uses no 64-bit
 * atomics (a Cortex-M3 has none), and its sizes shrink in
 * include/rtscope/config.h with -D in this folder's port.mk.
 *
 * What most RTOS ports lack comes ready-made from port/common/ (this
 * folder's port.mk lists it): the status names, rts_heap_calloc over
 * rts_heap_alloc (heap_calloc.c), a block pool (pool.c, under the lock of
 * this folder's pool_lock.h), the setup of one CPU
 * (one_cpu.c), and "not supported" for
 * processes and shared memory, files and pins, the ticker, GPIO lines and
 * scheduler statistics, each file saying how a port that can would do it.
 */
#include <stdio.h> /* snprintf only: the C library, not the OS */

#include "rtscope/port.h"
#include "port_time.h"

/* Flags for what this port really implements. */
unsigned rts_port_caps(void) { return 0; }

const char *rts_port_name(void) { return "template"; }

/* ------------------------------------------------------------------ time */

/* What rts_time_ns reads, e.g. "DWT_CYCCNT" or "SysTick". */
const char *rts_time_clock_name(void) { return "none"; }

/* The tick period, or the hardware timer's period in ns. */
uint64_t rts_time_resolution_ns(void) { return 0; }

/* FreeRTOS: xTaskDelayUntil() with ticks converted from ns (round up: never
 * early). Zephyr: k_sleep(K_TIMEOUT_ABS_NS(abs_ns)). */
rts_status rts_sleep_until_ns(uint64_t abs_ns)
{
    (void)abs_ns;
    return RTS_ENOTSUP;
}

rts_status rts_sleep_ns(uint64_t rel_ns) { return rts_sleep_until_ns(rts_time_ns() + rel_ns); }

/* A tick-based kernel's tick period (FreeRTOS: 1e9 / configTICK_RATE_HZ);
 * 0 where sleeps end at the clock's time. */
uint64_t rts_sleep_granularity_ns(void) { return 0; }

/* ------------------------------------------------------- scheduling setup */

/* An RTOS is strict-priority by nature: map 1..99 onto its range
 * (FreeRTOS: higher number = higher priority; Zephyr: lower number =
 * higher, cooperative below zero) with vTaskPrioritySet / k_thread_priority_set.
 * RR is time slicing among equals (configUSE_TIME_SLICING, CONFIG_TIMESLICING). */
rts_status rts_self_set_sched(rts_policy policy, int priority)
{
    (void)policy;
    (void)priority;
    return RTS_ENOTSUP;
}

/* ---------------------------------------------------------------- threads */

/* Typically a static pool of control blocks: { TaskHandle_t / struct
 * k_thread, fn, arg, a binary semaphore for suspend/resume }. */
struct rts_thread {
    int unused;
};

/* xTaskCreateStatic with attr->stack when given / k_thread_create. Create
 * suspended, set priority and core, then resume: the thread must never run
 * with other attributes. */
rts_status rts_thread_create(rts_thread **out, const rts_thread_attr *attr, void (*fn)(void *), void *arg)
{
    (void)out;
    (void)attr;
    (void)fn;
    (void)arg;
    return RTS_ENOTSUP;
}

/* RTOS tasks do not return: the entry wrapper gives a "finished" semaphore
 * and deletes itself; join takes that semaphore (k_thread_join on Zephyr). */
rts_status rts_thread_join(rts_thread *t)
{
    (void)t;
    return RTS_ENOTSUP;
}

rts_thread *rts_thread_self(void) { return NULL; }

/* The RTOS's minimal task stack in bytes (FreeRTOS: configMINIMAL_STACK_SIZE
 * words; Zephyr: CONFIG_..._STACK_SIZE); the template's guess is 1 KiB. */
size_t rts_thread_stack_min(void) { return 1024u; }

/* A per-thread binary semaphore gives the "remembered resume" the contract
 * asks for; vTaskSuspend/vTaskResume alone would lose an early resume. */
rts_status rts_thread_suspend_self(void) { return RTS_ENOTSUP; }

rts_status rts_thread_resume(rts_thread *t)
{
    (void)t;
    return RTS_ENOTSUP;
}

/* taskYIELD() / k_yield(). */
void rts_thread_relinquish(void) {}

/* A counter bumped in the context-switch hook (traceTASK_SWITCHED_IN,
 * CONFIG_THREAD_RUNTIME_STATS), or -1. */
long long rts_self_switches(void) { return -1; }

/* ------------------------------------------------------------- semaphores */

/* xSemaphoreCreateCounting(max, initial) / k_sem_init(sem, initial, max);
 * from an ISR use the FromISR variants. */
struct rts_sem {
    int unused;
};

rts_status rts_sem_create(rts_sem **out, unsigned initial, unsigned max)
{
    (void)out;
    (void)initial;
    (void)max;
    return RTS_ENOTSUP;
}

rts_status rts_sem_give(rts_sem *s)
{
    (void)s;
    return RTS_ENOTSUP;
}

rts_status rts_sem_take(rts_sem *s, uint64_t timeout_ns)
{
    (void)s;
    (void)timeout_ns;
    return RTS_ENOTSUP;
}

void rts_sem_destroy(rts_sem *s) { (void)s; }

/* ---------------------------------------------------------------- mutexes */

/* FreeRTOS mutexes always inherit priority; Zephyr k_mutex does too. A
 * plain (non-inheriting) mutex on such an OS is a binary semaphore. */
struct rts_mutex {
    int unused;
};

rts_status rts_mutex_create(rts_mutex **out, bool inherit)
{
    (void)out;
    (void)inherit;
    return RTS_ENOTSUP;
}

rts_status rts_mutex_lock(rts_mutex *m)
{
    (void)m;
    return RTS_ENOTSUP;
}

rts_status rts_mutex_unlock(rts_mutex *m)
{
    (void)m;
    return RTS_ENOTSUP;
}

void rts_mutex_destroy(rts_mutex *m) { (void)m; }

/* --------------------------------------------------------- message queues */

/* xQueueCreate(capacity, msg_size) / k_msgq_init. */
struct rts_queue {
    int unused;
};

rts_status rts_queue_create(rts_queue **out, size_t msg_size, unsigned capacity)
{
    (void)out;
    (void)msg_size;
    (void)capacity;
    return RTS_ENOTSUP;
}

rts_status rts_queue_send(rts_queue *q, const void *msg, uint64_t timeout_ns)
{
    (void)q;
    (void)msg;
    (void)timeout_ns;
    return RTS_ENOTSUP;
}

rts_status rts_queue_receive(rts_queue *q, void *msg, uint64_t timeout_ns)
{
    (void)q;
    (void)msg;
    (void)timeout_ns;
    return RTS_ENOTSUP;
}

void rts_queue_destroy(rts_queue *q) { (void)q; }

/* ---------------------------------------------------- software interrupt */

/* A spare interrupt line: install the handler in the vector table (Zephyr
 * IRQ_CONNECT / irq_enable), raise it by writing the NVIC's STIR or
 * NVIC_SetPendingIRQ (Cortex-M), and make sure its priority lets it
 * preempt the raising task so that it has run when raise returns. */
rts_status rts_soft_irq_register(void (*handler)(void *), void *arg)
{
    (void)handler;
    (void)arg;
    return RTS_ENOTSUP;
}

rts_status rts_soft_irq_raise(void) { return RTS_ENOTSUP; }

/* ------------------------------------------------------- timer interrupt */

/* A hardware timer (a spare general-purpose timer, or the SysTick's
 * compare channel) in periodic mode: its ISR reads the cycle counter first,
 * works out the expiry it serves from the compare value, and calls the
 * handler. Set RTS_CAP_TIMER_IRQ once it does. */
rts_status rts_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                               void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns), void *arg)
{
    (void)first_ns;
    (void)period_ns;
    (void)handler;
    (void)arg;
    return RTS_ENOTSUP;
}

rts_status rts_timer_irq_stop(uint64_t *missed)
{
    (void)missed;
    return RTS_ENOTSUP;
}

/* ------------------------------------------------------------------ heap */

/* pvPortMalloc / vPortFree, or k_malloc / k_free. The probe takes its own
 * memory here too (metrics: a histogram each, RTS_HIST_* in
 * rtscope/config.h), so size configTOTAL_HEAP_SIZE for both. */
void *rts_heap_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void rts_heap_free(void *p) { (void)p; }

/* ------------------------------------------- console and diagnostics */

/* A UART driven by polling (a probe prints little, and never while it
 * measures), or semihosting SYS_WRITE to handle 1; under a scheduler, take
 * a mutex around it so that lines do not interleave. */
void rts_console_write(const char *text, size_t n)
{
    (void)text;
    (void)n;
}

/* The same channel as the console on a board with one UART; semihosting
 * can use handle 2. */
void rts_diag_write(const char *text, size_t n)
{
    (void)text;
    (void)n;
}

/* ------------------------------------------------------- result output */

/* Semihosting: SYS_OPEN of "<dest>.tmp" on the host, SYS_WRITE, and on
 * commit SYS_CLOSE then SYS_RENAME over dest (abort: SYS_REMOVE); set
 * RTS_CAP_FILES. Over a UART there is no file: frame the document (a start
 * line, the bytes, an end line with its length and a CRC) so that the host
 * keeps only a complete one; abort sends a line that cancels it. */
struct rts_sink {
    int unused;
};

rts_status rts_sink_open(rts_sink **out, const char *dest, char *why, size_t whysize)
{
    (void)dest;
    *out = NULL;
    snprintf(why, whysize, "the template port has no result output");
    return RTS_ENOTSUP;
}

rts_status rts_sink_write(rts_sink *s, const void *data, size_t n)
{
    (void)s;
    (void)data;
    (void)n;
    return RTS_ENOTSUP;
}

rts_status rts_sink_commit(rts_sink *s, char *why, size_t whysize)
{
    (void)s;
    (void)why;
    (void)whysize;
    return RTS_ENOTSUP;
}

void rts_sink_abort(rts_sink *s) { (void)s; }

/* -------------------------------------------------------------- process */

/* Let the console drain, then semihosting SYS_EXIT (ADP_Stopped_ApplicationExit
 * with the status: QEMU exits with it) or, on a board, NVIC_SystemReset().
 * Never return: a stuck task cannot be stopped any other way. */
_Noreturn void rts_process_end(int status)
{
    (void)status;
    for (;;) {
    }
}

/* -------------------------------------------------- stop requests, signals */

/* A button, a console key or a debugger write can set a flag here. */
rts_status rts_stop_requests_catch(void) { return RTS_OK; }

bool rts_stop_requested(void) { return false; }

/* ------------------------------------------------------- system identity */

/* Fill what the board knows: os "FreeRTOS" with tskKERNEL_VERSION_NUMBER,
 * cpu_model from the SoC, cpu_count, preempt_model "full" for a preemptive
 * kernel (configUSE_PREEMPTION), realtime_kernel -1. */
void rts_sysinfo_read(rts_sysinfo *info)
{
    *info = (rts_sysinfo){ .realtime_kernel = -1, .cpu_count = 1, .rt_runtime_us = -2, .rt_period_us = -2 };
}

/* The kernel's build settings, each from its own configuration macro (the
 * FreeRTOS port's is the example: configTICK_RATE_HZ, configASSERT …), so
 * that a result says how the OS was built; none here. */
const rts_os_setting *rts_os_config(size_t *count)
{
    *count = 0;
    return NULL;
}

/* An RTC if the board has one; zero otherwise (the analyzer stamps runs it receives). */
void rts_wallclock(int64_t *sec, long *nsec)
{
    *sec = 0;
    *nsec = 0;
}

/* A hardware RNG (e.g. the STM32 RNG peripheral) or a mix of timer reads. */
void rts_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(rts_time_ns() >> (i % 8));
}
