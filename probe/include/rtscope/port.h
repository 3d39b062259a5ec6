/*
 * rtscope porting layer: the only place where the probe touches the OS.
 *
 * Everything a benchmark needs from an operating system goes through these
 * functions, and so does everything the probe itself needs: its memory,
 * its text (console and diagnostics), its result document (a sink) and
 * the end of the process. Porting the probe to an RTOS means writing one
 * file of its OS-facing part (see port/template/port_template.c), and a
 * board for the machine under it (docs/porting.md); src/ and bench/ use
 * the C library only for what needs no OS (formatting, strings, math:
 * make check-cross holds it). Each function states its contract;
 * a port that cannot honour one clears the matching capability flag and
 * returns RTS_ENOTSUP, and benches that need it report "skipped", never a
 * number measured some other way.
 *
 * Every port also supplies a header "port_time.h" on the include path with
 *   static inline uint64_t rts_time_ns(void);
 * the monotonic clock in nanoseconds. It is inline because benches read it
 * in their measured path and its cost is part of every sample.
 */
#ifndef RTSCOPE_PORT_H
#define RTSCOPE_PORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtscope/config.h"

/* Status codes returned by every port function. */
typedef enum {
    RTS_OK = 0,
    RTS_ETIMEDOUT,   /* a bounded wait expired */
    RTS_EAGAIN,      /* would block / full / empty and no waiting was asked */
    RTS_EPERM,       /* the OS refused for lack of privilege */
    RTS_EINVAL,      /* bad argument (CPU out of range, priority out of range …) */
    RTS_ENOMEM,      /* out of memory or pool exhausted */
    RTS_ENOTSUP,     /* this port cannot do it (see capabilities) */
    RTS_EFAIL        /* any other OS failure */
} rts_status;

/* Human-readable name of a status, never NULL. */
const char *rts_status_str(rts_status st);

/* Capability flags: what the platform offers. */
enum {
    RTS_CAP_PRIORITY_SCHED = 1u << 0, /* strict-priority scheduling (fifo/rr) */
    RTS_CAP_AFFINITY       = 1u << 1, /* threads can be pinned to a CPU */
    RTS_CAP_MLOCK          = 1u << 2, /* memory pages, and can be locked against it */
    RTS_CAP_PI_MUTEX       = 1u << 3, /* priority-inheritance mutexes */
    RTS_CAP_SOFT_IRQ       = 1u << 4, /* a software interrupt can be raised */
    RTS_CAP_CYCLE_COUNTER  = 1u << 5, /* invariant CPU cycle counter readable */
    RTS_CAP_SYSINFO        = 1u << 6, /* rts_sysinfo_read fills real values */
    RTS_CAP_TIMER_IRQ      = 1u << 7, /* a periodic timer interrupt can be taken */
    RTS_CAP_FILES          = 1u << 8, /* result sinks are files named by their destination; files can be read (rts_file_*) */
    RTS_CAP_PROCESSES      = 1u << 9, /* other programs can be started as processes (rts_proc_*) */
    RTS_CAP_TICKER         = 1u << 10, /* a thread can wait on a periodic kernel timer (rts_ticker_*) */
    RTS_CAP_GPIO           = 1u << 11, /* GPIO lines can be driven and their edges timestamped (rts_gpio_*) */
    RTS_CAP_SCHED_STATS    = 1u << 12  /* a thread's time on a CPU and waiting for one is counted (rts_sched_stats_*) */
};

/* Bitwise OR of RTS_CAP_* for this build on this machine. */
unsigned rts_port_caps(void);

/* Short name of this port, e.g. "posix". */
const char *rts_port_name(void);

/* ---------------------------------------------------------------- time */

#define RTS_FOREVER UINT64_MAX /* timeout meaning "wait without bound" */

/* Name of the clock rts_time_ns reads, for the result (e.g. "CLOCK_MONOTONIC"). */
const char *rts_time_clock_name(void);

/* Resolution of the monotonic clock in ns (0 if unknown). */
uint64_t rts_time_resolution_ns(void);

/* Block the calling thread until the monotonic clock reads abs_ns.
 * Returns RTS_OK at or after abs_ns, never earlier. */
rts_status rts_sleep_until_ns(uint64_t abs_ns);

/* Block the calling thread for at least rel_ns. */
rts_status rts_sleep_ns(uint64_t rel_ns);

/* The granularity of the sleeps above in ns, as the port declares it: 0
 * where a sleep ends when the clock reaches its time (Linux's
 * high-resolution timers), else the kernel's tick, in which an RTOS counts
 * sleeps: a wake-up there comes up to a tick after the time asked, however
 * fine the clock. Recorded in the result (timing.sleep_granularity_ns). */
uint64_t rts_sleep_granularity_ns(void);

/* ------------------------------------------------------ scheduling setup */

typedef enum { RTS_POLICY_OTHER = 0, RTS_POLICY_FIFO, RTS_POLICY_RR } rts_policy;

/* "other", "fifo", "rr". */
const char *rts_policy_name(rts_policy p);

/* The priorities of fifo and rr, numbered as Linux numbers them (higher runs
 * first): a port maps RTS_PRIORITY_MIN..RTS_PRIORITY_MAX onto its kernel's
 * range and refuses others with RTS_EINVAL. The probe's watchdog takes the
 * top one, its supervisor on one CPU the one below. */
#define RTS_PRIORITY_MIN 1
#define RTS_PRIORITY_MAX 99
/* The measuring threads' priority (and a c-rt generator's) when the user
 * names none: high, with room above for the supervisor and the watchdog. */
#define RTS_PRIORITY_DEFAULT 80

/* Number of CPUs the OS reports online (>= 1). */
int rts_cpu_count(void);

/* True when the calling process may run on CPU cpu. */
bool rts_cpu_allowed(int cpu);

/* Set the calling thread's policy and priority (priority ignored for OTHER).
 * RTS_EPERM when privilege is missing: the thread keeps what it had. */
rts_status rts_self_set_sched(rts_policy policy, int priority);

/* Pin the calling thread to one CPU (cpu < 0: allow all CPUs). */
rts_status rts_self_set_cpu(int cpu);

/* The CPU the calling thread runs on now (-1 if unknown). */
int rts_self_cpu(void);

/* Lock current and future memory. RTS_EPERM / RTS_ENOMEM when refused;
 * RTS_ENOTSUP where memory never pages (RTS_CAP_MLOCK clear: there is no
 * such setting, and a result records it as not applicable). */
rts_status rts_mem_lock_all(void);

/* Ask the platform to keep CPU wake-up latency at or below us microseconds
 * (deep idle states off) for the life of the process. RTS_ENOTSUP where
 * there is no such control (a result records it as not applicable),
 * RTS_EPERM without the privilege for it. */
rts_status rts_cpu_latency_limit(int us);

/* Lift the kernel's throttling of real-time threads (Linux: RT throttling,
 * sched_rt_runtime_us = -1) for the rest of the run: a system setting
 * (rts_setting_write), put back with the others by rts_settings_restore or
 * however the process ends. RTS_OK also when it was off already; RTS_EPERM
 * without the privilege; RTS_ENOTSUP where the platform has no such
 * throttling (a result records it as not applicable). */
rts_status rts_rt_throttling_lift(void);

/* Touch bytes of the calling thread's stack so that it is resident. */
void rts_stack_prefault(size_t bytes);

/* ---------------------------------------------------------------- threads */

typedef struct rts_thread rts_thread;

typedef struct {
    const char *name;   /* for debuggers; may be NULL */
    rts_policy policy;
    int priority;       /* RTS_PRIORITY_MIN..MAX for FIFO/RR, ignored for OTHER */
    int cpu;            /* pin to this CPU; -1: any */
    size_t stack_size;  /* 0: port default */
    void *stack;        /* caller-allocated stack of stack_size bytes, or NULL */
} rts_thread_attr;

/* Create and start a thread running fn(arg) with the attributes given.
 * fn runs only once policy, priority and CPU are applied (a port may pin
 * the thread itself before calling fn). RTS_EPERM if the policy needs privilege not held;
 * nothing is created then. On success *out is valid until rts_thread_join. */
rts_status rts_thread_create(rts_thread **out, const rts_thread_attr *attr,
                             void (*fn)(void *), void *arg);

/* Wait for t to return, then release it. t is invalid afterwards. */
rts_status rts_thread_join(rts_thread *t);

/* The calling thread's handle, or NULL for threads not made by rts_thread_create. */
rts_thread *rts_thread_self(void);

/* The smallest stack rts_thread_create takes, in bytes (POSIX:
 * PTHREAD_STACK_MIN, 128 KiB with glibc on arm64; an RTOS: its minimal
 * task stack). */
size_t rts_thread_stack_min(void);

/* Suspend the calling thread until another thread calls rts_thread_resume on
 * it. A resume that arrives first is remembered (one at most), so the pair
 * cannot lose a wake-up. Only the calling thread can be suspended. */
rts_status rts_thread_suspend_self(void);

/* Make t runnable if it is suspended, or remember the resume (see above). */
rts_status rts_thread_resume(rts_thread *t);

/* Give the CPU to another ready thread of the same priority, if any. */
void rts_thread_relinquish(void);

/* Context switches of the calling thread so far (blocking and preempted
 * alike), or -1 where the OS does not count them. Benches use it to check
 * that they caused the switches they claim to time. */
long long rts_self_switches(void);

/* ------------------------------------------------------------- semaphores */

typedef struct rts_sem rts_sem;

/* Create a semaphore holding initial tokens, at most max (max 1: binary).
 * initial <= max. */
rts_status rts_sem_create(rts_sem **out, unsigned initial, unsigned max);

/* Add a token and wake one waiter. RTS_EAGAIN if max tokens are held already
 * (the token is not added). Callable from a soft-IRQ handler. */
rts_status rts_sem_give(rts_sem *s);

/* Take a token, waiting up to timeout_ns (0: do not wait; RTS_FOREVER).
 * RTS_OK, RTS_EAGAIN (timeout 0 and empty) or RTS_ETIMEDOUT. */
rts_status rts_sem_take(rts_sem *s, uint64_t timeout_ns);

/* Release a semaphore nobody waits on. */
void rts_sem_destroy(rts_sem *s);

/* ---------------------------------------------------------------- mutexes */

typedef struct rts_mutex rts_mutex;

/* Create a mutex; with inherit true it applies priority inheritance
 * (RTS_ENOTSUP where RTS_CAP_PI_MUTEX is missing). */
rts_status rts_mutex_create(rts_mutex **out, bool inherit);

/* Take m, waiting without bound; release m, held by the calling thread. */
rts_status rts_mutex_lock(rts_mutex *m);
rts_status rts_mutex_unlock(rts_mutex *m);

/* Release a mutex nobody holds or waits on. */
void rts_mutex_destroy(rts_mutex *m);

/* --------------------------------------------------------- message queues */

typedef struct rts_queue rts_queue;

/* Create a FIFO queue of capacity messages of msg_size bytes each. */
rts_status rts_queue_create(rts_queue **out, size_t msg_size, unsigned capacity);

/* Copy msg_size bytes from msg to the tail; wait up to timeout_ns if full. */
rts_status rts_queue_send(rts_queue *q, const void *msg, uint64_t timeout_ns);

/* Copy the head message to msg (msg_size bytes) and remove it; wait up to
 * timeout_ns if empty. Messages come out in the order they were sent. */
rts_status rts_queue_receive(rts_queue *q, void *msg, uint64_t timeout_ns);

/* Release a queue nobody waits on; messages still in it are dropped. */
void rts_queue_destroy(rts_queue *q);

/* ------------------------------------------------------ fixed-block pools */

typedef struct rts_pool rts_pool;

/* Create a pool of count blocks of block_size bytes, all allocated up front. */
rts_status rts_pool_create(rts_pool **out, size_t block_size, unsigned count);

/* Take a block; RTS_ENOMEM when all blocks are taken (never blocks). */
rts_status rts_pool_alloc(rts_pool *p, void **block);

/* Return a block taken from this pool; anything else is undefined, as with
 * the kernels' own pools, which check nothing here (tm.memory times it). */
rts_status rts_pool_free(rts_pool *p, void *block);

/* Release the pool and all its blocks, taken or not. */
void rts_pool_destroy(rts_pool *p);

/* ---------------------------------------------------- software interrupt */

/* Register the handler run by rts_soft_irq_raise. The handler runs in
 * interrupt context (on POSIX: a signal handler in the raising thread) and
 * may only call rts_sem_give and rts_thread_resume. */
rts_status rts_soft_irq_register(void (*handler)(void *), void *arg);

/* Raise the software interrupt; the handler has run when this returns. */
rts_status rts_soft_irq_raise(void);

/* ------------------------------------------------------- timer interrupt */

/* Start the periodic timer interrupt: first expiry at first_ns on the
 * monotonic clock, then every period_ns. Each expiry runs handler in
 * interrupt context on the calling thread (on POSIX: a real-time signal
 * directed at it), with the expiry it serves (planned_ns: first_ns plus
 * whole periods, expiries merged by a late delivery skipped) and the clock
 * read first thing on entry (entered_ns). The handler may only record.
 * One timer at a time. RTS_ENOTSUP where RTS_CAP_TIMER_IRQ is missing. */
rts_status rts_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                               void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns), void *arg);

/* Stop the timer; no handler runs once this returns. Expiries merged into
 * later deliveries so far are returned in *missed (may be NULL). */
rts_status rts_timer_irq_stop(uint64_t *missed);

/* ----------------------------------------------------------------- heap */

/* General-purpose allocation (the OS's heap: malloc, pvPortMalloc …), for
 * all the probe's own memory (metrics, samples, series, thread starts) and
 * for the heap benches. Callable from any thread (not from an interrupt).
 * NULL when the heap cannot give bytes. */
void *rts_heap_alloc(size_t bytes);

/* count * size bytes from the heap, all zero; NULL when the product
 * overflows or the heap cannot give them. */
void *rts_heap_calloc(size_t count, size_t size);

/* Return p, from rts_heap_alloc or rts_heap_calloc, to the heap; NULL: nothing. */
void rts_heap_free(void *p);

/* ------------------------------------------- console and diagnostics */

/* Write n bytes of the probe's output (the summary table, bench lists,
 * usage, version) to the console: stdout on POSIX; on a board a UART or
 * semihosting. Text that cannot be written is dropped: there is nowhere
 * to report it. Callable from any thread (not from an interrupt). */
void rts_console_write(const char *text, size_t n);

/* Write n bytes of diagnostics (progress, warnings, errors, usage after a
 * mistake) where a person watching sees them: stderr on POSIX; on a board
 * the console itself. As rts_console_write otherwise; the bytes of one
 * call are not interleaved with another thread's. */
void rts_diag_write(const char *text, size_t n);

/* ------------------------------------------------------- result output */

/* A sink takes one result document for a destination, and makes it appear
 * there whole or not at all: a reader of the destination never sees half a
 * document, even when the probe is killed while writing it. */
typedef struct rts_sink rts_sink;

/* The destination that means "the console stream" (stdout on POSIX): the
 * document goes there as it is written, and the probe's own console text
 * (the summary) then goes to diagnostics instead. */
#define RTS_SINK_CONSOLE "-"

/* Open a sink for dest (a file path where RTS_CAP_FILES is set; a port
 * without files may take any dest to mean its one output channel). Nothing
 * appears at dest yet. On failure *out is NULL and why holds one line
 * saying why (e.g. the OS's reason). dest is copied. */
rts_status rts_sink_open(rts_sink **out, const char *dest, char *why, size_t whysize);

/* Append n bytes to the document. A failure is sticky: later writes do
 * nothing, and rts_sink_commit fails with its reason. */
rts_status rts_sink_write(rts_sink *s, const void *data, size_t n);

/* Make the document appear at the destination, whole (POSIX: flush, sync
 * and rename a temporary file beside dest over it; a console sink is
 * flushed), and release s. On failure (here or in an earlier write)
 * nothing appears, the temporary is removed, s is released, and why holds
 * one line saying why. */
rts_status rts_sink_commit(rts_sink *s, char *why, size_t whysize);

/* Drop the document (the temporary is removed) and release s. */
void rts_sink_abort(rts_sink *s);

/* -------------------------------------------------------------- process */

/* End the probe now with exit status status, from any thread, whatever the
 * others are doing (one may be stuck for good: the watchdog's case).
 * Console and diagnostic text written before is delivered first; nothing
 * else is cleaned up (an open sink is not committed). On a board:
 * semihosting's exit, or a reset after the output has drained. */
_Noreturn void rts_process_end(int status);

/* ------------------------------------------------ stop requests, signals */

/* Arrange that an interrupt request from the user (SIGINT/SIGTERM on POSIX,
 * and SIGHUP: the connection to the terminal was lost) sets the stop flag
 * instead of killing the probe. */
rts_status rts_stop_requests_catch(void);

/* True once the user asked the run to stop. */
bool rts_stop_requested(void);

/* ------------------------------------------------------- system identity */

/* What the result records about the system. Text fields are "" when
 * unknown (the writer turns them into null); integers are -1 when unknown. */
typedef struct {
    char hostname[RTS_SYS_NAME];
    char os[RTS_SYS_WORD];
    char kernel_release[RTS_SYS_NAME];
    char kernel_version[RTS_SYS_TEXT];
    char preempt_model[16];   /* none voluntary full lazy rt dynamic unknown */
    int realtime_kernel;      /* 1, 0, -1 unknown */
    char arch[32];
    char cpu_model[RTS_SYS_LIST];
    int cpu_count;
    char cpus_online[RTS_SYS_WORD];
    char governor[RTS_SYS_WORD];
    char clocksource[RTS_SYS_WORD];
    char cmdline[RTS_SYS_CMDLINE];
    char isolated_cpus[RTS_SYS_LIST];
    int isolated_known;       /* isolated_cpus "" means none when 1 */
    long long rt_runtime_us;  /* -1: throttling off; -2: unknown */
    long long rt_period_us;   /* -2: unknown */
    /* Linux 6.12+: the fair server, which gives waiting normal tasks
     * runtime of every period over real-time threads, as RT throttling
     * does; its settings (debugfs), else the defaults by the release.
     * period 0: none (not in the result: it says how the run watches). */
    long long fair_runtime_us, fair_period_us;
    char virtualization[RTS_SYS_NAME];
} rts_sysinfo;

/* Fill info with what this platform can tell. Never fails: unknown stays unknown. */
void rts_sysinfo_read(rts_sysinfo *info);

/* The probe's own image in memory, in bytes: its code (and the constants a
 * board's linker script places with it), its initialised data, its zeroed
 * data; -1 where the link does not tell. */
typedef struct {
    long long text, data, bss;
} rts_image;

/* Fill image from the symbols the linker defines (port/common/image.c:
 * GNU ld's __executable_start, etext, __data_start, edata, __bss_start and
 * end, which a board's linker script defines alike); every port's build
 * includes that file. */
void rts_image_read(rts_image *image);

/* Current UTC wall-clock time as seconds and nanoseconds (for run stamps). */
void rts_wallclock(int64_t *sec, long *nsec);

/* Fill buf with n unpredictable bytes (run ids). */
void rts_random_bytes(void *buf, size_t n);

/* One setting of the OS build, as the build itself defines it. */
typedef struct {
    const char *name;  /* kernel, kernel_version, kernel_commit, config, tick_hz, preemption, time_slicing,
                          assertions, stack_check, trace, heap, task_selection, priorities, compiler, cflags */
    const char *value; /* as text: "true"/"false" and digits become JSON booleans and integers */
} rts_os_setting;

/* The configuration manifest of the OS the probe is built with, read at compile time from the kernel's
 * own configuration (FreeRTOSConfig.h, tx_user.h, the build's flags), never typed a second time.
 * *count is 0 where the OS is not built with the probe (Linux). */
const rts_os_setting *rts_os_config(size_t *count);

/* ------------------------------------------------------------ processes */

/* Another program, run as a process of its own: a square-wave generator
 * (docs/wave.md) or any program that follows an interface of the probe's.
 * RTS_ENOTSUP everywhere where RTS_CAP_PROCESSES is missing (an RTOS). */
typedef struct rts_proc rts_proc;

typedef struct {
    const char *const *argv;  /* the program and its arguments, NULL-terminated; argv[0]
                               * without a '/' is looked up on the search path (PATH) */
    const char *const *env;   /* "NAME=value" added to the probe's environment
                               * (replacing a variable of that name), NULL-terminated; may be NULL */
    int cpu;                  /* pin the process to this CPU; -1: any */
} rts_proc_attr;

/* Start the program of attr as a new process: pinned to attr->cpu from
 * before its first instruction, at the normal policy (other) whatever the
 * caller's, in a process group of its own (a user's Ctrl-C at a terminal
 * does not reach it: the probe stops it), its standard input empty, its
 * standard output captured for rts_proc_last_line, its standard error the
 * probe's. On failure nothing runs, *out is NULL and why holds one line
 * (e.g. "cannot run node: No such file or directory"); RTS_EINVAL for a
 * program not found or not executable, or a CPU this process may not
 * use. The process is
 * killed with its group if the probe ends through rts_process_end before
 * releasing it, and, where the OS allows (Linux), if the probe is killed
 * or the thread that started it ends: start processes from a thread that
 * outlives them (a bench's supervising thread). */
rts_status rts_proc_spawn(rts_proc **out, const rts_proc_attr *attr, char *why, size_t whysize);

/* Wait up to timeout_ns (0: only look; RTS_FOREVER) for p to end, reading
 * its standard output meanwhile (so that it never blocks on a full pipe).
 * RTS_OK once it ended: *status (may be NULL) is its exit status, or 128
 * plus the number of the signal that ended it, as shells report it.
 * RTS_ETIMEDOUT while it still runs. Callable again after it ended. */
rts_status rts_proc_wait(rts_proc *p, uint64_t timeout_ns, int *status);

/* Ask p's whole process group to end (POSIX: SIGTERM), or with force end
 * it without asking (SIGKILL). RTS_OK also when it has ended already. */
rts_status rts_proc_signal(rts_proc *p, bool force);

/* The last non-empty line p wrote to its standard output so far (read by
 * rts_proc_wait), without its newline and cut to its first 127 bytes; ""
 * when none. Valid until the next call on p. */
const char *rts_proc_last_line(const rts_proc *p);

/* Release p: a process still running is killed with its group first, and
 * the process is reaped. p is invalid afterwards; NULL: nothing. */
void rts_proc_release(rts_proc *p);

/* The program the probe runs as (its executable's path) into buf of size
 * bytes. RTS_EFAIL when it cannot be told or does not fit. */
rts_status rts_proc_self_path(char *buf, size_t size);

/* Whether program (a name without '/', looked up on the search path, or
 * a path) can be run by rts_proc_spawn. */
bool rts_proc_findable(const char *program);

/* ------------------------------------------------------ shared libraries */

/* A shared library loaded when a bench first needs it (the crypto benches'
 * libcrypto), rather than linked: a linked library is mapped by every run,
 * and under mlockall made resident whole, used or not. Once loaded, a
 * library stays mapped for the life of the probe (one may have registered
 * exit handlers: OpenSSL does). RTS_ENOTSUP where RTS_CAP_PROCESSES is
 * missing (one program image) and in a static probe. */
typedef struct rts_library rts_library;

/* Load the library name (a file name, found as the system's loader finds
 * it, e.g. "libcrypto.so.3"), with every symbol resolved now. On failure
 * *out is NULL and why holds one line (the loader's reason). */
rts_status rts_library_open(rts_library **out, const char *name, char *why, size_t whysize);

/* The address of symbol in lib, or NULL when lib has none. */
void *rts_library_symbol(rts_library *lib, const char *symbol);

/* Release the handle lib (the library stays mapped). NULL: nothing. */
void rts_library_close(rts_library *lib);

/* -------------------------------------------------------- shared memory */

/* A region of memory that the probe and processes it starts map alike
 * (app.workload's processes: their barrier, results and data). Zeroed when
 * created; its size cannot change while mapped (Linux: a memory file
 * sealed at its size, reached through /proc; elsewhere a file in /dev/shm
 * or the temporary directory). Atomics in it work across processes where
 * they are lock-free. RTS_ENOTSUP where RTS_CAP_PROCESSES is missing. */
typedef struct rts_shm rts_shm;

/* Create a region of bytes (> 0), mapped. On failure *out is NULL and why
 * holds one line. The region goes when every process closed it. */
rts_status rts_shm_create(rts_shm **out, size_t bytes, char *why, size_t whysize);

/* Map the region of another process by its path, whole. On failure *out
 * is NULL and why holds one line. */
rts_status rts_shm_open(rts_shm **out, const char *path, char *why, size_t whysize);

/* The region's path, for another process (valid while s is open). */
const char *rts_shm_path(const rts_shm *s);

/* Where the region is mapped in this process, and its size. */
void *rts_shm_base(const rts_shm *s);
size_t rts_shm_size(const rts_shm *s);

/* Unmap and close s (the creator's file, where it has a name, is removed). NULL: nothing. */
void rts_shm_close(rts_shm *s);

/* Block the calling thread while the word at word (in a region, seen by
 * other processes) holds expected, up to timeout_ns (RTS_FOREVER): the
 * waiting of a barrier between processes, which the port's semaphores do
 * not cross. RTS_OK when woken or when it holds another value (also
 * spuriously: check it again), RTS_ETIMEDOUT. On Linux a futex; elsewhere
 * the word is looked at every 100 us. */
rts_status rts_shm_wait(atomic_uint *word, unsigned expected, uint64_t timeout_ns);

/* Wake every thread, of any process, waiting on word in rts_shm_wait. */
void rts_shm_wake(atomic_uint *word);

/* ------------------------------------------------------------------ pins */

/* A pin (docs/wave.md): the first byte of a file of one page, '0' low and
 * '1' high, mapped shared so that an observer reads its level with a plain
 * load while another process writes it. Needs RTS_CAP_FILES (RTS_ENOTSUP
 * otherwise). */
typedef struct rts_pin rts_pin;

/* Create a new pin file, low ('0' then zeros to a page), in memory that
 * the other process can open by its path, and map it. The file cannot be
 * truncated where the OS can forbid it (Linux: a memory file sealed at one
 * page, its path under /proc; elsewhere a file in /dev/shm or the
 * temporary directory): a file cut below the mapped page would make the
 * observer's load fault. The file goes with rts_pin_close. On failure *out
 * is NULL and why holds one line. */
rts_status rts_pin_create(rts_pin **out, char *why, size_t whysize);

/* Open the existing pin file path and map it (the generator's side); the
 * file stays when closed. On failure *out is NULL and why holds one line. */
rts_status rts_pin_open(rts_pin **out, const char *path, char *why, size_t whysize);

/* The pin's file, for another process (RTSCOPE_PIN). */
const char *rts_pin_path(const rts_pin *p);

/* The pin's byte in the shared mapping: loads see another process's
 * writes, stores are seen by it (no system call either way). */
volatile unsigned char *rts_pin_byte(const rts_pin *p);

/* Write the pin's byte through the file, as a driver's device file is
 * written (POSIX: one pwrite of one byte at offset 0; never truncating). */
rts_status rts_pin_write(rts_pin *p, unsigned char byte);

/* Unmap and close p; remove its file if rts_pin_create made it. NULL: nothing. */
void rts_pin_close(rts_pin *p);

/* ------------------------------------------------------------ ticker */

/* A periodic kernel timer a thread blocks on (Linux: a timerfd), one per
 * thread: expiries at first_ns on the monotonic clock, then every period_ns.
 * RTS_ENOTSUP where RTS_CAP_TICKER is missing. */
typedef struct rts_ticker rts_ticker;

rts_status rts_ticker_start(rts_ticker **out, uint64_t first_ns, uint64_t period_ns);

/* Block until the next expiry; *expiries (may be NULL) is how many passed
 * since the last wait (more than 1: the waiter was late by whole periods).
 * Returns early with RTS_EAGAIN when a signal interrupts the wait, so that
 * a stop request is seen. */
rts_status rts_ticker_wait(rts_ticker *t, uint64_t *expiries);

/* Stop and release t. NULL: nothing. */
void rts_ticker_stop(rts_ticker *t);

/* ------------------------------------------------------------ GPIO lines */

/* A board's GPIO line, requested through the kernel's GPIO character
 * device (Linux: uAPI v2 on /dev/gpiochipN, directly, so the static probe
 * needs no libgpiod on the board). RTS_CAP_GPIO says this build can; a
 * machine without the chip fails at the request, with why. A line is held
 * by one requester at a time, and released on close or when its process
 * ends. */
typedef struct rts_gpio rts_gpio;

/* Request line `line` (its offset on the chip) of chip (a path, e.g.
 * /dev/gpiochip0) as an output driven to level (0 or 1). On failure *out is
 * NULL and why holds one line (e.g. "cannot open /dev/gpiochip0: No such
 * file or directory"). */
rts_status rts_gpio_output(rts_gpio **out, const char *chip, unsigned line, int level, char *why, size_t whysize);

/* Drive output g to level. */
rts_status rts_gpio_set(rts_gpio *g, int level);

/* Request line of chip as an input that reports both edges, each
 * timestamped by the kernel when it takes the edge (its interrupt), on the
 * clock rts_time_ns reads; *level is its level now. Failure as above. */
rts_status rts_gpio_input(rts_gpio **out, const char *chip, unsigned line, int *level, char *why, size_t whysize);

typedef struct {
    uint64_t at_ns;   /* when the kernel took the edge, on rts_time_ns's clock */
    int level;        /* the level after it */
    uint64_t lost;    /* edges of the line the kernel dropped just before this one (its buffer was full) */
} rts_gpio_edge;

/* The next edge of input g, waiting at most timeout_ns for it (0: none);
 * RTS_ETIMEDOUT when none came. */
rts_status rts_gpio_next_edge(rts_gpio *g, uint64_t timeout_ns, rts_gpio_edge *edge);

/* Release the line and close g. NULL: nothing. */
void rts_gpio_close(rts_gpio *g);

/* ------------------------------------------- per-thread scheduler statistics */

/* What the scheduler counted for one thread since it started (Linux: the
 * first two fields of /proc/thread-self/schedstat). */
typedef struct {
    uint64_t run_ns;   /* time it ran on a CPU */
    uint64_t wait_ns;  /* time it was runnable but not running: waiting on a run queue
                        * (also while stopped by RT throttling); not time blocked */
} rts_sched_times;

/* The calling thread's scheduler statistics, opened once so that each read
 * is cheap (Linux: one pread of a file kept open, about 1 us). The handle
 * reads the statistics of the thread that opened it, whichever thread
 * reads. RTS_ENOTSUP where RTS_CAP_SCHED_STATS is missing. */
typedef struct rts_sched_stats rts_sched_stats;

rts_status rts_sched_stats_open(rts_sched_stats **out);

/* The opening thread's times so far. RTS_EFAIL when they cannot be read. */
rts_status rts_sched_stats_read(rts_sched_stats *s, rts_sched_times *times);

/* Release s. NULL: nothing. */
void rts_sched_stats_close(rts_sched_stats *s);

/* ----------------------------------------------------------------- files */

/* A file read once from start to end, in chunks of the caller's size, so
 * that a file of any length takes bounded memory (a logic analyzer's
 * capture: wave.import). RTS_ENOTSUP where RTS_CAP_FILES is missing. */
typedef struct rts_file rts_file;

/* Open the existing file path for reading. On failure *out is NULL and
 * why holds one line (e.g. "cannot open x.csv: No such file or directory"):
 * RTS_EPERM when the file is there but not for this user (a bench can then
 * tell a missing feature from a missing privilege), else RTS_EFAIL. */
rts_status rts_file_open(rts_file **out, const char *path, char *why, size_t whysize);

/* Read the next bytes of f, at most size of them, into buf: *got is how
 * many, fewer than size only at the end of the file (0: nothing is left).
 * RTS_EFAIL when the OS cannot read it (*got is 0 then). */
rts_status rts_file_read(rts_file *f, void *buf, size_t size, size_t *got);

/* Close f. NULL: nothing. */
void rts_file_close(rts_file *f);

/* Write text to the existing file path, truncating it, in one write: a
 * kernel setting that takes its value whole (Linux's tracefs and sysfs). On
 * failure why holds one line ("cannot write timerlat to
 * /sys/kernel/tracing/current_tracer: Permission denied"). RTS_ENOTSUP where
 * RTS_CAP_FILES is missing. */
rts_status rts_file_write_text(const char *path, const char *text, char *why, size_t whysize);

/* System settings: what the probe changes in the system for a run (Linux:
 * RT throttling's sched_rt_runtime_us, the timerlat tracer's tracefs files,
 * a tracefs instance) is saved before its first change, in one place, and
 * put back newest first by rts_settings_restore — and by the port itself
 * when the process ends any other way: exit, the watchdog's end
 * (rts_process_end), a second stop request, a crash or another signal
 * that ends it (Linux: SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS,
 * SIGTRAP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ). Only SIGKILL (and SIGSTOP's
 * wait) leaves a setting changed. (The CPU
 * latency limit is not one: the kernel drops it when the process's
 * descriptor closes, however it ends.) Where RTS_CAP_FILES is missing,
 * writing one is RTS_ENOTSUP and there is never anything to put back.
 *
 * rts_setting_write writes text to the setting path, its value first saved
 * (the first time only: the value before the run is the one put back) in
 * the form it is written back: a choice list ("[local] global") by its
 * chosen word, a ring buffer's size ("7 (expanded: 1408)") by its expanded
 * size, else the first line. On failure why holds one line (it could not
 * be read, saved or written); a setting that cannot be read is not
 * changed. */
rts_status rts_setting_write(const char *path, const char *text, char *why, size_t whysize);

/* Make the directory path (a tracefs instance), where it may already exist
 * (a run killed before it removed it), to be removed when the settings are
 * put back; on failure why holds one line. */
rts_status rts_setting_dir_make(const char *path, char *why, size_t whysize);

/* How many settings are saved: the mark a bench takes before it changes
 * any, to put back its own with rts_settings_restore(mark). */
unsigned rts_settings_mark(void);

/* Put back every setting saved since mark, newest first (0: all), and
 * forget them; false with the first failure in why (the others are put
 * back all the same). */
bool rts_settings_restore(unsigned mark, char *why, size_t whysize);

/* Make the directory path, where it may already exist (a tracefs instance:
 * the kernel gives the new directory a trace buffer of its own), and remove
 * it (empty, or emptied by the kernel itself as tracefs does). On failure
 * why holds one line. RTS_ENOTSUP where RTS_CAP_FILES is missing. */
rts_status rts_dir_make(const char *path, char *why, size_t whysize);
rts_status rts_dir_remove(const char *path, char *why, size_t whysize);

/* A temporary file that another program writes (a logic analyzer's capture
 * tool) and the probe then reads with rts_file_open. It is gone when closed
 * and, where the platform can (Linux: an unnamed file, reached through
 * /proc), also when the probe itself dies: a SIGKILL leaves nothing behind.
 * RTS_ENOTSUP where RTS_CAP_FILES is missing. */
typedef struct rts_tempfile rts_tempfile;

/* Make an empty temporary file. On failure *out is NULL and why holds one line. */
rts_status rts_tempfile_create(rts_tempfile **out, char *why, size_t whysize);

/* A path to t that another process of the same user can open, for writing
 * (truncating) or reading, for as long as t is open. */
const char *rts_tempfile_path(const rts_tempfile *t);

/* Close t and remove its file. NULL: nothing. */
void rts_tempfile_close(rts_tempfile *t);

#endif
