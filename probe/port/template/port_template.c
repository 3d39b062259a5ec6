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
 */
#include <stdio.h> /* snprintf only: the C library, not the OS */

#include "rtscope/port.h"
#include "port_time.h"

const char *rts_status_str(rts_status st)
{
    /* Copy the table from port/posix/port_posix.c: it has no OS calls. */
    return st == RTS_OK ? "ok" : "error";
}

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

/* ------------------------------------------------------- scheduling setup */

const char *rts_policy_name(rts_policy p)
{
    return p == RTS_POLICY_FIFO ? "fifo" : p == RTS_POLICY_RR ? "rr" : "other";
}

/* configNUMBER_OF_CORES / CONFIG_MP_MAX_NUM_CPUS; 1 on a single core. */
int rts_cpu_count(void) { return 1; }

bool rts_cpu_allowed(int cpu) { return cpu == 0; }

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

/* SMP only: vTaskCoreAffinitySet / k_thread_cpu_pin. */
rts_status rts_self_set_cpu(int cpu) { return cpu <= 0 ? RTS_OK : RTS_EINVAL; }

int rts_self_cpu(void) { return 0; }

/* No paging on an MCU: memory is always resident, so this succeeds. */
rts_status rts_mem_lock_all(void) { return RTS_OK; }

/* No idle-state control to hold: report it as absent. */
rts_status rts_cpu_latency_limit(int us)
{
    (void)us;
    return RTS_ENOTSUP;
}

void rts_stack_prefault(size_t bytes) { (void)bytes; }

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

/* ------------------------------------------------------ fixed-block pools */

/* Zephyr: k_mem_slab; FreeRTOS has none: a free list under a critical
 * section (as in port/posix) is the usual answer. */
struct rts_pool {
    int unused;
};

rts_status rts_pool_create(rts_pool **out, size_t block_size, unsigned count)
{
    (void)out;
    (void)block_size;
    (void)count;
    return RTS_ENOTSUP;
}

rts_status rts_pool_alloc(rts_pool *p, void **block)
{
    (void)p;
    (void)block;
    return RTS_ENOTSUP;
}

rts_status rts_pool_free(rts_pool *p, void *block)
{
    (void)p;
    (void)block;
    return RTS_ENOTSUP;
}

void rts_pool_destroy(rts_pool *p) { (void)p; }

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

/* rts_heap_alloc of count * size (refuse when it overflows), then memset 0. */
void *rts_heap_calloc(size_t count, size_t size)
{
    (void)count;
    (void)size;
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

/* ------------------------------------------------------------ processes */

/* An RTOS runs one program: no processes (RTS_CAP_PROCESSES stays clear),
 * so wave.square is skipped; a pin there is a GPIO line, observed by a
 * bench of its own. */
rts_status rts_proc_spawn(rts_proc **out, const rts_proc_attr *attr, char *why, size_t whysize)
{
    (void)attr;
    *out = NULL;
    snprintf(why, whysize, "this port cannot start processes");
    return RTS_ENOTSUP;
}

rts_status rts_proc_wait(rts_proc *p, uint64_t timeout_ns, int *status)
{
    (void)p;
    (void)timeout_ns;
    (void)status;
    return RTS_ENOTSUP;
}

rts_status rts_proc_signal(rts_proc *p, bool force)
{
    (void)p;
    (void)force;
    return RTS_ENOTSUP;
}

const char *rts_proc_last_line(const rts_proc *p)
{
    (void)p;
    return "";
}

void rts_proc_release(rts_proc *p) { (void)p; }

rts_status rts_proc_self_path(char *buf, size_t size)
{
    (void)buf;
    (void)size;
    return RTS_ENOTSUP;
}

bool rts_proc_findable(const char *program)
{
    (void)program;
    return false;
}

/* ------------------------------------------------------------------ pins */

/* Without files (RTS_CAP_FILES clear) there is no pin file to share. */
rts_status rts_pin_create(rts_pin **out, char *why, size_t whysize)
{
    *out = NULL;
    snprintf(why, whysize, "this port has no files for a pin");
    return RTS_ENOTSUP;
}

rts_status rts_pin_open(rts_pin **out, const char *path, char *why, size_t whysize)
{
    (void)path;
    return rts_pin_create(out, why, whysize);
}

const char *rts_pin_path(const rts_pin *p)
{
    (void)p;
    return "";
}

volatile unsigned char *rts_pin_byte(const rts_pin *p)
{
    (void)p;
    return NULL;
}

rts_status rts_pin_write(rts_pin *p, unsigned char byte)
{
    (void)p;
    (void)byte;
    return RTS_ENOTSUP;
}

void rts_pin_close(rts_pin *p) { (void)p; }

/* ---------------------------------------------------------------- ticker */

/* A periodic software timer whose callback gives a semaphore the waiter
 * takes (xTimerCreate with auto-reload / k_timer with a period) would do;
 * set RTS_CAP_TICKER then. */
rts_status rts_ticker_start(rts_ticker **out, uint64_t first_ns, uint64_t period_ns)
{
    (void)first_ns;
    (void)period_ns;
    *out = NULL;
    return RTS_ENOTSUP;
}

rts_status rts_ticker_wait(rts_ticker *t, uint64_t *expiries)
{
    (void)t;
    (void)expiries;
    return RTS_ENOTSUP;
}

void rts_ticker_stop(rts_ticker *t) { (void)t; }

/* ------------------------------------------------------------ GPIO lines */

/* Without RTS_CAP_GPIO: a board's port drives and watches its lines here
 * (an output register; an input capture or edge interrupt stamped with
 * rts_time_ns's clock). */
rts_status rts_gpio_output(rts_gpio **out, const char *chip, unsigned line, int level, char *why, size_t whysize)
{
    (void)chip, (void)line, (void)level;
    *out = NULL;
    snprintf(why, whysize, "this port has no GPIO lines");
    return RTS_ENOTSUP;
}

rts_status rts_gpio_set(rts_gpio *g, int level)
{
    (void)g, (void)level;
    return RTS_ENOTSUP;
}

rts_status rts_gpio_input(rts_gpio **out, const char *chip, unsigned line, int *level, char *why, size_t whysize)
{
    (void)chip, (void)line, (void)level;
    *out = NULL;
    snprintf(why, whysize, "this port has no GPIO lines");
    return RTS_ENOTSUP;
}

rts_status rts_gpio_next_edge(rts_gpio *g, uint64_t timeout_ns, rts_gpio_edge *edge)
{
    (void)g, (void)timeout_ns, (void)edge;
    return RTS_ENOTSUP;
}

void rts_gpio_close(rts_gpio *g) { (void)g; }

/* -------------------------------------------------------- shared memory */

/* Without processes there is no one to share memory with. */
rts_status rts_shm_create(rts_shm **out, size_t bytes, char *why, size_t whysize)
{
    (void)bytes;
    *out = NULL;
    snprintf(why, whysize, "this port has no processes");
    return RTS_ENOTSUP;
}

rts_status rts_shm_open(rts_shm **out, const char *path, char *why, size_t whysize)
{
    (void)path;
    *out = NULL;
    snprintf(why, whysize, "this port has no processes");
    return RTS_ENOTSUP;
}

const char *rts_shm_path(const rts_shm *s)
{
    (void)s;
    return "";
}

void *rts_shm_base(const rts_shm *s)
{
    (void)s;
    return NULL;
}

size_t rts_shm_size(const rts_shm *s)
{
    (void)s;
    return 0;
}

void rts_shm_close(rts_shm *s) { (void)s; }

rts_status rts_shm_wait(atomic_uint *word, unsigned expected, uint64_t timeout_ns)
{
    (void)word;
    (void)expected;
    (void)timeout_ns;
    return RTS_ENOTSUP;
}

void rts_shm_wake(atomic_uint *word) { (void)word; }

/* ------------------------------------------- per-thread scheduler statistics */

/* Where the kernel keeps a thread's run time and ready-queue wait (Zephyr:
 * k_thread_runtime_stats_get with CONFIG_SCHED_THREAD_USAGE gives the run
 * time only; FreeRTOS: ulTaskGetRunTimeCounter, likewise) read them here
 * and set RTS_CAP_SCHED_STATS. Without it, app.workload reports only the
 * mutex part of waiting time and says so. */
struct rts_sched_stats {
    int unused;
};

rts_status rts_sched_stats_open(rts_sched_stats **out)
{
    *out = NULL;
    return RTS_ENOTSUP;
}

rts_status rts_sched_stats_read(rts_sched_stats *s, rts_sched_times *times)
{
    (void)s;
    (void)times;
    return RTS_ENOTSUP;
}

void rts_sched_stats_close(rts_sched_stats *s) { (void)s; }

/* ----------------------------------------------------------------- files */

/* Without files (RTS_CAP_FILES clear) there is nothing to read: a board
 * with a file system (FatFs, littlefs) opens and reads one here. */
rts_status rts_file_open(rts_file **out, const char *path, char *why, size_t whysize)
{
    (void)path;
    *out = NULL;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

rts_status rts_file_read(rts_file *f, void *buf, size_t size, size_t *got)
{
    (void)f;
    (void)buf;
    (void)size;
    *got = 0;
    return RTS_ENOTSUP;
}

void rts_file_close(rts_file *f) { (void)f; }

rts_status rts_file_write_text(const char *path, const char *text, char *why, size_t whysize)
{
    (void)path;
    (void)text;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

rts_status rts_tempfile_create(rts_tempfile **out, char *why, size_t whysize)
{
    *out = NULL;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

const char *rts_tempfile_path(const rts_tempfile *t)
{
    (void)t;
    return "";
}

void rts_tempfile_close(rts_tempfile *t) { (void)t; }
