/*
 * QEMU's mps2-an385 (Cortex-M3) behind board.h: UART0, CMSDK APB timer 0
 * as the clock (board_time.h), timer 1 for the periodic interrupt, and IRQ
 * 31 (wired to nothing on this board) as the software interrupt, set
 * pending through the NVIC. The request, the console, the result and the
 * exit status go through the channel board.mk's LINK chooses (channel.h):
 * Arm semihosting (channel_semihosting.c) or frames on the UART
 * (channel_uart.c).
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
#include "board_soft_irq.h"
#include "board_vectors.h"
#include "channel.h"

/* ------------------------------------------------------------ hardware */

typedef struct {
    volatile uint32_t data;
    volatile uint32_t state;   /* bit 0: transmit buffer full; bit 1: a byte received */
    volatile uint32_t ctrl;    /* bit 0: transmit enable; bit 1: receive enable */
    volatile uint32_t intstatus;
    volatile uint32_t bauddiv;
} board_uart;

#define UART0 ((board_uart *)0x40004000u)
#define UART_TX_FULL 1u
#define UART_RX_FULL 2u
#define UART_TX_ENABLE 1u
#define UART_RX_ENABLE 2u

#define TIMER_ENABLE 1u
#define TIMER_IRQ_ENABLE 8u
#define IRQ_TIMER0 8u
#define IRQ_TIMER1 9u
#define IRQ_SOFT BOARD_IRQ_SOFT
#define PERIODIC_TIMER ((board_cmsdk_timer *)0x40001000u)

#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_ICER0 (*(volatile uint32_t *)0xE000E180u)
#define NVIC_ISPR0 BOARD_NVIC_ISPR0
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

/* ---------------------------------------------------------------- UART */

void board_uart_write(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (UART0->state & UART_TX_FULL)
            ;
        UART0->data = (uint8_t)text[i];
    }
}

void board_uart_drain(void)
{
    while (UART0->state & UART_TX_FULL)
        ;
}

int board_uart_read(void)
{
    return UART0->state & UART_RX_FULL ? (int)(UART0->data & 0xFFu) : -1;
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

/* ------------------------------------------------------------------ faults */

_Noreturn static void fault_exit(const char *what)
{
    /* Interrupts off: nothing else runs, and the UART is written directly. */
    __asm__ volatile("cpsid i" ::: "memory");
    board_uart_write(what, strlen(what));
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

/* The interrupt is enabled only once a handler is registered
 * (board_soft_irq_register), so there always is one. */
void board_soft_irq_handler(void) { soft_irq.handler(soft_irq.arg); }

rts_status board_soft_irq_register(void (*handler)(void *arg), void *arg)
{
    irq_disable(IRQ_SOFT);
    soft_irq.handler = handler;
    soft_irq.arg = arg;
    irq_setup(IRQ_SOFT);
    return RTS_OK;
}

/* Before a handler is registered the interrupt is disabled: the pending
 * one does nothing, and registering clears it (irq_setup). */
rts_status board_soft_irq_raise(void)
{
    board_soft_irq_pend();
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
    UART0->ctrl = UART_TX_ENABLE | UART_RX_ENABLE;
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
