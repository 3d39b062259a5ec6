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

static int __init wave_init(void)
{
    return 0;
}

static void __exit wave_exit(void)
{
    mutex_lock(&lock);
    stop();
    mutex_unlock(&lock);
}

module_init(wave_init);
module_exit(wave_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtscope: the square wave's kernel generators (hrtimer, SCHED_FIFO kthread)");
