// SPDX-License-Identifier: GPL-2.0
/*
 * rtscope_wave — the square wave's kernel generators (wave.square's models
 * kmod-hrtimer and kmod-kthread, docs/wave.md): the pin toggled from the
 * kernel, observed by the probe like every other model.
 *
 * The module is loaded before the probe starts (loaded by the generator,
 * beside the observer spinning at SCHED_FIFO, it took about half a second of
 * guest time); rtscope-kmod-wave then sets mode, half_period_ns and periods in
 * /sys/module/rtscope_wave/parameters and writes the pin's path to "pin",
 * which starts the generator. The pin is the first byte of the probe's
 * one-page shared memory file (a memfd reached through /proc/PID/fd/N): the
 * module takes the file's page and writes '0' or '1' into it, which the
 * probe's observer sees through its own mapping of the same page.
 *
 * mode=hrtimer: an hrtimer in hard interrupt context toggles at absolute
 * times start + k * half_period_ns. mode=kthread: a SCHED_FIFO kernel
 * thread (sched_set_fifo: priority 50) sleeps until those times and
 * toggles. Both start low, toggle 2 * periods times and stop; "toggles"
 * counts them and "running" says whether they still go. Writing an empty
 * pin (or unloading) stops the generator early and lets the file go.
 * Built by rtscope against Debian's headers for the guest's kernel.
 *
 * The same module is also rtscope's known culprit, for the kernel trace at
 * a latency spike (docs/spike-trace.md): loaded with hold=irqs|preempt|fifo,
 * a kernel thread "rtscope-hold" bound to hold_cpu (at SCHED_FIFO
 * hold_prio when given) keeps, every
 * hold_every_us, the CPU for hold_us — with interrupts off, with preemption
 * off, or busy-looping at SCHED_FIFO 90 (above the probe's default 80) —
 * until the module is unloaded. "holds" counts the holds done and
 * "hold_longest_ns" is the longest, as its own clock measured it.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include <uapi/linux/sched/types.h>

static char mode[16] = "hrtimer";
static ulong half_period_ns = 500000;
static ulong periods = 1000;
static ulong toggles;
static bool running;
module_param_string(mode, mode, sizeof mode, 0644);
MODULE_PARM_DESC(mode, "hrtimer (interrupt context) or kthread (SCHED_FIFO kernel thread)");
module_param(half_period_ns, ulong, 0644);
MODULE_PARM_DESC(half_period_ns, "time between toggles");
module_param(periods, ulong, 0644);
MODULE_PARM_DESC(periods, "full periods to generate (2 toggles each)");
module_param(toggles, ulong, 0444);
MODULE_PARM_DESC(toggles, "toggles done since the last start");
module_param(running, bool, 0444);
MODULE_PARM_DESC(running, "whether the generator still toggles");

static DEFINE_MUTEX(lock);
static struct file *pin_file;
static struct page *pin_page;
static u8 *level;
static struct hrtimer timer;
static struct task_struct *thread;
static ktime_t next;

/* One toggle (the pin starts low); false when all are done. */
static bool toggle(void)
{
    WRITE_ONCE(*level, (toggles & 1) ? '0' : '1');
    WRITE_ONCE(toggles, toggles + 1);
    if (toggles >= 2 * periods) {
        WRITE_ONCE(running, false);
        return false;
    }
    next = ktime_add_ns(next, half_period_ns);
    return true;
}

static enum hrtimer_restart on_timer(struct hrtimer *t)
{
    if (!toggle())
        return HRTIMER_NORESTART;
    hrtimer_set_expires(t, next);
    return HRTIMER_RESTART;
}

static int thread_fn(void *unused)
{
    sched_set_fifo(current);
    while (!kthread_should_stop() && READ_ONCE(running)) {
        ktime_t until = next;
        set_current_state(TASK_UNINTERRUPTIBLE);
        schedule_hrtimeout(&until, HRTIMER_MODE_ABS);
        if (!kthread_should_stop() && !toggle())
            break;
    }
    while (!kthread_should_stop()) {
        set_current_state(TASK_INTERRUPTIBLE);
        schedule();
    }
    __set_current_state(TASK_RUNNING);
    return 0;
}

/* Stop the generator and let the pin's file go (under lock). */
static void stop(void)
{
    WRITE_ONCE(running, false);
    if (thread) {
        kthread_stop(thread);
        thread = NULL;
    } else if (pin_page) {
        hrtimer_cancel(&timer);
    }
    if (pin_page) {
        set_page_dirty(pin_page);
        kunmap(pin_page);
        put_page(pin_page);
        pin_page = NULL;
    }
    if (pin_file) {
        filp_close(pin_file, NULL);
        pin_file = NULL;
    }
}

/* Start toggling the pin of the file at path (under lock). */
static int start(const char *path)
{
    bool hard = strcmp(mode, "hrtimer") == 0;
    if (!hard && strcmp(mode, "kthread") != 0)
        return -EINVAL;
    if (!half_period_ns || !periods)
        return -EINVAL;
    pin_file = filp_open(path, O_RDWR, 0);
    if (IS_ERR(pin_file)) {
        int error = PTR_ERR(pin_file);
        pin_file = NULL;
        return error;
    }
    pin_page = shmem_read_mapping_page(pin_file->f_mapping, 0);
    if (IS_ERR(pin_page)) {
        int error = PTR_ERR(pin_page);
        pin_page = NULL;
        stop();
        return error;
    }
    level = kmap(pin_page);
    WRITE_ONCE(*level, '0');
    toggles = 0;
    running = true;
    next = ktime_add_ns(ktime_get(), half_period_ns);
    if (hard) {
        hrtimer_init(&timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
        timer.function = on_timer;
        hrtimer_start(&timer, next, HRTIMER_MODE_ABS_HARD);
        return 0;
    }
    thread = kthread_run(thread_fn, NULL, "rtscope-wave");
    if (IS_ERR(thread)) {
        int error = PTR_ERR(thread);
        thread = NULL;
        stop();
        return error;
    }
    return 0;
}

/* Writing "pin": a path starts the generator on that file, "" stops it. */
static int set_pin(const char *value, const struct kernel_param *kp)
{
    char path[256];
    size_t len = strscpy(path, value, sizeof path) < 0 ? 0 : strlen(path);
    int error = 0;
    if (len && path[len - 1] == '\n')
        path[--len] = '\0';
    mutex_lock(&lock);
    stop();
    if (len)
        error = start(path);
    mutex_unlock(&lock);
    return error;
}

static const struct kernel_param_ops pin_ops = { .set = set_pin };
module_param_cb(pin, &pin_ops, NULL, 0200);
MODULE_PARM_DESC(pin, "write the pin's file path to start, nothing to stop");

/* ------------------------------------------------- the known culprit */

static char hold[16] = "";
static ulong hold_us = 500;
static ulong hold_every_us = 20000;
static int hold_cpu;
static int hold_prio;
static ulong holds;
static ulong hold_longest_ns;
module_param_string(hold, hold, sizeof hold, 0444);
MODULE_PARM_DESC(hold, "at load: irqs, preempt or fifo keeps hold_cpu for hold_us every hold_every_us");
module_param(hold_us, ulong, 0444);
MODULE_PARM_DESC(hold_us, "how long each hold keeps the CPU");
module_param(hold_every_us, ulong, 0444);
MODULE_PARM_DESC(hold_every_us, "the period of the holds");
module_param(hold_cpu, int, 0444);
MODULE_PARM_DESC(hold_cpu, "the CPU held");
module_param(hold_prio, int, 0444);
MODULE_PARM_DESC(hold_prio, "the holder's SCHED_FIFO priority, 1..99; 0: 90 for fifo, a normal thread for irqs and preempt");
module_param(holds, ulong, 0444);
MODULE_PARM_DESC(holds, "holds done");
module_param(hold_longest_ns, ulong, 0444);
MODULE_PARM_DESC(hold_longest_ns, "the longest hold, by its own clock");

static struct task_struct *holder;

/* Keep the CPU from start for hold_us, as hold says; how long it kept it. */
static u64 keep_cpu(bool irqs_off, bool preempt_off)
{
    unsigned long flags = 0;
    ktime_t start, until;
    u64 kept;
    if (irqs_off)
        local_irq_save(flags);
    else if (preempt_off)
        preempt_disable();
    start = ktime_get();
    until = ktime_add_us(start, hold_us);
    while (ktime_before(ktime_get(), until))
        cpu_relax();
    kept = ktime_to_ns(ktime_sub(ktime_get(), start));
    if (irqs_off)
        local_irq_restore(flags);
    else if (preempt_off)
        preempt_enable();
    return kept;
}

static int hold_fn(void *unused)
{
    bool irqs_off = strcmp(hold, "irqs") == 0, preempt_off = strcmp(hold, "preempt") == 0;
    ktime_t next = ktime_get();
    /* Above a bench's SCHED_FIFO threads, an irqs or preempt holder can
     * take a CPU they keep busy; fifo is always at a real-time priority. */
    if (hold_prio || (!irqs_off && !preempt_off)) {
        struct sched_attr fifo = { .size = sizeof fifo, .sched_policy = SCHED_FIFO,
                                   .sched_priority = hold_prio ? hold_prio : 90 };
        sched_setattr_nocheck(current, &fifo);
    }
    while (!kthread_should_stop()) {
        u64 kept;
        next = ktime_add_us(next, hold_every_us);
        set_current_state(TASK_INTERRUPTIBLE);
        schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
        if (kthread_should_stop())
            break;
        kept = keep_cpu(irqs_off, preempt_off);
        WRITE_ONCE(holds, holds + 1);
        if (kept > hold_longest_ns)
            WRITE_ONCE(hold_longest_ns, kept);
    }
    return 0;
}

static int __init wave_init(void)
{
    if (!hold[0])
        return 0;
    if ((strcmp(hold, "irqs") && strcmp(hold, "preempt") && strcmp(hold, "fifo")) || !hold_us ||
        hold_us >= hold_every_us || hold_cpu < 0 || hold_cpu >= nr_cpu_ids || !cpu_online(hold_cpu) ||
        hold_prio < 0 || hold_prio > 99)
        return -EINVAL;
    holder = kthread_create(hold_fn, NULL, "rtscope-hold");
    if (IS_ERR(holder))
        return PTR_ERR(holder);
    kthread_bind(holder, hold_cpu);
    wake_up_process(holder);
    return 0;
}

static void __exit wave_exit(void)
{
    if (holder)
        kthread_stop(holder);
    mutex_lock(&lock);
    stop();
    mutex_unlock(&lock);
}

module_init(wave_init);
module_exit(wave_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtscope: the square wave's kernel generators (hrtimer, SCHED_FIFO kthread) and a known culprit");
