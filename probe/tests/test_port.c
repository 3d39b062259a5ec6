/*
 * Contract tests of the port (include/rtscope/port.h) on this platform.
 * A check that needs a capability the port does not claim (rts_port_caps)
 * is skipped, and says so on a line of its own. RTSCOPE_TEST_CAPS=<hex>
 * masks the claimed capabilities, to see what a port without them runs.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "port_time.h"
#include "rtscope/cycles.h"
#include "rtscope/port.h"

#define MS 1000000ull

static const struct {
    unsigned cap;
    const char *name;
} cap_names[] = {
    { RTS_CAP_PRIORITY_SCHED, "RTS_CAP_PRIORITY_SCHED" }, { RTS_CAP_AFFINITY, "RTS_CAP_AFFINITY" },
    { RTS_CAP_MLOCK, "RTS_CAP_MLOCK" },                   { RTS_CAP_PI_MUTEX, "RTS_CAP_PI_MUTEX" },
    { RTS_CAP_SOFT_IRQ, "RTS_CAP_SOFT_IRQ" },             { RTS_CAP_CYCLE_COUNTER, "RTS_CAP_CYCLE_COUNTER" },
    { RTS_CAP_SYSINFO, "RTS_CAP_SYSINFO" },               { RTS_CAP_TIMER_IRQ, "RTS_CAP_TIMER_IRQ" },
    { RTS_CAP_FILES, "RTS_CAP_FILES" },                   { RTS_CAP_PROCESSES, "RTS_CAP_PROCESSES" },
    { RTS_CAP_TICKER, "RTS_CAP_TICKER" },
};

static int skipped;

/* The capabilities the checks may rely on: the port's, masked by
 * RTSCOPE_TEST_CAPS when set. */
static unsigned usable_caps(void)
{
    const char *mask = getenv("RTSCOPE_TEST_CAPS");
    return rts_port_caps() & (mask ? (unsigned)strtoul(mask, NULL, 16) : ~0u);
}

/* Whether the checks called what can run: true when every capability in
 * caps is usable, else false after a line saying which are missing. */
static bool have(unsigned caps, const char *what)
{
    unsigned missing = caps & ~usable_caps();
    if (!missing)
        return true;
    printf("test_port: %s: skipped:", what);
    for (size_t i = 0; i < sizeof cap_names / sizeof cap_names[0]; i++)
        if (missing & cap_names[i].cap)
            printf(" %s", cap_names[i].name);
    printf(" missing\n");
    skipped++;
    return false;
}

/* A line for a check skipped for want of something else than a capability. */
static void skip(const char *what, const char *why)
{
    printf("test_port: %s: skipped: %s\n", what, why);
    skipped++;
}

static void test_semaphore(void)
{
    rts_sem *s;
    CHECK(rts_sem_create(&s, 2, 1) == RTS_EINVAL, "initial above max refused");
    CHECK(rts_sem_create(&s, 1, 1) == RTS_OK, "binary semaphore");
    CHECK(rts_sem_give(s) == RTS_EAGAIN, "give beyond max refused");
    CHECK(rts_sem_take(s, 0) == RTS_OK, "take a token without waiting");
    CHECK(rts_sem_take(s, 0) == RTS_EAGAIN, "empty: would block");
    uint64_t t0 = rts_time_ns();
    CHECK(rts_sem_take(s, 20 * MS) == RTS_ETIMEDOUT, "bounded wait times out");
    CHECK(rts_time_ns() - t0 >= 20 * MS, "not before the timeout");
    rts_sem_destroy(s);
    CHECK(rts_sem_create(&s, 0, 3) == RTS_OK, "counting semaphore");
    for (int i = 0; i < 3; i++)
        rts_sem_give(s);
    CHECK(rts_sem_give(s) == RTS_EAGAIN, "count limited to max");
    int taken = 0;
    while (rts_sem_take(s, 0) == RTS_OK)
        taken++;
    CHECK(taken == 3, "three tokens, got %d", taken);
    rts_sem_destroy(s);
}

typedef struct {
    rts_sem *go;
    rts_queue *q;
    _Atomic int step;
    int order[4];
    _Atomic int norder;
} shared;

static void waiter(void *p)
{
    shared *sh = p;
    /* Resumed before it suspends: the resume must not be lost. */
    while (atomic_load(&sh->step) < 1)
        rts_sleep_ns(MS);
    rts_thread_suspend_self();
    sh->order[atomic_fetch_add(&sh->norder, 1)] = 1;
    rts_thread_suspend_self(); /* resumed later by main */
    sh->order[atomic_fetch_add(&sh->norder, 1)] = 3;
}

static void test_suspend_resume(void)
{
    shared sh;
    memset(&sh, 0, sizeof sh);
    rts_thread_attr attr = { .name = "waiter", .policy = RTS_POLICY_OTHER, .cpu = -1 };
    rts_thread *t;
    CHECK(rts_thread_create(&t, &attr, waiter, &sh) == RTS_OK, "thread created");
    rts_thread_resume(t); /* before the thread suspends */
    atomic_store(&sh.step, 1);
    while (atomic_load(&sh.norder) < 1)
        rts_sleep_ns(MS);
    rts_sleep_ns(20 * MS); /* the thread is suspended now, not running on */
    sh.order[atomic_fetch_add(&sh.norder, 1)] = 2;
    CHECK(atomic_load(&sh.norder) == 2, "suspended thread stayed suspended");
    rts_thread_resume(t);
    CHECK(rts_thread_join(t) == RTS_OK, "joined");
    CHECK(sh.order[0] == 1 && sh.order[1] == 2 && sh.order[2] == 3, "order %d %d %d", sh.order[0], sh.order[1],
          sh.order[2]);
    CHECK(rts_thread_suspend_self() == RTS_EINVAL, "a thread the port did not make cannot suspend");
}

static void test_queue(void)
{
    rts_queue *q;
    unsigned char msg[16], out[16];
    CHECK(rts_queue_create(&q, 16, 0) == RTS_EINVAL, "zero capacity refused");
    CHECK(rts_queue_create(&q, 16, 4) == RTS_OK, "queue");
    for (int i = 0; i < 4; i++) {
        memset(msg, i, sizeof msg);
        CHECK(rts_queue_send(q, msg, 0) == RTS_OK, "send %d", i);
    }
    CHECK(rts_queue_send(q, msg, 0) == RTS_EAGAIN, "full");
    CHECK(rts_queue_send(q, msg, 10 * MS) == RTS_ETIMEDOUT, "full, bounded wait");
    for (int i = 0; i < 4; i++) {
        unsigned char want[16];
        memset(want, i, sizeof want);
        CHECK(rts_queue_receive(q, out, 0) == RTS_OK && memcmp(out, want, 16) == 0, "FIFO order at %d", i);
    }
    CHECK(rts_queue_receive(q, out, 0) == RTS_EAGAIN, "empty");
    /* Wrap-around keeps order. */
    for (int round = 0; round < 10; round++) {
        memset(msg, 100 + round, sizeof msg);
        rts_queue_send(q, msg, 0);
        rts_queue_receive(q, out, 0);
        CHECK(out[0] == 100 + round && out[15] == 100 + round, "wrap round %d", round);
    }
    rts_queue_destroy(q);
}

static void test_pool(void)
{
    rts_pool *p;
    void *blocks[8], *extra;
    CHECK(rts_pool_create(&p, 128, 8) == RTS_OK, "pool");
    for (int i = 0; i < 8; i++)
        CHECK(rts_pool_alloc(p, &blocks[i]) == RTS_OK, "block %d", i);
    CHECK(rts_pool_alloc(p, &extra) == RTS_ENOMEM, "exhausted");
    for (int i = 0; i < 8; i++)
        for (int k = i + 1; k < 8; k++)
            CHECK(blocks[i] != blocks[k], "blocks %d and %d distinct", i, k);
    memset(blocks[3], 0xAB, 128); /* a block is really usable */
    CHECK(rts_pool_free(p, blocks[3]) == RTS_OK, "free");
    CHECK(rts_pool_alloc(p, &extra) == RTS_OK && extra == blocks[3], "freed block is reused");
    rts_pool_destroy(p);
}

static _Atomic int irq_count;
static rts_sem *irq_sem;

static void irq_handler(void *arg)
{
    (void)arg;
    atomic_fetch_add(&irq_count, 1);
    rts_sem_give(irq_sem);
}

static void test_soft_irq(void)
{
    if (!have(RTS_CAP_SOFT_IRQ, "software interrupt"))
        return;
    rts_sem_create(&irq_sem, 0, 1);
    CHECK(rts_soft_irq_register(irq_handler, NULL) == RTS_OK, "handler registered");
    CHECK(rts_soft_irq_raise() == RTS_OK, "raised");
    CHECK(atomic_load(&irq_count) == 1, "handler ran before raise returned");
    CHECK(rts_sem_take(irq_sem, 0) == RTS_OK, "handler gave the semaphore");
    rts_sem_destroy(irq_sem);
}

static void test_sleep_and_mutex(void)
{
    uint64_t target = rts_time_ns() + 5 * MS;
    rts_sleep_until_ns(target);
    CHECK(rts_time_ns() >= target, "absolute sleep never returns early");
    rts_mutex *m;
    CHECK(rts_mutex_create(&m, false) == RTS_OK, "mutex");
    CHECK(rts_mutex_lock(m) == RTS_OK && rts_mutex_unlock(m) == RTS_OK, "lock/unlock");
    rts_mutex_destroy(m);
    bool pi = rts_port_caps() & RTS_CAP_PI_MUTEX;
    rts_status st = rts_mutex_create(&m, true);
    CHECK(pi ? st == RTS_OK : st == RTS_ENOTSUP, "PI mutex matches the capability flag");
    if (st == RTS_OK)
        rts_mutex_destroy(m);
}

static _Atomic int seen_cpu = -2;
static void report_cpu(void *arg)
{
    (void)arg;
    atomic_store(&seen_cpu, rts_self_cpu());
}

static void test_affinity(void)
{
    int cpu = rts_cpu_count() - 1;
    rts_thread_attr attr = { .name = "pinned", .policy = RTS_POLICY_OTHER, .cpu = cpu };
    rts_thread *t;
    if (!have(RTS_CAP_AFFINITY, "affinity"))
        return;
    if (!rts_cpu_allowed(cpu)) {
        skip("affinity", "the last CPU is not available to this process");
        return;
    }
    CHECK(rts_thread_create(&t, &attr, report_cpu, NULL) == RTS_OK, "pinned thread");
    rts_thread_join(t);
    CHECK(atomic_load(&seen_cpu) == cpu, "ran on CPU %d, wanted %d", atomic_load(&seen_cpu), cpu);
    attr.cpu = 100000;
    CHECK(rts_thread_create(&t, &attr, report_cpu, NULL) == RTS_EINVAL, "unavailable CPU refused");
}

static void test_switch_count(void)
{
    long long before = rts_self_switches();
    if (before < 0) {
        skip("switch count", "the port does not count switches (-1)");
        return;
    }
    for (int i = 0; i < 10; i++)
        rts_sleep_ns(MS);
    /* A sleep whose timer has expired by the time the thread would block (it was preempted on
     * the way, as on a busy shared VM) does not switch: ask that most sleeps are counted. */
    long long counted = rts_self_switches() - before;
    CHECK(counted >= 5, "10 sleeps of 1 ms are at least 5 switches, counted %lld", counted);
}

/* Priority inversion on one CPU: low holds the mutex, high blocks on it,
 * then medium spins. With inheritance low runs boosted above medium and
 * high gets the mutex while medium still spins; without, high waits for
 * medium to finish. Every spin is bounded in time. */
typedef struct {
    rts_mutex *m;
    _Atomic int low_locked, high_trying, medium_created;
    _Atomic uint64_t high_got_ns, medium_end_ns;
} inversion;

/* Low holds the mutex until medium exists, not for a fixed time: a slow
 * thread creation (a busy VM) must not let low finish before medium could
 * preempt it. The bound only ends a scenario whose medium never came. */
#define LOW_HOLD_MAX_NS (5000 * MS)
#define MEDIUM_SPIN_NS (300 * MS)

static void spin_until(uint64_t t)
{
    while (rts_time_ns() < t)
        ;
}

/* Without inheritance medium preempts low the moment it is created, so low
 * sees medium_created only after medium ends; with it, low runs at high's
 * priority, sees the flag at once and hands the mutex over. */
static void inversion_low(void *p)
{
    inversion *v = p;
    rts_mutex_lock(v->m);
    atomic_store(&v->low_locked, 1);
    uint64_t give_up = rts_time_ns() + LOW_HOLD_MAX_NS;
    while (!atomic_load(&v->medium_created) && rts_time_ns() < give_up)
        ;
    rts_mutex_unlock(v->m);
}

static void inversion_high(void *p)
{
    inversion *v = p;
    atomic_store(&v->high_trying, 1);
    rts_mutex_lock(v->m);
    atomic_store(&v->high_got_ns, rts_time_ns());
    rts_mutex_unlock(v->m);
}

static void inversion_medium(void *p)
{
    inversion *v = p;
    spin_until(rts_time_ns() + MEDIUM_SPIN_NS);
    atomic_store(&v->medium_end_ns, rts_time_ns());
}

static void wait_flag(_Atomic int *flag)
{
    for (int i = 0; i < 2000 && !atomic_load(flag); i++)
        rts_sleep_ns(MS);
}

/* Returns 1 when high got the mutex before medium ended, 0 when after, -1
 * when the scenario could not be set up (no privilege). The three run on
 * the last CPU; with more than one, this thread starts them from another.
 * On one CPU (an RTOS) it runs above them instead, or the first to spin
 * would keep it from starting the next. */
#define ONE_CPU_STARTER_PRIORITY 40

static int priority_inversion(bool inherit)
{
    int cpu = rts_cpu_count() - 1;
    bool one_cpu = cpu == 0;
    if (!rts_cpu_allowed(cpu) || (one_cpu && rts_self_set_sched(RTS_POLICY_FIFO, ONE_CPU_STARTER_PRIORITY) != RTS_OK))
        return -1;
    inversion v;
    memset(&v, 0, sizeof v);
    if (rts_mutex_create(&v.m, inherit) != RTS_OK) {
        rts_self_set_sched(RTS_POLICY_OTHER, 0);
        return -1;
    }
    rts_thread_attr low = { .name = "low", .policy = RTS_POLICY_FIFO, .priority = 10, .cpu = cpu };
    rts_thread_attr medium = { .name = "medium", .policy = RTS_POLICY_FIFO, .priority = 20, .cpu = cpu };
    rts_thread_attr high = { .name = "high", .policy = RTS_POLICY_FIFO, .priority = 30, .cpu = cpu };
    rts_thread *tl, *tm, *th;
    if (rts_thread_create(&tl, &low, inversion_low, &v) != RTS_OK) {
        rts_mutex_destroy(v.m);
        rts_self_set_sched(RTS_POLICY_OTHER, 0);
        return -1;
    }
    wait_flag(&v.low_locked);
    bool high_made = rts_thread_create(&th, &high, inversion_high, &v) == RTS_OK;
    CHECK(high_made, "high-priority thread created");
    wait_flag(&v.high_trying);
    rts_sleep_ns(2 * MS); /* high is blocked on the mutex now */
    bool medium_made = rts_thread_create(&tm, &medium, inversion_medium, &v) == RTS_OK;
    atomic_store(&v.medium_created, 1);
    CHECK(medium_made, "medium-priority thread created");
    if (medium_made)
        rts_thread_join(tm);
    if (high_made)
        rts_thread_join(th);
    rts_thread_join(tl);
    rts_mutex_destroy(v.m);
    if (one_cpu)
        rts_self_set_sched(RTS_POLICY_OTHER, 0);
    return atomic_load(&v.high_got_ns) < atomic_load(&v.medium_end_ns);
}

static void test_priority_inheritance(void)
{
    if (!have(RTS_CAP_PI_MUTEX | RTS_CAP_PRIORITY_SCHED | RTS_CAP_AFFINITY, "priority inheritance"))
        return;
    int with = priority_inversion(true);
    if (with < 0) {
        skip("priority inheritance", "not observable: needs the privilege of a real-time policy");
        return;
    }
    CHECK(with == 1, "with inheritance the high thread got the mutex while the medium one still ran");
    CHECK(priority_inversion(false) == 0, "without inheritance the medium thread held the high one off");
}

/* The text of file path, at most size - 1 bytes ("" when it cannot be
 * read). The C library's stdio, not the port: an independent reader. */
static const char *read_back(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

static bool exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

#define SINK_DEST "rtscope-test-sink.json"

/* A document appears at its destination whole on commit, not before. */
static void test_sink_commit(void)
{
    char why[128], buf[64];
    rts_sink *s;
    remove(SINK_DEST);
    CHECK(rts_sink_open(&s, SINK_DEST, why, sizeof why) == RTS_OK, "sink opened: %s", why);
    CHECK(rts_sink_write(s, "{\"half\": ", 9) == RTS_OK, "first half written");
    CHECK(!exists(SINK_DEST), "nothing at the destination before commit");
    CHECK(rts_sink_write(s, "1}\n", 3) == RTS_OK, "second half written");
    CHECK(rts_sink_commit(s, why, sizeof why) == RTS_OK, "committed: %s", why);
    CHECK(strcmp(read_back(SINK_DEST, buf, sizeof buf), "{\"half\": 1}\n") == 0, "whole document: %s", buf);
}

/* An aborted document leaves the destination as it was; a committed one
 * replaces it. */
static void test_sink_abort_and_replace(void)
{
    char why[128], buf[64];
    rts_sink *s;
    CHECK(rts_sink_open(&s, SINK_DEST, why, sizeof why) == RTS_OK, "sink over an existing file");
    rts_sink_write(s, "broken", 6);
    rts_sink_abort(s);
    CHECK(strcmp(read_back(SINK_DEST, buf, sizeof buf), "{\"half\": 1}\n") == 0, "abort kept the old file: %s",
          buf);
    CHECK(rts_sink_open(&s, SINK_DEST, why, sizeof why) == RTS_OK, "sink again");
    rts_sink_write(s, "[]\n", 3);
    CHECK(rts_sink_commit(s, why, sizeof why) == RTS_OK, "committed over it");
    CHECK(strcmp(read_back(SINK_DEST, buf, sizeof buf), "[]\n") == 0, "replaced: %s", buf);
    remove(SINK_DEST);
}

/* A destination that cannot be written is refused at open, with a reason. */
static void test_sink_refused(void)
{
    char why[128] = "";
    rts_sink *s = (rts_sink *)&s;
    CHECK(rts_sink_open(&s, "no-such-directory/x.json", why, sizeof why) != RTS_OK, "missing directory refused");
    CHECK(s == NULL && why[0] != '\0', "no sink, and a reason: %s", why);
}

static void test_sinks(void)
{
    if (!have(RTS_CAP_FILES, "sink files"))
        return;
    test_sink_commit();
    test_sink_abort_and_replace();
    test_sink_refused();
}

/* ------------------------------------------------ timer interrupt */

typedef struct {
    uint64_t first_ns, period_ns;
    _Atomic int expiries;
    _Atomic int wrong_plan, early;
} timer_seen;

static void on_timer(void *arg, uint64_t planned_ns, uint64_t entered_ns)
{
    timer_seen *t = arg;
    if ((planned_ns - t->first_ns) % t->period_ns != 0)
        atomic_fetch_add(&t->wrong_plan, 1);
    if (entered_ns < planned_ns)
        atomic_fetch_add(&t->early, 1);
    atomic_fetch_add(&t->expiries, 1);
}

/* Expiries of a 2 ms timer arrive on their grid, never early, and stop.
 * The sleep may last longer than asked (a tick-based sleep on a busy
 * simulator): the expiries are bounded by the time it really took. */
static void test_timer_irq(void)
{
    if (!have(RTS_CAP_TIMER_IRQ, "timer interrupt"))
        return;
    timer_seen t = { .first_ns = rts_time_ns() + 2 * MS, .period_ns = 2 * MS };
    CHECK(rts_timer_irq_start(t.first_ns, t.period_ns, on_timer, &t) == RTS_OK, "timer started");
    rts_sleep_until_ns(t.first_ns + 20 * MS + MS); /* the handler runs on this thread, from its sleep */
    uint64_t missed = UINT64_MAX;
    CHECK(rts_timer_irq_stop(&missed) == RTS_OK, "timer stopped");
    uint64_t due = (rts_time_ns() - t.first_ns) / t.period_ns + 1;
    int seen = atomic_load(&t.expiries);
    CHECK(seen >= 1 && (uint64_t)seen + missed <= due, "%d expiries and %llu missed of %llu due", seen,
          (unsigned long long)missed, (unsigned long long)due);
    CHECK(atomic_load(&t.wrong_plan) == 0 && atomic_load(&t.early) == 0, "planned on the grid, entered after it");
    rts_sleep_ns(10 * MS);
    CHECK(atomic_load(&t.expiries) == seen, "no expiry after the stop");
}

/* ------------------------------------------------ the rest of the flags */

/* A cycle counter the port calls invariant counts on across a sleep. */
static void test_cycle_counter(void)
{
    if (!have(RTS_CAP_CYCLE_COUNTER, "cycle counter"))
        return;
    uint64_t c0 = rts_cycles();
    rts_sleep_ns(MS);
    CHECK(rts_cycles() > c0, "the cycle counter advanced over 1 ms");
}

static void test_sysinfo(void)
{
    if (!have(RTS_CAP_SYSINFO, "system information"))
        return;
    rts_sysinfo info;
    rts_sysinfo_read(&info);
    CHECK(info.os[0] && info.arch[0] && info.kernel_release[0], "os, arch and kernel named: %s %s %s", info.os,
          info.arch, info.kernel_release);
    CHECK(info.cpu_count >= 1 && info.cpu_count == rts_cpu_count(), "%d CPUs, rts_cpu_count %d", info.cpu_count,
          rts_cpu_count());
}

/* A port with priority scheduling grants a real-time policy or refuses it
 * for privilege; it never calls it unsupported. */
static void test_priority_sched(void)
{
    if (!have(RTS_CAP_PRIORITY_SCHED, "priority scheduling"))
        return;
    rts_status st = rts_self_set_sched(RTS_POLICY_FIFO, 10);
    CHECK(st == RTS_OK || st == RTS_EPERM, "FIFO granted or refused for privilege: %s", rts_status_str(st));
    CHECK(rts_self_set_sched(RTS_POLICY_OTHER, 0) == RTS_OK, "back to the normal policy");
}

/* A library that is not there is refused with the loader's reason, on
 * every port (one without libraries refuses every name). */
static void test_library_missing(void)
{
    char why[256] = "";
    rts_library *lib = (rts_library *)&why;
    rts_status st = rts_library_open(&lib, "librtscope-no-such-library.so", why, sizeof why);
    CHECK(st != RTS_OK && !lib && strstr(why, "librtscope-no-such-library.so"), "refused: %s (%s)",
          rts_status_str(st), why);
}

/* Last: it locks the memory of this test process for its remaining life.
 * Where memory never pages, the setting does not exist: "not supported". */
static void test_mlock(void)
{
    if (!(rts_port_caps() & RTS_CAP_MLOCK)) {
        rts_status st = rts_mem_lock_all();
        CHECK(st == RTS_ENOTSUP, "no memory lock: not supported, not %s", rts_status_str(st));
        return;
    }
    if (!have(RTS_CAP_MLOCK, "memory lock"))
        return;
    rts_status st = rts_mem_lock_all();
    CHECK(st == RTS_OK || st == RTS_EPERM || st == RTS_ENOMEM, "locked, or refused for privilege or memory: %s",
          rts_status_str(st));
}

/* ------------------------------------------------------------ processes */

/* This test program run as a child: "report-cpu" prints the CPU it runs on. */
#define CHILD_REPORT_CPU "report-cpu"

/* Start argv (with env) on cpu; NULL after a failed CHECK. */
static rts_proc *start(const char *const *argv, const char *const *env, int cpu)
{
    char why[160] = "";
    rts_proc *p = NULL;
    rts_proc_attr attr = { .argv = argv, .env = env, .cpu = cpu };
    CHECK(rts_proc_spawn(&p, &attr, why, sizeof why) == RTS_OK && p, "%s started: %s", argv[0], why);
    return p;
}

/* Its exit status, its extra environment and its last line of output come back. */
static void test_proc_output(void)
{
    const char *const argv[] = { "sh", "-c", "printf 'one\\n%s\\n' \"$RTSCOPE_TEST_X\"; exit 3", NULL };
    const char *const env[] = { "RTSCOPE_TEST_X=toggles 3", NULL };
    rts_proc *p = start(argv, env, -1);
    if (!p)
        return;
    int status = -1;
    CHECK(rts_proc_wait(p, RTS_FOREVER, &status) == RTS_OK && status == 3, "exit status 3, got %d", status);
    CHECK(strcmp(rts_proc_last_line(p), "toggles 3") == 0, "last line '%s'", rts_proc_last_line(p));
    rts_proc_release(p);
    const char *const unterminated[] = { "sh", "-c", "printf 'a\\nlast'", NULL };
    p = start(unterminated, NULL, -1);
    if (!p)
        return;
    rts_proc_wait(p, RTS_FOREVER, &status);
    CHECK(strcmp(rts_proc_last_line(p), "last") == 0, "unterminated last line '%s'", rts_proc_last_line(p));
    rts_proc_release(p);
}

/* A program that cannot run is refused at the start, with a reason. */
static void test_proc_missing(void)
{
    const char *const argv[] = { "rtscope-no-such-program", NULL };
    char why[160] = "";
    rts_proc *p = (rts_proc *)&p;
    rts_proc_attr attr = { .argv = argv, .cpu = -1 };
    CHECK(rts_proc_spawn(&p, &attr, why, sizeof why) != RTS_OK, "a missing program refused");
    CHECK(p == NULL && strstr(why, "rtscope-no-such-program"), "no process, and a reason naming it: %s", why);
    CHECK(!rts_proc_findable("rtscope-no-such-program") && rts_proc_findable("sh"), "sh found, the missing not");
    const char *const sh[] = { "sh", "-c", "exit 0", NULL };
    attr = (rts_proc_attr){ .argv = sh, .cpu = 100000 };
    CHECK(rts_proc_spawn(&p, &attr, why, sizeof why) == RTS_EINVAL && p == NULL, "an unavailable CPU refused: %s",
          why);
}

/* A bounded wait times out on a running process; asked to end, it ends
 * (SIGTERM: 128 + 15); one that ignores the request ends when forced. */
static void test_proc_stop(void)
{
    const char *const sleeper[] = { "sleep", "30", NULL };
    rts_proc *p = start(sleeper, NULL, -1);
    if (!p)
        return;
    int status = -1;
    CHECK(rts_proc_wait(p, 20 * MS, &status) == RTS_ETIMEDOUT, "still running after 20 ms");
    CHECK(rts_proc_signal(p, false) == RTS_OK, "asked to end");
    CHECK(rts_proc_wait(p, 2000 * MS, &status) == RTS_OK && status == 143, "ended by the request: %d", status);
    CHECK(rts_proc_signal(p, false) == RTS_OK, "asking an ended process is no error");
    rts_proc_release(p);
    const char *const stubborn[] = { "sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.01; done", NULL };
    p = start(stubborn, NULL, -1);
    if (!p)
        return;
    for (int i = 0; i < 200 && strcmp(rts_proc_last_line(p), "ready") != 0; i++)
        rts_proc_wait(p, 10 * MS, NULL);
    rts_proc_signal(p, false);
    CHECK(rts_proc_wait(p, 100 * MS, &status) == RTS_ETIMEDOUT, "a process ignoring the request runs on");
    CHECK(rts_proc_signal(p, true) == RTS_OK, "forced");
    CHECK(rts_proc_wait(p, 2000 * MS, &status) == RTS_OK && status == 137, "killed (128 + 9): %d", status);
    rts_proc_release(p);
    p = start(sleeper, NULL, -1);
    uint64_t t0 = rts_time_ns();
    rts_proc_release(p);
    CHECK(rts_time_ns() - t0 < 2000 * MS, "releasing a running process ends it at once");
}

/* The process runs on the CPU it was given (this program, run again). */
static void test_proc_cpu(void)
{
    char self[4096];
    int cpu = rts_cpu_count() - 1;
    if (!have(RTS_CAP_AFFINITY, "process on a CPU"))
        return;
    if (rts_proc_self_path(self, sizeof self) != RTS_OK || !rts_cpu_allowed(cpu)) {
        skip("process on a CPU", "no path to this program, or the last CPU is not available");
        return;
    }
    const char *const argv[] = { self, CHILD_REPORT_CPU, NULL };
    rts_proc *p = start(argv, NULL, cpu);
    if (!p)
        return;
    char want[32];
    snprintf(want, sizeof want, "cpu %d", cpu);
    rts_proc_wait(p, RTS_FOREVER, NULL);
    CHECK(strcmp(rts_proc_last_line(p), want) == 0, "'%s', wanted '%s'", rts_proc_last_line(p), want);
    rts_proc_release(p);
}

static void test_processes(void)
{
    if (!have(RTS_CAP_PROCESSES, "processes"))
        return;
    test_proc_output();
    test_proc_missing();
    test_proc_stop();
    test_proc_cpu();
}

/* ------------------------------------------------------------------ pins */

/* What one side writes, through the file or the mapping, the other sees;
 * the file goes with its creator's close only. */
static void test_pins(void)
{
    char why[160] = "", buf[8];
    rts_pin *made = NULL, *opened = NULL;
    if (!have(RTS_CAP_FILES, "pins"))
        return;
    CHECK(rts_pin_create(&made, why, sizeof why) == RTS_OK && made, "pin created: %s", why);
    if (!made)
        return;
    const char *path = rts_pin_path(made);
    CHECK(*rts_pin_byte(made) == '0' && read_back(path, buf, sizeof buf)[0] == '0', "a new pin is low");
    CHECK(rts_pin_open(&opened, path, why, sizeof why) == RTS_OK && opened, "pin opened: %s", why);
    if (opened) {
        CHECK(rts_pin_write(opened, '1') == RTS_OK, "written through the file");
        CHECK(*rts_pin_byte(made) == '1', "seen in the other mapping");
        *rts_pin_byte(opened) = '0';
        CHECK(*rts_pin_byte(made) == '0' && read_back(path, buf, sizeof buf)[0] == '0', "a store is seen by both");
        rts_pin_close(opened);
        CHECK(exists(path), "the file stays when an opener closes");
    }
#ifdef __linux__ /* where the POSIX port seals the pin: elsewhere a truncation would fault the reads below */
    CHECK(fopen(path, "wb") == NULL, "a truncating open is refused");
    CHECK(*rts_pin_byte(made) == '0', "the pin still reads");
#endif
    char kept[256];
    snprintf(kept, sizeof kept, "%s", path);
    rts_pin_close(made);
    CHECK(!exists(kept), "the creator's close removed %s", kept);
    CHECK(rts_pin_open(&opened, "no-such-directory/pin", why, sizeof why) != RTS_OK && !opened && why[0],
          "a missing pin refused, with a reason: %s", why);
}

/* ---------------------------------------------------------------- ticker */

/* Expiries of a 2 ms ticker come on their grid, never early. */
static void test_ticker(void)
{
    if (!have(RTS_CAP_TICKER, "ticker"))
        return;
    rts_ticker *t = NULL;
    uint64_t first = rts_time_ns() + 2 * MS, seen = 0;
    CHECK(rts_ticker_start(&t, first, 2 * MS) == RTS_OK && t, "ticker started");
    if (!t)
        return;
    for (int i = 0; i < 5; i++) {
        uint64_t n = 0;
        CHECK(rts_ticker_wait(t, &n) == RTS_OK && n >= 1, "wait %d: %llu expiries", i, (unsigned long long)n);
        seen += n;
        CHECK(rts_time_ns() >= first + (seen - 1) * 2 * MS, "expiry %llu not early", (unsigned long long)seen);
    }
    rts_ticker_stop(t);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], CHILD_REPORT_CPU) == 0) {
        printf("cpu %d\n", rts_self_cpu());
        return 0;
    }
    test_semaphore();
    test_suspend_resume();
    test_queue();
    test_pool();
    test_library_missing();
    test_soft_irq();
    test_sleep_and_mutex();
    test_affinity();
    test_switch_count();
    test_priority_inheritance();
    test_sinks();
    test_timer_irq();
    test_processes();
    test_pins();
    test_ticker();
    test_cycle_counter();
    test_sysinfo();
    test_priority_sched();
    test_mlock();
    if (skipped)
        printf("test_port: %d skipped\n", skipped);
    return check_report("test_port");
}
