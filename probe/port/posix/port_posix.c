/*
 * POSIX port of the rtscope porting layer (Linux first; glibc and musl).
 * Contracts are in include/rtscope/port.h; this file only says how.
 */
#define _GNU_SOURCE
#include "rtscope/port.h"
#include "port_time.h"
#include "timer_irq_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_CYCLE_COUNTER 1
#else
#define HAVE_CYCLE_COUNTER 0
#endif

bool rts_posix_cycle_counter_invariant(void); /* sysinfo_posix.c */
bool rts_posix_gpio_supported(void);          /* gpio_posix.c */
bool rts_posix_sched_stats_supported(void);   /* sched_stats_posix.c */

static rts_status from_errno(int err)
{
    switch (err) {
    case 0: return RTS_OK;
    case ETIMEDOUT: return RTS_ETIMEDOUT;
    case EAGAIN: return RTS_EAGAIN;
    case EPERM:
    case EACCES: return RTS_EPERM;
    case EINVAL: return RTS_EINVAL;
    case ENOMEM: return RTS_ENOMEM;
    case ENOSYS: return RTS_ENOTSUP;
    default: return RTS_EFAIL;
    }
}

unsigned rts_port_caps(void)
{
    unsigned caps = RTS_CAP_PRIORITY_SCHED | RTS_CAP_AFFINITY | RTS_CAP_MLOCK |
                    RTS_CAP_PI_MUTEX | RTS_CAP_SOFT_IRQ | RTS_CAP_SYSINFO | RTS_CAP_FILES | RTS_CAP_PROCESSES;
#ifdef SIGEV_THREAD_ID
    caps |= RTS_CAP_TIMER_IRQ;
#endif
#ifdef __linux__
    caps |= RTS_CAP_TICKER; /* timerfd (pin_posix.c) */
#endif
    if (rts_posix_gpio_supported())
        caps |= RTS_CAP_GPIO;
    if (rts_posix_sched_stats_supported())
        caps |= RTS_CAP_SCHED_STATS;
    if (HAVE_CYCLE_COUNTER && rts_posix_cycle_counter_invariant())
        caps |= RTS_CAP_CYCLE_COUNTER;
    return caps;
}

const char *rts_port_name(void) { return "posix"; }

/* ------------------------------------------------------------------ time */

static struct timespec ts_from_ns(uint64_t ns)
{
    struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
    return ts;
}

const char *rts_time_clock_name(void) { return "CLOCK_MONOTONIC"; }

uint64_t rts_time_resolution_ns(void) { return rts_posix_monotonic_resolution_ns(); }

rts_status rts_sleep_until_ns(uint64_t abs_ns)
{
    struct timespec ts = ts_from_ns(abs_ns);
    int err;
    /* Restart after signal handlers: the contract is "never earlier". */
    while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
        ;
    return from_errno(err);
}

rts_status rts_sleep_ns(uint64_t rel_ns)
{
    return rts_sleep_until_ns(rts_time_ns() + rel_ns);
}

/* clock_nanosleep ends on a high-resolution timer, not on a tick, where the
 * kernel has them running. Where it has not (CONFIG_HIGH_RES_TIMERS off, or
 * an x86 kernel in its first second, still on the early TSC clocksource),
 * CLOCK_MONOTONIC's resolution is the tick (hrtimer_resolution), and a sleep
 * ends on a tick too: a Debian x86_64 guest started 0.9 s sooner woke
 * lat.wakeup at 3.99 ms, the 4 ms tick, where it wakes in 3.7 µs. */
uint64_t rts_sleep_granularity_ns(void)
{
    uint64_t resolution = rts_posix_monotonic_resolution_ns();
    return resolution > 1000 ? resolution : 0;
}

/* Absolute CLOCK_MONOTONIC deadline for a relative timeout. */
static struct timespec deadline_after(uint64_t timeout_ns)
{
    return ts_from_ns(rts_time_ns() + timeout_ns);
}

/* ------------------------------------------------------- scheduling setup */

static int os_policy(rts_policy p)
{
    return p == RTS_POLICY_FIFO ? SCHED_FIFO : p == RTS_POLICY_RR ? SCHED_RR : SCHED_OTHER;
}

int rts_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

bool rts_cpu_allowed(int cpu)
{
    cpu_set_t set;
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return false;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return false;
    return CPU_ISSET(cpu, &set);
}

rts_status rts_self_set_sched(rts_policy policy, int priority)
{
    struct sched_param sp = { .sched_priority = policy == RTS_POLICY_OTHER ? 0 : priority };
    return from_errno(pthread_setschedparam(pthread_self(), os_policy(policy), &sp));
}

rts_status rts_self_set_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0) {
        if (!rts_cpu_allowed(cpu))
            return RTS_EINVAL;
        CPU_SET(cpu, &set);
    } else {
        for (int i = 0; i < rts_cpu_count() && i < CPU_SETSIZE; i++)
            CPU_SET(i, &set);
    }
    return from_errno(pthread_setaffinity_np(pthread_self(), sizeof set, &set));
}

int rts_self_cpu(void)
{
    return sched_getcpu();
}

rts_status rts_mem_lock_all(void)
{
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        return from_errno(errno);
    return RTS_OK;
}

/* RT throttling: sched_rt_runtime_us, a system setting (settings_posix.c)
 * put back with the others. */
#define RT_RUNTIME_PATH "/proc/sys/kernel/sched_rt_runtime_us"

rts_status rts_rt_throttling_lift(void)
{
    char now[32], why[200];
    int fd = open(RT_RUNTIME_PATH, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? RTS_ENOTSUP : from_errno(errno);
    ssize_t n = read(fd, now, sizeof now - 1);
    close(fd);
    if (n <= 0)
        return RTS_EFAIL;
    now[n] = '\0';
    if (strtoll(now, NULL, 10) < 0)
        return RTS_OK; /* off already: nothing to put back */
    /* Opened for writing first: a missing privilege is RTS_EPERM, not a failed write. */
    fd = open(RT_RUNTIME_PATH, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return from_errno(errno);
    close(fd);
    return rts_setting_write(RT_RUNTIME_PATH, "-1", why, sizeof why);
}

/* Linux PM QoS: the request holds while the file stays open, so the
 * descriptor is deliberately kept until the process exits. Not one of the
 * system settings (settings_posix.c): the kernel drops the request when the
 * descriptor closes, however the process ends (a SIGKILL too), so there is
 * nothing to put back. */
rts_status rts_cpu_latency_limit(int us)
{
    int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? RTS_ENOTSUP : from_errno(errno);
    int32_t value = us;
    if (write(fd, &value, sizeof value) != (ssize_t)sizeof value) {
        int err = errno;
        close(fd);
        return from_errno(err);
    }
    return RTS_OK;
}

void rts_stack_prefault(size_t bytes)
{
    volatile unsigned char *buf = alloca(bytes);
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < bytes; i += (size_t)(page > 0 ? page : 4096))
        buf[i] = 0;
}

/* ---------------------------------------------------------------- threads */

struct rts_thread {
    pthread_t tid;
    void (*fn)(void *);
    void *arg;
    int cpu;
    pthread_mutex_t lock;     /* guards resume_pending */
    pthread_cond_t resumed;
    bool resume_pending;
};

/* The signals that are stop requests (rts_stop_requests_catch). */
void rts_posix_stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

static __thread rts_thread *current_thread;

static void *thread_trampoline(void *p)
{
    rts_thread *t = p;
    current_thread = t;
    /* Stop requests go to the main thread, which only waits: a handler on a
     * thread holding a tracefs file open could never remove the instance
     * the file is in. One call here, none in the creation thread.create times. */
    sigset_t stops;
    rts_posix_stop_signals(&stops);
    pthread_sigmask(SIG_BLOCK, &stops, NULL);
#ifndef __GLIBC__ /* glibc pinned it at creation (thread_attr_init) */
    if (t->cpu >= 0)
        rts_self_set_cpu(t->cpu); /* validated by rts_thread_create */
#endif
    t->fn(t->arg);
    return NULL;
}

static int init_monotonic_cond(pthread_cond_t *c)
{
    pthread_condattr_t ca;
    int err = pthread_condattr_init(&ca);
    if (!err)
        err = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (!err)
        err = pthread_cond_init(c, &ca);
    pthread_condattr_destroy(&ca);
    return err;
}

static int thread_attr_init(pthread_attr_t *pa, const rts_thread_attr *attr)
{
    struct sched_param sp = { .sched_priority = attr->policy == RTS_POLICY_OTHER ? 0 : attr->priority };
    int err = pthread_attr_init(pa);
    if (err)
        return err;
    /* Explicit scheduling: the thread must start at its own priority. */
    err = pthread_attr_setinheritsched(pa, PTHREAD_EXPLICIT_SCHED);
    if (!err)
        err = pthread_attr_setschedpolicy(pa, os_policy(attr->policy));
    if (!err)
        err = pthread_attr_setschedparam(pa, &sp);
#ifdef __GLIBC__
    /* Pinned from its first instruction; musl lacks this call, so there the
     * trampoline pins the thread before fn runs. */
    if (!err && attr->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(attr->cpu, &set);
        err = pthread_attr_setaffinity_np(pa, sizeof set, &set);
    }
#endif
    if (!err && attr->stack)
        err = pthread_attr_setstack(pa, attr->stack, attr->stack_size);
    else if (!err && attr->stack_size)
        err = pthread_attr_setstacksize(pa, attr->stack_size);
    return err;
}

rts_status rts_thread_create(rts_thread **out, const rts_thread_attr *attr,
                             void (*fn)(void *), void *arg)
{
    if (attr->cpu >= 0 && !rts_cpu_allowed(attr->cpu))
        return RTS_EINVAL;
    rts_thread *t = calloc(1, sizeof *t);
    if (!t)
        return RTS_ENOMEM;
    t->fn = fn;
    t->arg = arg;
    t->cpu = attr->cpu;
    pthread_attr_t pa;
    int err = pthread_mutex_init(&t->lock, NULL);
    if (!err)
        err = init_monotonic_cond(&t->resumed);
    if (!err)
        err = thread_attr_init(&pa, attr);
    if (!err) {
        err = pthread_create(&t->tid, &pa, thread_trampoline, t);
        pthread_attr_destroy(&pa);
    }
    if (err) {
        free(t);
        return from_errno(err);
    }
    *out = t;
    return RTS_OK;
}

rts_status rts_thread_join(rts_thread *t)
{
    int err = pthread_join(t->tid, NULL);
    if (err)
        return from_errno(err);
    pthread_cond_destroy(&t->resumed);
    pthread_mutex_destroy(&t->lock);
    free(t);
    return RTS_OK;
}

rts_thread *rts_thread_self(void) { return current_thread; }

size_t rts_thread_stack_min(void)
{
    long least = sysconf(_SC_THREAD_STACK_MIN);
    return least > 0 ? (size_t)least : 16384u; /* POSIX's own floor when the system cannot tell */
}

rts_status rts_thread_suspend_self(void)
{
    rts_thread *t = current_thread;
    if (!t)
        return RTS_EINVAL;
    pthread_mutex_lock(&t->lock);
    while (!t->resume_pending)
        pthread_cond_wait(&t->resumed, &t->lock);
    t->resume_pending = false;
    pthread_mutex_unlock(&t->lock);
    return RTS_OK;
}

rts_status rts_thread_resume(rts_thread *t)
{
    pthread_mutex_lock(&t->lock);
    t->resume_pending = true;
    pthread_cond_signal(&t->resumed);
    pthread_mutex_unlock(&t->lock);
    return RTS_OK;
}

void rts_thread_relinquish(void) { sched_yield(); }

long long rts_self_switches(void)
{
#ifdef RUSAGE_THREAD /* Linux */
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        return (long long)ru.ru_nvcsw + (long long)ru.ru_nivcsw;
#endif
    return -1;
}

/* ------------------------------------------------------------- semaphores */

/* Mutex + monotonic condition variable rather than sem_t: exact max-token
 * semantics and monotonic timeouts on glibc and musl alike. Giving from the
 * soft-IRQ handler is safe because that handler runs synchronously in the
 * raising thread, which is never inside a semaphore call at that moment. */
struct rts_sem {
    pthread_mutex_t lock;
    pthread_cond_t available;
    unsigned tokens, max;
};

rts_status rts_sem_create(rts_sem **out, unsigned initial, unsigned max)
{
    if (max == 0 || initial > max)
        return RTS_EINVAL;
    rts_sem *s = calloc(1, sizeof *s);
    if (!s)
        return RTS_ENOMEM;
    int err = pthread_mutex_init(&s->lock, NULL);
    if (!err)
        err = init_monotonic_cond(&s->available);
    if (err) {
        free(s);
        return from_errno(err);
    }
    s->tokens = initial;
    s->max = max;
    *out = s;
    return RTS_OK;
}

/* Signalling after the unlock keeps a woken higher-or-equal priority waiter
 * from running only to block again on the mutex the giver still holds: one
 * give is then at most one switch. The waiter re-checks the count under the
 * mutex, so no wake-up can be lost. */
rts_status rts_sem_give(rts_sem *s)
{
    pthread_mutex_lock(&s->lock);
    bool room = s->tokens < s->max;
    if (room)
        s->tokens++;
    pthread_mutex_unlock(&s->lock);
    if (!room)
        return RTS_EAGAIN;
    pthread_cond_signal(&s->available);
    return RTS_OK;
}

/* With m held, wait on c until ready(obj) or until timeout_ns passes
 * (0: do not wait; RTS_FOREVER: no bound). Shared by semaphores and queues. */
static rts_status wait_until(pthread_cond_t *c, pthread_mutex_t *m, bool (*ready)(const void *),
                             const void *obj, uint64_t timeout_ns)
{
    if (ready(obj))
        return RTS_OK;
    if (timeout_ns == 0)
        return RTS_EAGAIN;
    struct timespec dl = deadline_after(timeout_ns == RTS_FOREVER ? 0 : timeout_ns);
    while (!ready(obj)) {
        int err = timeout_ns == RTS_FOREVER ? pthread_cond_wait(c, m) : pthread_cond_timedwait(c, m, &dl);
        if (err == ETIMEDOUT && !ready(obj))
            return RTS_ETIMEDOUT;
    }
    return RTS_OK;
}

static bool sem_has_token(const void *obj) { return ((const rts_sem *)obj)->tokens > 0; }

rts_status rts_sem_take(rts_sem *s, uint64_t timeout_ns)
{
    pthread_mutex_lock(&s->lock);
    rts_status st = wait_until(&s->available, &s->lock, sem_has_token, s, timeout_ns);
    if (st == RTS_OK)
        s->tokens--;
    pthread_mutex_unlock(&s->lock);
    return st;
}

void rts_sem_destroy(rts_sem *s)
{
    if (!s)
        return;
    pthread_cond_destroy(&s->available);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---------------------------------------------------------------- mutexes */

struct rts_mutex {
    pthread_mutex_t m;
};

rts_status rts_mutex_create(rts_mutex **out, bool inherit)
{
    rts_mutex *mx = calloc(1, sizeof *mx);
    if (!mx)
        return RTS_ENOMEM;
    pthread_mutexattr_t ma;
    int err = pthread_mutexattr_init(&ma);
    if (!err && inherit)
        err = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    if (!err)
        err = pthread_mutex_init(&mx->m, &ma);
    pthread_mutexattr_destroy(&ma);
    if (err) {
        free(mx);
        return from_errno(err == ENOTSUP ? ENOSYS : err);
    }
    *out = mx;
    return RTS_OK;
}

rts_status rts_mutex_lock(rts_mutex *m) { return from_errno(pthread_mutex_lock(&m->m)); }
rts_status rts_mutex_unlock(rts_mutex *m) { return from_errno(pthread_mutex_unlock(&m->m)); }

void rts_mutex_destroy(rts_mutex *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->m);
    free(m);
}

/* --------------------------------------------------------- message queues */

/* A ring of fixed-size slots under one mutex, with one condition per
 * direction so a sender never wakes another sender. */
struct rts_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    size_t msg_size;
    unsigned capacity, head, count;
    unsigned char *slots;
};

rts_status rts_queue_create(rts_queue **out, size_t msg_size, unsigned capacity)
{
    if (msg_size == 0 || capacity == 0)
        return RTS_EINVAL;
    rts_queue *q = calloc(1, sizeof *q);
    if (!q)
        return RTS_ENOMEM;
    q->slots = calloc(capacity, msg_size);
    int err = q->slots ? pthread_mutex_init(&q->lock, NULL) : ENOMEM;
    if (!err)
        err = init_monotonic_cond(&q->not_empty);
    if (!err)
        err = init_monotonic_cond(&q->not_full);
    if (err) {
        free(q->slots);
        free(q);
        return from_errno(err);
    }
    q->msg_size = msg_size;
    q->capacity = capacity;
    *out = q;
    return RTS_OK;
}

static bool queue_has_room(const void *obj)
{
    const rts_queue *q = obj;
    return q->count < q->capacity;
}

static bool queue_has_message(const void *obj) { return ((const rts_queue *)obj)->count > 0; }

rts_status rts_queue_send(rts_queue *q, const void *msg, uint64_t timeout_ns)
{
    pthread_mutex_lock(&q->lock);
    rts_status st = wait_until(&q->not_full, &q->lock, queue_has_room, q, timeout_ns);
    if (st == RTS_OK) {
        unsigned tail = (q->head + q->count) % q->capacity;
        memcpy(q->slots + (size_t)tail * q->msg_size, msg, q->msg_size);
        q->count++;
    }
    pthread_mutex_unlock(&q->lock);
    if (st == RTS_OK) /* after the unlock, as in rts_sem_give */
        pthread_cond_signal(&q->not_empty);
    return st;
}

rts_status rts_queue_receive(rts_queue *q, void *msg, uint64_t timeout_ns)
{
    pthread_mutex_lock(&q->lock);
    rts_status st = wait_until(&q->not_empty, &q->lock, queue_has_message, q, timeout_ns);
    if (st == RTS_OK) {
        memcpy(msg, q->slots + (size_t)q->head * q->msg_size, q->msg_size);
        q->head = (q->head + 1) % q->capacity;
        q->count--;
    }
    pthread_mutex_unlock(&q->lock);
    if (st == RTS_OK)
        pthread_cond_signal(&q->not_full);
    return st;
}

void rts_queue_destroy(rts_queue *q)
{
    if (!q)
        return;
    pthread_cond_destroy(&q->not_full);
    pthread_cond_destroy(&q->not_empty);
    pthread_mutex_destroy(&q->lock);
    free(q->slots);
    free(q);
}

/* ------------------------------------------------------------- signals */

/* Run fn when sig arrives: no flags, nothing else blocked meanwhile. Used
 * by the software interrupt, the timer interrupt and stop requests. */
static rts_status catch_signal(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL) == 0 ? RTS_OK : from_errno(errno);
}

/* ---------------------------------------------------- software interrupt */

/* The "interrupt" is SIGUSR1 sent to the raising thread itself: the kernel
 * delivers it before pthread_kill returns to user code, so the handler has
 * run when rts_soft_irq_raise returns, as on an RTOS. */
static void (*soft_irq_handler)(void *);
static void *soft_irq_arg;

static void soft_irq_trampoline(int sig)
{
    (void)sig;
    int saved = errno;
    if (soft_irq_handler)
        soft_irq_handler(soft_irq_arg);
    errno = saved;
}

rts_status rts_soft_irq_register(void (*handler)(void *), void *arg)
{
    soft_irq_handler = handler;
    soft_irq_arg = arg;
    return catch_signal(SIGUSR1, soft_irq_trampoline);
}

rts_status rts_soft_irq_raise(void)
{
    return from_errno(pthread_kill(pthread_self(), SIGUSR1));
}

/* ------------------------------------------------------- timer interrupt */

/* A POSIX timer whose expiry is a real-time signal directed at the thread
 * that started it (Linux's SIGEV_THREAD_ID; elsewhere not supported): the
 * kernel's timer interrupt queues it, and the thread runs the handler on
 * its next way back to user space — from sleep, if it sleeps. */
rts_status rts_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                               void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns), void *arg)
{
#ifdef SIGEV_THREAD_ID
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGRTMIN + 1;
#ifdef sigev_notify_thread_id
    sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
#else
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
#endif
    sigset_t none;
    sigemptyset(&none);
    return from_errno(rts_posix_timer_irq_start(&sev, &none, first_ns, period_ns, handler, arg));
#else
    (void)first_ns;
    (void)period_ns;
    (void)handler;
    (void)arg;
    return RTS_ENOTSUP;
#endif
}

rts_status rts_timer_irq_stop(uint64_t *missed)
{
#ifdef SIGEV_THREAD_ID
    return from_errno(rts_posix_timer_irq_stop(missed));
#else
    (void)missed;
    return RTS_ENOTSUP;
#endif
}

/* ------------------------------------------------------------------ heap */

void *rts_heap_alloc(size_t bytes) { return malloc(bytes); }
void *rts_heap_calloc(size_t count, size_t size) { return calloc(count, size); }
void rts_heap_free(void *p) { free(p); }

/* -------------------------------------------------- stop requests, signals */

static volatile sig_atomic_t stop_flag;

void rts_posix_settings_restore_now(void); /* settings_posix.c */

/* The first request stops the run cleanly; a second one is the user
 * insisting, so it ends the process the default way. */
static void on_stop_signal(int sig)
{
    if (stop_flag) {
        rts_posix_settings_restore_now(); /* the process ends without its own clean-up */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    stop_flag = 1;
}

rts_status rts_stop_requests_catch(void)
{
    rts_status st = catch_signal(SIGINT, on_stop_signal);
    st = st == RTS_OK ? catch_signal(SIGTERM, on_stop_signal) : st;
    return st == RTS_OK ? catch_signal(SIGHUP, on_stop_signal) : st;
}

bool rts_stop_requested(void) { return stop_flag != 0; }
