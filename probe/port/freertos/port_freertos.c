/*
 * FreeRTOS port of the rtscope porting layer. Contracts are in
 * include/rtscope/port.h; what depends on the hardware (clock, console,
 * result channel, interrupts, exit) is the board's (probe/boards/board.h,
 * one implementation per probe/boards/NAME/, shared with the other RTOS
 * ports; what a board needs of FreeRTOS is in boards/NAME/ here). This file only says how FreeRTOS does
 * the rest, with the kernel's static-allocation API: every object's control
 * block (and a thread's stack, unless the caller gives one) is one block of
 * the kernel's heap, taken and returned by this port.
 *
 * The probe's own main (and a C test's) is compiled as rts_app_main
 * (port.mk); main here brings the board up and runs it as the first task.
 * What FreeRTOS has no use for here (processes, files, pins, a ticker, GPIO,
 * scheduler statistics) is the common "not supported", and its setup of
 * one CPU and its block pool (FreeRTOS has none; pool_lock.h is its
 * critical section) the common ones (port/common/); the console, the
 * result's sink and the end of the run are every board port's
 * (boards/board_services.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#include "board.h"
#include "port_time.h"
#include "../common/build_info.h"
#include "../common/rtos_ticks.h"
#include "rtscope/port.h"

/* What the port needs of a board's FreeRTOSConfig.h (and port_config.h's, which it includes). */
#if configMAX_PRIORITIES < 32
#error "rtscope's FreeRTOS port maps priorities 1..99 onto at least 30 above \"other\": configMAX_PRIORITIES must be at least 32"
#endif
#if configUSE_TIME_SLICING
#error "rtscope's FreeRTOS port needs configUSE_TIME_SLICING 0 (fifo among equal priorities)"
#endif
#if !configSUPPORT_STATIC_ALLOCATION || !configUSE_MUTEXES || !configUSE_COUNTING_SEMAPHORES || \
    configNUM_THREAD_LOCAL_STORAGE_POINTERS <= RTS_FREERTOS_COUNTER_SLOT || !INCLUDE_vTaskSuspend || !INCLUDE_vTaskDelete ||     \
    !INCLUDE_vTaskPrioritySet || !INCLUDE_xTaskGetSchedulerState
#error "rtscope's FreeRTOS port needs static allocation, mutexes, counting semaphores, two thread-local slots, \
vTaskSuspend, vTaskDelete, vTaskPrioritySet and xTaskGetSchedulerState"
#endif
#ifndef RTS_FREERTOS_COUNTER_SLOT
#error "the board's FreeRTOSConfig.h must include port_trace.h"
#endif


static void soft_irq_entry(void *arg);

/* No processes, files, cycle counter or scheduler statistics, and no
 * memory lock: memory never pages. What FreeRTOS offers is strict
 * priorities and inheriting mutexes; the rest is the board's (board_caps). */
unsigned rts_port_caps(void)
{
    /* Asked once: the board's probe registers soft_irq_entry, which must
     * not replace a bench's handler registered since (on a Cortex-M the
     * board runs the bench's handler itself: rts_soft_irq_register). */
    static unsigned caps;
    if (!caps)
        caps = RTS_CAP_PRIORITY_SCHED | RTS_CAP_PI_MUTEX | board_caps(soft_irq_entry);
    return caps;
}

const char *rts_port_name(void) { return "freertos"; }

/* ------------------------------------------------------------------ time */

#define NS_PER_TICK (1000000000u / configTICK_RATE_HZ)

/* Ticks to wait for at least ns (rtos_ticks.h), within the kernel's longest finite wait. */
static TickType_t ticks_at_least(uint64_t ns)
{
    uint64_t ticks = rts_ticks_at_least(ns, NS_PER_TICK);
    return ticks >= (uint64_t)portMAX_DELAY ? portMAX_DELAY - 1 : (TickType_t)ticks;
}

/* A port timeout as kernel ticks: 0 stays 0, RTS_FOREVER waits without bound. */
static TickType_t timeout_ticks(uint64_t timeout_ns)
{
    return timeout_ns == 0 ? 0 : timeout_ns == RTS_FOREVER ? portMAX_DELAY : ticks_at_least(timeout_ns);
}


/* Sleeps are in whole ticks; the board's clock decides when one is over. */
rts_status rts_sleep_until_ns(uint64_t abs_ns)
{
    for (uint64_t now = board_time_ns(); now < abs_ns; now = board_time_ns())
        vTaskDelay(ticks_at_least(abs_ns - now) - 1);
    return RTS_OK;
}

rts_status rts_sleep_ns(uint64_t rel_ns) { return rts_sleep_until_ns(board_time_ns() + rel_ns); }

uint64_t rts_sleep_granularity_ns(void) { return NS_PER_TICK; }

/* ------------------------------------------------------- scheduling setup */

/* FreeRTOS priorities: 0 the idle task, 1 "other", fifo from 2 up. With
 * 101 or more (the dev configuration), fifo 1..99 is 2..100, one to one.
 * With fewer (bench: the 32 of the optimised task selection), order is kept
 * and the top stays one to one, where the probe's threads run (the default
 * 80 and the offsets benches add to it, the supervisor's 98, the watchdog's
 * 99): fifo 76..99 is 8..31, and 1..75 share 2..7 in six bands of about 12
 * (1..12 is 2 … 63..75 is 7), so that threads given priorities 10, 20 and 30
 * still take turns by priority, but 41 and 42 are equals. Round robin
 * would be time slicing, which the kernel does for all equal priorities or
 * none; this port's kernel does none. */
#define KERNEL_FIFO_LOWEST 2
#if configMAX_PRIORITIES >= RTS_PRIORITY_MAX + 2
#define SHARED_LEVELS 0
#define ONE_TO_ONE_FROM RTS_PRIORITY_MIN
#else
#define SHARED_LEVELS 6
#define ONE_TO_ONE_FROM (RTS_PRIORITY_MAX + 1 - (configMAX_PRIORITIES - KERNEL_FIFO_LOWEST - SHARED_LEVELS))
#endif
#if ONE_TO_ONE_FROM > RTS_PRIORITY_DEFAULT - 1
#error "the priorities around rtscope's default must stay one to one"
#endif

static rts_status kernel_priority(rts_policy policy, int priority, UBaseType_t *out)
{
    if (policy == RTS_POLICY_OTHER) {
        *out = 1;
        return RTS_OK;
    }
    if (policy == RTS_POLICY_RR)
        return RTS_ENOTSUP;
    if (priority < RTS_PRIORITY_MIN || priority > RTS_PRIORITY_MAX)
        return RTS_EINVAL;
#if SHARED_LEVELS
    if (priority < ONE_TO_ONE_FROM) {
        *out = (UBaseType_t)(KERNEL_FIFO_LOWEST + (priority - RTS_PRIORITY_MIN) * SHARED_LEVELS / (ONE_TO_ONE_FROM - 1));
        return RTS_OK;
    }
#endif
    *out = (UBaseType_t)(KERNEL_FIFO_LOWEST + SHARED_LEVELS + priority - ONE_TO_ONE_FROM);
    return RTS_OK;
}

rts_status rts_self_set_sched(rts_policy policy, int priority)
{
    UBaseType_t prio;
    rts_status st = kernel_priority(policy, priority, &prio);
    if (st == RTS_OK)
        vTaskPrioritySet(NULL, prio);
    return st;
}

/* ---------------------------------------------------------------- threads */

/* A thread is a static task: its control block and (unless the caller
 * gives one) its stack here, plus a binary semaphore given when fn has
 * returned. The task then waits, suspended, for the joiner to delete it,
 * so that its memory is released only once the kernel is done with it. */
struct rts_thread {
    StaticTask_t tcb;
    TaskHandle_t task;
    StaticSemaphore_t finished_buf;
    SemaphoreHandle_t finished;
    void (*fn)(void *);
    void *arg;
    volatile unsigned long switches; /* 32 bits on a Cortex-M3: read whole */
    /* suspend / resume: -1 suspended (or about to be, inside the suspender's
     * critical section), 1 a resume remembered, 0 neither */
    _Atomic int wake;
    StackType_t *own_stack; /* the port's stack, or NULL */
};

static void thread_entry(void *p)
{
    rts_thread *t = p;
    t->fn(t->arg);
    xSemaphoreGive(t->finished);
    for (;;)
        vTaskSuspend(NULL);
}

rts_status rts_thread_create(rts_thread **out, const rts_thread_attr *attr, void (*fn)(void *), void *arg)
{
    UBaseType_t prio;
    rts_status st = kernel_priority(attr->policy, attr->priority, &prio);
    if (st != RTS_OK)
        return st;
    if (attr->cpu > 0)
        return RTS_EINVAL;
    size_t stack_bytes = attr->stack_size ? attr->stack_size : RTS_THREAD_STACK_BYTES;
    rts_thread *t = pvPortMalloc(sizeof *t);
    if (!t)
        return RTS_ENOMEM;
    memset(t, 0, sizeof *t);
    StackType_t *stack = attr->stack;
    if (!stack)
        stack = t->own_stack = pvPortMalloc(stack_bytes);
    if (!stack) {
        vPortFree(t);
        return RTS_ENOMEM;
    }
    t->fn = fn;
    t->arg = arg;
    t->finished = xSemaphoreCreateBinaryStatic(&t->finished_buf);
    /* Made with the scheduler held, so that its handle is in slot 0 before
     * its first instruction, which it runs at its own priority. */
    vTaskSuspendAll();
    t->task = xTaskCreateStatic(thread_entry, attr->name ? attr->name : "rtscope",
                                (configSTACK_DEPTH_TYPE)(stack_bytes / sizeof(StackType_t)), t, prio, stack,
                                &t->tcb);
    vTaskSetThreadLocalStoragePointer(t->task, 0, t);
    vTaskSetThreadLocalStoragePointer(t->task, RTS_FREERTOS_COUNTER_SLOT, (void *)&t->switches);
    xTaskResumeAll();
    *out = t;
    return RTS_OK;
}

rts_status rts_thread_join(rts_thread *t)
{
    if (t == rts_thread_self())
        return RTS_EINVAL;
    xSemaphoreTake(t->finished, portMAX_DELAY);
    vTaskDelete(t->task);
    vSemaphoreDelete(t->finished);
    vPortFree(t->own_stack);
    vPortFree(t);
    return RTS_OK;
}

size_t rts_thread_stack_min(void)
{
    return configMINIMAL_STACK_SIZE * sizeof(StackType_t);
}

rts_thread *rts_thread_self(void)
{
    if (xTaskGetSchedulerState() == taskSCHEDULER_NOT_STARTED)
        return NULL;
    return pvTaskGetThreadLocalStoragePointer(NULL, 0);
}

/* ------------------------------------------------- interrupt context */

/* The port's services know they are called from a handler of the board's
 * interrupts and then use the kernel's ...FromISR calls; a task they woke
 * that outranks the interrupted one runs once the outermost handler has
 * returned (the kernel's yield from a handler only pends its switch). On
 * a Cortex-M the processor says so (the IPSR, the kernel's
 * xPortIsInsideInterrupt): the board's interrupt runs the bench's handler
 * itself, nothing of the port's between them, and each call asks for its
 * own yield, as the suite's FreeRTOS layer does. Elsewhere (the POSIX
 * simulator) the port enters the handler (isr_run) and counts the depth. */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define ISR_DIRECT 1
static inline bool in_isr(void) { return xPortIsInsideInterrupt() == pdTRUE; }
static inline void isr_yield(BaseType_t woke_higher) { portYIELD_FROM_ISR(woke_higher); }
#else
#define ISR_DIRECT 0
static volatile unsigned isr_depth;
static BaseType_t isr_woke_higher;

static bool in_isr(void) { return isr_depth > 0; }

/* Several calls of one handler may each wake a higher task: the yield is
 * asked for once, as the handler returns (isr_run). */
static inline void isr_yield(BaseType_t woke_higher) { isr_woke_higher |= woke_higher; }

/* Run handler(arg) as an interrupt handler of the port's. A yield asked
 * for is only pended (the kernel switches once the outermost handler has
 * returned), so whichever handler sees the flag may ask for it and clear
 * it: nothing is saved for an outer one. */
static void isr_run(void (*handler)(void *), void *arg)
{
    isr_depth++;
    handler(arg);
    isr_depth--;
    if (isr_woke_higher) {
        isr_woke_higher = pdFALSE;
        portYIELD_FROM_ISR(pdTRUE);
    }
}
#endif

/* Suspend and resume are the kernel's vTaskSuspend and vTaskResume, as
 * Thread-Metric's FreeRTOS ports use them (a task's notification, which
 * stood here before, takes its wait with the whole scheduler suspended and
 * resumed: tm.preempt counted 0.76 of the suite's). The port's contract
 * adds a resume that comes first, remembered once, in the thread's wake.
 * The suspender sets it to -1 with interrupts masked and suspends itself
 * before they are unmasked: vTaskSuspend's own critical section, entered
 * at a nesting of 0, puts the task in the suspended list and unmasks them
 * as it ends (a section of the port's around the call, as stood here
 * before, cost two calls and their nesting count on every suspend). A
 * resumer, a task or a handler, therefore never runs in between (one CPU;
 * the handlers that may call the port are below
 * configMAX_SYSCALL_INTERRUPT_PRIORITY), so a -1 it reads is a task already
 * suspended: it changes wake by one atomic compare-and-swap (no critical
 * section of its own) and, where it took the -1, resumes the task. */
rts_status rts_thread_suspend_self(void)
{
    /* One of the port's threads (its handle in slot 0): tasks run only once
     * the scheduler has started, so rts_thread_self's check of it is moot. */
    rts_thread *self = pvTaskGetThreadLocalStoragePointer(NULL, 0);
    if (!self)
        return RTS_EINVAL;
    portDISABLE_INTERRUPTS();
    if (atomic_load_explicit(&self->wake, memory_order_relaxed) > 0) {
        atomic_store_explicit(&self->wake, 0, memory_order_relaxed);
        portENABLE_INTERRUPTS();
    } else {
        atomic_store_explicit(&self->wake, -1, memory_order_relaxed);
        vTaskSuspend(NULL); /* unmasks interrupts, then switches */
    }
    return RTS_OK;
}

rts_status rts_thread_resume(rts_thread *t)
{
    int wake = atomic_load_explicit(&t->wake, memory_order_relaxed);
    /* -1 becomes 0 (the resume is this call's), 0 or 1 becomes 1. */
    while (!atomic_compare_exchange_weak_explicit(&t->wake, &wake, wake < 0 ? 0 : 1, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
    if (wake < 0) {
        if (in_isr())
            isr_yield(xTaskResumeFromISR(t->task));
        else
            vTaskResume(t->task);
    }
    return RTS_OK;
}

void rts_thread_relinquish(void) { taskYIELD(); }

/* The first task, which runs the program (main, below). */
static StaticTask_t app_tcb;
static volatile unsigned long app_switches;

long long rts_self_switches(void)
{
#if RTS_FREERTOS_SWITCH_COUNTER
    rts_thread *t = rts_thread_self();
    if (t)
        return (long long)t->switches;
    return xTaskGetCurrentTaskHandle() == (TaskHandle_t)&app_tcb ? (long long)app_switches : -1;
#else
    return -1; /* the configuration counts none (configs/bench.h) */
#endif
}

/* What the configuration traces, as os_config's "trace" says it. */
#if RTS_FREERTOS_SWITCH_COUNTER
#define RTS_FREERTOS_COUNTER_TEXT "the port's switch counter (traceTASK_SWITCHED_IN/OUT)"
#else
#define RTS_FREERTOS_COUNTER_TEXT "no switch counter"
#endif
#define RTS_FREERTOS_TRACE                                                                                      \
    (configUSE_TRACE_FACILITY ? "the trace facility, and " RTS_FREERTOS_COUNTER_TEXT : RTS_FREERTOS_COUNTER_TEXT)

/* The kernel's trace hooks (port_trace.h) count the switches into the
 * program's tasks, each where its slot 1 points, and keep here the task
 * that left. */
const void *rts_freertos_leaving;

/* ------------------------------------------------------------- semaphores */

struct rts_sem {
    StaticSemaphore_t buf;
    SemaphoreHandle_t h;
};

rts_status rts_sem_create(rts_sem **out, unsigned initial, unsigned max)
{
    if (max == 0 || initial > max)
        return RTS_EINVAL;
    rts_sem *s = pvPortMalloc(sizeof *s);
    if (!s)
        return RTS_ENOMEM;
    s->h = xSemaphoreCreateCountingStatic(max, initial, &s->buf);
    *out = s;
    return RTS_OK;
}

/* A handler's give, apart: its flag on the stack would cost a task's give
 * a stack frame. */
__attribute__((noinline)) static rts_status sem_give_from_isr(rts_sem *s)
{
    BaseType_t woke_higher = pdFALSE;
    BaseType_t given = xSemaphoreGiveFromISR(s->h, &woke_higher);
    isr_yield(woke_higher);
    return given == pdTRUE ? RTS_OK : RTS_EAGAIN;
}

rts_status rts_sem_give(rts_sem *s)
{
    if (in_isr())
        return sem_give_from_isr(s);
    return xSemaphoreGive(s->h) == pdTRUE ? RTS_OK : RTS_EAGAIN;
}

__attribute__((noinline)) static rts_status sem_take_waiting(rts_sem *s, uint64_t timeout_ns)
{
    return xSemaphoreTake(s->h, timeout_ticks(timeout_ns)) == pdTRUE ? RTS_OK : RTS_ETIMEDOUT;
}

/* Without a wait, the kernel's call and nothing else. */
rts_status rts_sem_take(rts_sem *s, uint64_t timeout_ns)
{
    if (timeout_ns == 0)
        return xSemaphoreTake(s->h, 0) == pdTRUE ? RTS_OK : RTS_EAGAIN;
    return sem_take_waiting(s, timeout_ns);
}

void rts_sem_destroy(rts_sem *s)
{
    if (!s)
        return;
    vSemaphoreDelete(s->h);
    vPortFree(s);
}

/* ---------------------------------------------------------------- mutexes */

/* FreeRTOS's mutexes always inherit priority: a mutex without inheritance
 * is a binary semaphore holding its one token. */
struct rts_mutex {
    StaticSemaphore_t buf;
    SemaphoreHandle_t h;
};

rts_status rts_mutex_create(rts_mutex **out, bool inherit)
{
    rts_mutex *m = pvPortMalloc(sizeof *m);
    if (!m)
        return RTS_ENOMEM;
    if (inherit) {
        m->h = xSemaphoreCreateMutexStatic(&m->buf);
    } else {
        m->h = xSemaphoreCreateBinaryStatic(&m->buf);
        xSemaphoreGive(m->h);
    }
    *out = m;
    return RTS_OK;
}

rts_status rts_mutex_lock(rts_mutex *m) { return xSemaphoreTake(m->h, portMAX_DELAY) == pdTRUE ? RTS_OK : RTS_EFAIL; }

/* The kernel refuses to give an inheriting mutex the caller does not hold. */
rts_status rts_mutex_unlock(rts_mutex *m) { return xSemaphoreGive(m->h) == pdTRUE ? RTS_OK : RTS_EPERM; }

void rts_mutex_destroy(rts_mutex *m)
{
    if (!m)
        return;
    vSemaphoreDelete(m->h);
    vPortFree(m);
}

/* --------------------------------------------------------- message queues */

/* The control block and the messages' storage in one block. */
struct rts_queue {
    StaticQueue_t buf;
    QueueHandle_t h;
    uint8_t storage[];
};

rts_status rts_queue_create(rts_queue **out, size_t msg_size, unsigned capacity)
{
    if (msg_size == 0 || capacity == 0 || msg_size > (SIZE_MAX - sizeof(rts_queue)) / capacity)
        return RTS_EINVAL;
    rts_queue *q = pvPortMalloc(sizeof *q + msg_size * capacity);
    if (!q)
        return RTS_ENOMEM;
    q->h = xQueueCreateStatic(capacity, msg_size, q->storage, &q->buf);
    *out = q;
    return RTS_OK;
}

__attribute__((noinline)) static rts_status queue_send_waiting(rts_queue *q, const void *msg, uint64_t timeout_ns)
{
    return xQueueSend(q->h, msg, timeout_ticks(timeout_ns)) == pdTRUE ? RTS_OK : RTS_ETIMEDOUT;
}

__attribute__((noinline)) static rts_status queue_receive_waiting(rts_queue *q, void *msg, uint64_t timeout_ns)
{
    return xQueueReceive(q->h, msg, timeout_ticks(timeout_ns)) == pdTRUE ? RTS_OK : RTS_ETIMEDOUT;
}

/* Without a wait, the kernel's call and nothing else: the message is
 * copied from where it lies, as the kernel always copies. */
rts_status rts_queue_send(rts_queue *q, const void *msg, uint64_t timeout_ns)
{
    if (timeout_ns == 0)
        return xQueueSend(q->h, msg, 0) == pdTRUE ? RTS_OK : RTS_EAGAIN;
    return queue_send_waiting(q, msg, timeout_ns);
}

rts_status rts_queue_receive(rts_queue *q, void *msg, uint64_t timeout_ns)
{
    if (timeout_ns == 0)
        return xQueueReceive(q->h, msg, 0) == pdTRUE ? RTS_OK : RTS_EAGAIN;
    return queue_receive_waiting(q, msg, timeout_ns);
}

void rts_queue_destroy(rts_queue *q)
{
    if (!q)
        return;
    vQueueDelete(q->h);
    vPortFree(q);
}

/* ---------------------------------------------------- software interrupt */

#if ISR_DIRECT
/* The board's interrupt runs the bench's handler itself (in_isr, above). */
static void soft_irq_entry(void *arg) { (void)arg; }

rts_status rts_soft_irq_register(void (*handler)(void *), void *arg)
{
    return board_soft_irq_register(handler, arg);
}
#else
/* The board's interrupt runs the port's entry, which runs the bench's
 * handler in interrupt context (isr_run). */
static void (*soft_irq_handler)(void *);
static void *soft_irq_arg;

static void soft_irq_entry(void *arg)
{
    (void)arg;
    if (soft_irq_handler)
        isr_run(soft_irq_handler, soft_irq_arg);
}

rts_status rts_soft_irq_register(void (*handler)(void *), void *arg)
{
    soft_irq_handler = handler;
    soft_irq_arg = arg;
    return board_soft_irq_register(soft_irq_entry, NULL);
}
#endif

rts_status rts_soft_irq_raise(void) { return board_soft_irq_raise(); }

/* ------------------------------------------------------------------ heap */

void *rts_heap_alloc(size_t bytes) { return pvPortMalloc(bytes); }

void rts_heap_free(void *p) { vPortFree(p); }

/* -------------------------------------------------------------- kernel */

/* A broken kernel invariant (configASSERT) ends the run, saying where. */
void rts_freertos_assert_failed(const char *file, int line)
{
    char text[160];
    snprintf(text, sizeof text, "FreeRTOS assertion failed at %s:%d", file, line);
    board_fatal(text);
}

#if configCHECK_FOR_STACK_OVERFLOW
/* FreeRTOS found a task's stack pointer beyond its stack at a switch. */
void vApplicationStackOverflowHook(TaskHandle_t task, char *name);
void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task;
    char text[96];
    snprintf(text, sizeof text, "task %s overflowed its stack", name);
    board_fatal(text);
}
#endif

/* The board's hold on the scheduler (board.h): FreeRTOS's own. */
void port_sched_hold(void)
{
    if (xTaskGetSchedulerState() != taskSCHEDULER_NOT_STARTED)
        vTaskSuspendAll();
}

void port_sched_release(void)
{
    if (xTaskGetSchedulerState() != taskSCHEDULER_NOT_STARTED)
        (void)xTaskResumeAll();
}

/* ------------------------------------------------------- system identity */

/* The board's part (CPU, clock source, emulator or simulator), then the
 * kernel's: FreeRTOS, its version and commit, and how this image was built.
 * realtime_kernel stays unknown: it says PREEMPT_RT, a Linux matter. */
void rts_sysinfo_read(rts_sysinfo *info)
{
    *info = (rts_sysinfo){ .realtime_kernel = -1, .cpu_count = 1, .isolated_known = 1, .rt_runtime_us = -1,
                           .rt_period_us = -2 };
    board_sysinfo(info);
    snprintf(info->os, sizeof info->os, "FreeRTOS");
    snprintf(info->kernel_release, sizeof info->kernel_release, "%s", tskKERNEL_VERSION_NUMBER);
    /* The rest of the build (tick, compiler, flags …) is the manifest's, system.os_config. */
    snprintf(info->kernel_version, sizeof info->kernel_version, "FreeRTOS-Kernel %s %s, %s configuration",
             tskKERNEL_VERSION_NUMBER, RTS_KERNEL_SOURCE_ID, RTS_FREERTOS_CONFIG);
    snprintf(info->preempt_model, sizeof info->preempt_model, "%s", configUSE_PREEMPTION ? "full" : "none");
}

/* The kernel's build, each value from its own macro: FreeRTOSConfig.h's
 * (the board's facts, port_config.h, the configuration's configs/NAME.h),
 * the kernel's defaults for what they leave out (FreeRTOS.h, portmacro.h),
 * and the build's defines (port.mk: the heap, the commit, the flags). */
#if configCHECK_FOR_STACK_OVERFLOW == 0
#define RTS_STACK_CHECK "off"
#elif configCHECK_FOR_STACK_OVERFLOW == 1
#define RTS_STACK_CHECK "method 1: the stack pointer at each switch"
#else
#define RTS_STACK_CHECK "method 2: the stack pointer and the pattern at the stack's end at each switch"
#endif
#define RTS_TRUTH(setting) ((setting) ? "true" : "false")

const rts_os_setting *rts_os_config(size_t *count)
{
    static char tick_hz[24], priorities[24];
    static const rts_os_setting settings[] = {
        { "kernel", "FreeRTOS" },
        { "kernel_version", tskKERNEL_VERSION_NUMBER },
        RTS_KERNEL_SOURCE_SETTINGS,
        { "config", RTS_FREERTOS_CONFIG },
        { "tick_hz", tick_hz },
        { "preemption", RTS_TRUTH(configUSE_PREEMPTION) },
        { "time_slicing", RTS_TRUTH(configUSE_TIME_SLICING) },
        { "assertions", RTS_TRUTH(configASSERT_DEFINED) },
        { "stack_check", RTS_STACK_CHECK },
        { "trace", RTS_FREERTOS_TRACE },
        { "heap", RTS_FREERTOS_HEAP },
        { "task_selection", configUSE_PORT_OPTIMISED_TASK_SELECTION ? "optimised (the kernel port's)" : "generic" },
        { "priorities", priorities },
#ifdef _NEWLIB_VERSION
        { "newlib_reentrant", RTS_TRUTH(configUSE_NEWLIB_REENTRANT) },
#endif
        { "compiler", RTS_COMPILER },
        { "cflags", RTS_BUILD_FLAGS },
    };
    snprintf(tick_hz, sizeof tick_hz, "%lu", (unsigned long)configTICK_RATE_HZ);
    snprintf(priorities, sizeof priorities, "%lu", (unsigned long)configMAX_PRIORITIES);
    *count = sizeof settings / sizeof settings[0];
    return settings;
}

/* --------------------------------------------------------------- startup */

/* The first task runs the program (board_run_program). It starts as
 * "other", as a process's main thread does; the run raises it to the policy
 * asked for. */
static void app_task(void *arg)
{
    (void)arg;
    board_run_program();
}

/* port.mk renames the program's main, not the port's. */
#undef main

/* The board's startup (or the simulator's process) calls main. */
int main(void)
{
    static StackType_t app_stack[RTS_MAIN_STACK_BYTES / sizeof(StackType_t)];
    board_init();
    TaskHandle_t app = xTaskCreateStatic(app_task, "rtscope-main", sizeof app_stack / sizeof app_stack[0], NULL, 1,
                                         app_stack, &app_tcb);
    vTaskSetThreadLocalStoragePointer(app, RTS_FREERTOS_COUNTER_SLOT, (void *)&app_switches);
    vTaskStartScheduler();
    static const char failed[] = "rtscope-probe: the FreeRTOS scheduler did not start\n";
    board_diag_write(failed, sizeof failed - 1);
    board_exit(70);
}
