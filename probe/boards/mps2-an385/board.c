/*
 * QEMU's mps2-an385 (Cortex-M3) behind board.h: UART0 for the console,
 * Arm semihosting for the command line, the result file and the exit
 * status, CMSDK APB timer 0 as the clock (board_time.h), timer 1 for the
 * periodic interrupt, and IRQ 31 (wired to nothing on this board) as the
 * software interrupt, set pending through the NVIC.
 *
 * Peripherals as QEMU models them (hw/arm/mps2.c): UART0 at 0x40004000,
 * timers 0 and 1 at 0x40000000 and 0x40001000 on IRQs 8 and 9, 32 IRQs.
 * Kernel-neutral: what it needs of the kernel is in the port's
 * board_kernel.h (the priority of the board's interrupts) and the port's
 * scheduler hold (board.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "board_kernel.h"
#include "board_vectors.h"

/* ------------------------------------------------------------ hardware */

typedef struct {
    volatile uint32_t data;
    volatile uint32_t state;   /* bit 0: transmit buffer full */
    volatile uint32_t ctrl;    /* bit 0: transmit enable */
    volatile uint32_t intstatus;
    volatile uint32_t bauddiv;
} board_uart;

#define UART0 ((board_uart *)0x40004000u)
#define UART_TX_FULL 1u
#define UART_TX_ENABLE 1u

#define TIMER_ENABLE 1u
#define TIMER_IRQ_ENABLE 8u
#define IRQ_TIMER0 8u
#define IRQ_TIMER1 9u
#define IRQ_SOFT 31u
#define PERIODIC_TIMER ((board_cmsdk_timer *)0x40001000u)

#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_ICER0 (*(volatile uint32_t *)0xE000E180u)
#define NVIC_ISPR0 (*(volatile uint32_t *)0xE000E200u)
#define NVIC_ICPR0 (*(volatile uint32_t *)0xE000E280u)
#define NVIC_IPR ((volatile uint8_t *)0xE000E400u)
#define SCB_SHCSR (*(volatile uint32_t *)0xE000ED24u)
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)
#define SHCSR_FAULTS_ENABLE (7u << 16) /* MemManage, BusFault, UsageFault */

/* The status the image exits with when the guest faults (a fault, a failed
 * kernel assertion, a task's stack overflow): not 0, 1 or 2, which are the
 * probe's own (complete, failed, bad input). */
#define BOARD_FAULT_STATUS 3

static void irq_setup(unsigned irq)
{
    NVIC_IPR[irq] = BOARD_IRQ_PRIORITY;
    NVIC_ICPR0 = 1u << irq;
    NVIC_ISER0 = 1u << irq;
}

static void irq_disable(unsigned irq)
{
    NVIC_ICER0 = 1u << irq;
    NVIC_ICPR0 = 1u << irq;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* --------------------------------------------------------- semihosting */

/* Arm semihosting operations (Arm's "Semihosting for AArch32 and AArch64"). */
enum {
    SYS_OPEN = 0x01,
    SYS_CLOSE = 0x02,
    SYS_WRITE = 0x05,
    SYS_READ = 0x06,
    SYS_REMOVE = 0x0E,
    SYS_RENAME = 0x0F,
    SYS_ERRNO = 0x13,
    SYS_GET_CMDLINE = 0x15,
    SYS_EXIT_EXTENDED = 0x20
};
#define SH_MODE_READ_BINARY 1  /* fopen's "rb" */
#define SH_MODE_WRITE_BINARY 5 /* fopen's "wb" */
#define SH_APPLICATION_EXIT 0x20026u

/* One semihosting call: the host (QEMU) does op with the block at arg. */
static int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static const char *host_error(void)
{
    return strerror(semihost(SYS_ERRNO, NULL));
}

/* --------------------------------------------------------------- clock */

volatile uint32_t board_clock_wraps;

void board_timer0_handler(void)
{
    BOARD_CLOCK_TIMER->intstatus = BOARD_TIMER_INT;
    board_clock_wraps++;
}

static void clock_start(void)
{
    BOARD_CLOCK_TIMER->ctrl = 0;
    BOARD_CLOCK_TIMER->reload = 0xFFFFFFFFu; /* also loads the count */
    BOARD_CLOCK_TIMER->intstatus = BOARD_TIMER_INT;
    irq_setup(IRQ_TIMER0);
    BOARD_CLOCK_TIMER->ctrl = TIMER_ENABLE | TIMER_IRQ_ENABLE;
}

const char *board_clock_name(void) { return "CMSDK APB timer 0 (25 MHz, instruction-counted under QEMU -icount)"; }
uint64_t board_clock_resolution_ns(void) { return BOARD_NS_PER_COUNT; }

/* ------------------------------------------------------------- console */

/* Console writes from threads are kept whole by holding the scheduler
 * (not a mutex: the probe may write before the scheduler runs, and from
 * the watchdog while another thread holds anything). */
static void uart_write(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (UART0->state & UART_TX_FULL)
            ;
        UART0->data = (uint8_t)text[i];
    }
}

static void uart_drain(void)
{
    while (UART0->state & UART_TX_FULL)
        ;
}

void board_console_write(const char *text, size_t n)
{
    port_sched_hold();
    uart_write(text, n);
    port_sched_release();
}

void board_diag_write(const char *text, size_t n) { board_console_write(text, n); }

/* -------------------------------------------------------- command line */

/* The request as QEMU gives it: its -semihosting-config arg= values joined
 * by single spaces, each percent-encoded by rtscope (a space is %20, a
 * percent sign %25), so that an argument may hold any byte. */
#ifndef BOARD_CMDLINE_BYTES /* board.mk's MCU=small gives less */
#define BOARD_CMDLINE_BYTES 2048
#endif
#ifndef BOARD_MAX_ARGS
#define BOARD_MAX_ARGS 128
#endif

static char cmdline[BOARD_CMDLINE_BYTES];
static char *args[BOARD_MAX_ARGS + 1];
static char default_arg0[] = "rtscope-probe";

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode one percent-encoded word in place; false when malformed. */
static bool percent_decode(char *word)
{
    char *out = word;
    for (const char *in = word; *in; in++) {
        if (*in != '%') {
            *out++ = *in;
            continue;
        }
        int high = hex_digit(in[1]), low = high < 0 ? -1 : hex_digit(in[2]);
        if (low < 0)
            return false;
        *out++ = (char)(high << 4 | low);
        in += 2;
    }
    *out = '\0';
    return true;
}

static void fail_early(const char *line)
{
    uart_write(line, strlen(line));
    board_exit(2);
}

int board_args(char ***argv)
{
    struct { char *buf; int len; } block = { cmdline, (int)sizeof cmdline };
    if (semihost(SYS_GET_CMDLINE, &block) != 0)
        fail_early("rtscope-probe: the request is longer than the image holds (2048 bytes of command line)\n");
    int argc = 0;
    for (char *word = strtok(cmdline, " "); word; word = strtok(NULL, " ")) {
        if (argc == BOARD_MAX_ARGS)
            fail_early("rtscope-probe: the request has more arguments than the image holds (128)\n");
        if (!percent_decode(word))
            fail_early("rtscope-probe: a malformed argument in the request (bad %-escape)\n");
        args[argc++] = word;
    }
    if (argc == 0)
        args[argc++] = default_arg0;
    args[argc] = NULL;
    *argv = args;
    return argc;
}

/* ------------------------------------------------------------- identity */

const char *board_name(void) { return "mps2-an385"; }

void board_sysinfo(rts_sysinfo *info)
{
    snprintf(info->hostname, sizeof info->hostname, "%s", "mps2-an385");
    snprintf(info->arch, sizeof info->arch, "%s", "armv7-m");
    snprintf(info->cpu_model, sizeof info->cpu_model, "%s", "Arm Cortex-M3 (QEMU mps2-an385, 25 MHz system clock)");
    info->cpu_count = 1;
    snprintf(info->cpus_online, sizeof info->cpus_online, "%s", "0");
    snprintf(info->clocksource, sizeof info->clocksource, "%s", "cmsdk-apb-timer0");
    snprintf(info->virtualization, sizeof info->virtualization, "%s", "qemu");
}

/* Run ids only. The host's /dev/urandom through semihosting, so that two
 * reruns, identical to the bit otherwise, can both be stored; reading it is
 * one instruction to the guest, so the figures do not move. A fixed
 * sequence where the host has none. */
void board_random_bytes(void *buf, size_t n)
{
    static const char source[] = "/dev/urandom";
    struct { const char *name; int mode; int len; } open_block = { source, SH_MODE_READ_BINARY, (int)sizeof source - 1 };
    int handle = semihost(SYS_OPEN, &open_block);
    if (handle >= 0) {
        struct { int handle; void *buf; int len; } read_block = { handle, buf, (int)n };
        int unread = semihost(SYS_READ, &read_block);
        (void)semihost(SYS_CLOSE, &handle);
        if (unread == 0)
            return;
    }
    static uint32_t state = 0x2545F491u;
    uint8_t *bytes = buf;
    for (size_t i = 0; i < n; i++) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        bytes[i] = (uint8_t)state;
    }
}

/* --------------------------------------------------------------- result */

/* The result is a file of the host, written through semihosting beside
 * dest as dest.part and renamed over dest on commit, so that a reader
 * never sees half a document; "-" is the console. */
#ifndef RESULT_PATH_BYTES /* board.mk's MCU=small gives less */
#define RESULT_PATH_BYTES 512
#endif

static struct {
    int handle;            /* semihosting handle; -1: console; -2: none open */
    bool failed;
    char failure[96];
    char dest[RESULT_PATH_BYTES];
    char part[RESULT_PATH_BYTES];
} result = { .handle = -2 };

static int sh_remove(const char *path)
{
    struct { const char *name; int len; } block = { path, (int)strlen(path) };
    return semihost(SYS_REMOVE, &block);
}

int board_result_open(const char *dest, char *why, size_t whysize)
{
    result.failed = false;
    if (strcmp(dest, RTS_SINK_CONSOLE) == 0) {
        result.handle = -1;
        return 0;
    }
    if ((size_t)snprintf(result.part, sizeof result.part, "%s.part", dest) >= sizeof result.part) {
        snprintf(why, whysize, "result path longer than %d bytes: %s", RESULT_PATH_BYTES - 6, dest);
        return -1;
    }
    snprintf(result.dest, sizeof result.dest, "%s", dest);
    struct { const char *name; int mode; int len; } block = { result.part, SH_MODE_WRITE_BINARY,
                                                              (int)strlen(result.part) };
    result.handle = semihost(SYS_OPEN, &block);
    if (result.handle < 0) {
        snprintf(why, whysize, "cannot open %s on the host: %s", result.part, host_error());
        result.handle = -2;
        return -1;
    }
    return 0;
}

int board_result_write(const void *data, size_t n)
{
    if (result.failed || result.handle == -2)
        return -1;
    if (result.handle == -1) {
        board_console_write(data, n);
        return 0;
    }
    struct { int handle; const void *buf; int len; } block = { result.handle, data, (int)n };
    if (semihost(SYS_WRITE, &block) != 0) {
        result.failed = true;
        snprintf(result.failure, sizeof result.failure, "cannot write the result on the host: %s", host_error());
        return -1;
    }
    return 0;
}

static int close_part(void)
{
    int handle = result.handle;
    result.handle = -2;
    return handle >= 0 ? semihost(SYS_CLOSE, &handle) : 0;
}

int board_result_commit(char *why, size_t whysize)
{
    if (result.handle == -1) {
        result.handle = -2;
        return 0;
    }
    if (result.handle == -2) {
        snprintf(why, whysize, "no result open");
        return -1;
    }
    bool closed = close_part() == 0;
    if (result.failed || !closed) {
        snprintf(why, whysize, "%s", result.failed ? result.failure : "cannot close the result on the host");
        (void)sh_remove(result.part);
        return -1;
    }
    struct { const char *from; int from_len; const char *to; int to_len; } block = {
        result.part, (int)strlen(result.part), result.dest, (int)strlen(result.dest) };
    if (semihost(SYS_RENAME, &block) != 0) {
        snprintf(why, whysize, "cannot rename %s to %s on the host: %s", result.part, result.dest, host_error());
        (void)sh_remove(result.part);
        return -1;
    }
    return 0;
}

void board_result_abort(void)
{
    bool file = result.handle >= 0;
    (void)close_part();
    if (file)
        (void)sh_remove(result.part);
}

/* ------------------------------------------------------------------ exit */

_Noreturn void board_exit(int status)
{
    uart_drain();
    struct { uint32_t reason; uint32_t status; } block = { SH_APPLICATION_EXIT, (uint32_t)status };
    for (;;)
        (void)semihost(SYS_EXIT_EXTENDED, &block);
}

/* ------------------------------------------------------------------ faults */

_Noreturn static void fault_exit(const char *what)
{
    /* Interrupts off: nothing else runs, and the UART is written directly. */
    __asm__ volatile("cpsid i" ::: "memory");
    uart_write(what, strlen(what));
    board_exit(BOARD_FAULT_STATUS);
}

_Noreturn void board_fault(const char *name, const uint32_t *frame)
{
    char line[192];
    snprintf(line, sizeof line,
             "rtscope-probe: guest fault: %s at pc 0x%08lx (lr 0x%08lx, CFSR 0x%08lx, HFSR 0x%08lx, "
             "MMFAR 0x%08lx, BFAR 0x%08lx)\n",
             name, (unsigned long)frame[6], (unsigned long)frame[5], (unsigned long)SCB_CFSR,
             (unsigned long)SCB_HFSR, (unsigned long)SCB_MMFAR, (unsigned long)SCB_BFAR);
    fault_exit(line);
}

_Noreturn void board_fatal(const char *text)
{
    char line[192];
    snprintf(line, sizeof line, "rtscope-probe: guest fault: %s\n", text);
    fault_exit(line);
}

/* newlib's own assertions (its number conversion's) end the guest as a
 * fault, through the same line, instead of through its fiprintf to a
 * stderr the board does not have (3.5 KiB of a small image). */
_Noreturn void __assert_func(const char *file, int line, const char *func, const char *expression);
_Noreturn void __assert_func(const char *file, int line, const char *func, const char *expression)
{
    char text[128];
    snprintf(text, sizeof text, "C library assertion %s failed (%s:%d, %s)", expression, file, line, func ? func : "?");
    board_fatal(text);
}

/* ------------------------------------------------------ software interrupt */

static struct {
    void (*handler)(void *arg);
    void *arg;
} soft_irq;

void board_soft_irq_handler(void)
{
    if (soft_irq.handler)
        soft_irq.handler(soft_irq.arg);
}

rts_status board_soft_irq_register(void (*handler)(void *arg), void *arg)
{
    irq_disable(IRQ_SOFT);
    soft_irq.handler = handler;
    soft_irq.arg = arg;
    irq_setup(IRQ_SOFT);
    return RTS_OK;
}

/* Pending an enabled interrupt of a priority above the caller's is taken
 * after the barriers, before the next instruction. */
rts_status board_soft_irq_raise(void)
{
    if (!soft_irq.handler)
        return RTS_EINVAL;
    NVIC_ISPR0 = 1u << IRQ_SOFT;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return RTS_OK;
}

/* ---------------------------------------------------- periodic interrupt */

/* Timer 1 counts down to 0 and raises its interrupt there, holds 0 for a
 * count and reloads: its period is reload + 1 counts. Expiries are planned
 * in whole counts of the clock (40 ns). */
static struct {
    void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns);
    void *arg;
    uint64_t next_ns;
    uint64_t period_ns;
    uint64_t missed;
} periodic;

void board_timer1_handler(void)
{
    uint64_t entered = board_time_ns();
    PERIODIC_TIMER->intstatus = BOARD_TIMER_INT;
    if (!periodic.handler)
        return;
    uint64_t planned = periodic.next_ns;
    if (entered > planned) {
        /* A delivery later than a whole period serves the latest expiry;
         * the ones it merged are missed. */
        uint64_t merged = (entered - planned) / periodic.period_ns;
        planned += merged * periodic.period_ns;
        periodic.missed += merged;
    }
    periodic.next_ns = planned + periodic.period_ns;
    periodic.handler(periodic.arg, planned, entered);
}

rts_status board_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                                 void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns),
                                 void *arg)
{
    if (periodic.handler)
        return RTS_EAGAIN;
    uint64_t period_counts = period_ns / BOARD_NS_PER_COUNT;
    if (!handler || period_ns % BOARD_NS_PER_COUNT || period_counts < 2 || period_counts > 0xFFFFFFFFu)
        return RTS_EINVAL;
    uint64_t first_counts = (first_ns + BOARD_NS_PER_COUNT - 1) / BOARD_NS_PER_COUNT;
    periodic.handler = handler;
    periodic.arg = arg;
    periodic.period_ns = period_ns;
    periodic.next_ns = first_counts * BOARD_NS_PER_COUNT;
    periodic.missed = 0;
    PERIODIC_TIMER->ctrl = 0;
    PERIODIC_TIMER->intstatus = BOARD_TIMER_INT;
    irq_setup(IRQ_TIMER1);
    /* Masked from reading the clock to starting the count, so that the
     * first expiry is first_ns as closely as a count allows. */
    __asm__ volatile("cpsid i" ::: "memory");
    uint64_t now_counts = board_clock_counts();
    uint64_t wait = first_counts > now_counts ? first_counts - now_counts : 1;
    if (wait > 0xFFFFFFFFu) {
        __asm__ volatile("cpsie i" ::: "memory");
        irq_disable(IRQ_TIMER1);
        periodic.handler = NULL;
        return RTS_EINVAL;
    }
    PERIODIC_TIMER->reload = (uint32_t)(period_counts - 1);
    PERIODIC_TIMER->value = (uint32_t)wait;
    PERIODIC_TIMER->ctrl = TIMER_ENABLE | TIMER_IRQ_ENABLE;
    __asm__ volatile("cpsie i" ::: "memory");
    return RTS_OK;
}

rts_status board_timer_irq_stop(uint64_t *missed)
{
    if (!periodic.handler)
        return RTS_EINVAL;
    PERIODIC_TIMER->ctrl = 0;
    PERIODIC_TIMER->intstatus = BOARD_TIMER_INT;
    irq_disable(IRQ_TIMER1);
    periodic.handler = NULL;
    if (missed)
        *missed = periodic.missed;
    return RTS_OK;
}

/* ------------------------------------------------------------------ init */

void board_init(void)
{
    SCB_SHCSR |= SHCSR_FAULTS_ENABLE; /* each fault reported by its own name */
    UART0->bauddiv = 16;              /* the smallest QEMU accepts; it sends at once anyway */
    UART0->ctrl = UART_TX_ENABLE;
    clock_start();
}

/* ----------------------------------------------------------- C library */

/* newlib's heap for its own needs (number formatting), between the
 * linker's bounds (mps2-an385.ld). */
extern char board_libc_heap_start[], board_libc_heap_end[];

void *_sbrk(ptrdiff_t increment);
void *_sbrk(ptrdiff_t increment)
{
    static char *brk = board_libc_heap_start;
    if (increment > board_libc_heap_end - brk || increment < board_libc_heap_start - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *old = brk;
    brk += increment;
    return old;
}

/* newlib's malloc is shared by every thread: kept to one at a time. */
struct _reent;
void __malloc_lock(struct _reent *reent);
void __malloc_unlock(struct _reent *reent);
void __malloc_lock(struct _reent *reent)
{
    (void)reent;
    port_sched_hold();
}
void __malloc_unlock(struct _reent *reent)
{
    (void)reent;
    port_sched_release();
}
