/*
 * wave.square — how precisely a program toggles a pin (docs/wave.md).
 *
 * A generator process (a script run by its real interpreter, the probe
 * itself as `rtscope-probe generate c-…`, or the user's own program) toggles
 * a pin — the first byte of a shared one-page file — every half-period, on
 * a CPU of its own. An observer thread on another CPU, at the granted
 * priority, polls the pin as an oscilloscope would and timestamps each
 * change; the edge analysis (rtscope/edges.h) turns the edges into judged
 * periods. The observer times its own loop on every iteration: the median
 * gap is its resolution, a gap over the blind limit is a blind interval
 * (descheduled, RT-throttled, a VM pause) whose periods are not judged.
 *
 * On a board (pin=gpio) the generator drives a GPIO output line instead,
 * and the observer takes the edges of an input line wired to it from the
 * kernel's GPIO character device: each stamped by the kernel when it took
 * the edge's interrupt, so the observer is never blind by being
 * descheduled; it is blind only where the kernel dropped edges (their
 * sequence numbers jump), between the edges around the drop.
 *
 * The window of the run's --duration starts at the first edge the observer
 * sees, not at the bench's start: an interpreter's start-up, which a loaded
 * machine stretches to seconds, is not part of the wave. The start-up (the
 * observer's calibration, the generator's start to its first edge) is
 * bounded by startup_s and recorded apart, as the bench's startup_ns.
 * The run ends when the generator has made its periods (it exits) or at the
 * planned end (the window's end, or the user's stop): whichever comes
 * first; the generator is then asked to stop (SIGTERM) and killed with its
 * process group if it does not (SIGKILL). A generator that dies, hangs,
 * never toggles or must be killed fails the bench with the reason; nothing
 * is left running (the port kills it also when the probe itself ends).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "wave_metrics.h"

#define MS UINT64_C(1000000)
#define CALIBRATION_NS (20 * MS)          /* the observer's first look at its own resolution */
#define HANG_MIN_NS (1000 * MS)           /* no edge for max(10 periods, this): hung */
#define STOP_GRACE_NS (1000 * MS)         /* SIGTERM to SIGKILL (plus a half-period) */
#define WATCH_SLICE_NS (20 * MS)          /* how often the generator is looked at */
#define MIN_PERIODS_OF_RESOLUTION 4       /* a period below this many resolutions is refused */
#define MAX_ARGS 16

/* ------------------------------------------------------------ models */

typedef enum { RUN_SCRIPT, RUN_SELF, RUN_CUSTOM, RUN_KMOD } model_kind;

typedef struct {
    const char *name;
    model_kind kind;
    const char *interpreter;  /* scripts: the program that runs them; kernel modules: the loader */
    const char *script;       /* scripts: the file in the scripts directory; kernel modules: the mode */
    const char *package;      /* scripts: the Debian package of the interpreter */
    unsigned needs_caps;      /* beyond processes and files */
    bool drives_gpio;         /* can drive a GPIO line (pin=gpio) */
} wave_model;

/* The scripts write a file (the shared pin); c-mmap stores to a mapped page,
 * which a GPIO line has no portable one of. The other C models write a
 * line through the GPIO character device, the custom program its own way.
 * The kernel generators are a module (probe/kmod/rtscope_wave.c) that
 * rtscope-kmod-wave loads with the pin's path: in rtscope's QEMU guests,
 * which get the module built for their kernel. */
static const wave_model models[] = {
    { "bash", RUN_SCRIPT, "bash", "wave.sh", "bash", 0, false },
    { "python", RUN_SCRIPT, "python3", "wave.py", "python3", 0, false },
    { "node", RUN_SCRIPT, "node", "wave.js", "nodejs", 0, false },
    { "c-file", RUN_SELF, NULL, NULL, NULL, 0, true },
    { "c-mmap", RUN_SELF, NULL, NULL, NULL, 0, false },
    { "c-rt", RUN_SELF, NULL, NULL, NULL, RTS_CAP_PRIORITY_SCHED | RTS_CAP_MLOCK, true },
    { "c-busy", RUN_SELF, NULL, NULL, NULL, 0, true },
    { "c-timerfd", RUN_SELF, NULL, NULL, NULL, RTS_CAP_TICKER, true },
    { "custom", RUN_CUSTOM, NULL, NULL, NULL, 0, true },
    { "kmod-hrtimer", RUN_KMOD, "rtscope-kmod-wave", "hrtimer", NULL, 0, false },
    { "kmod-kthread", RUN_KMOD, "rtscope-kmod-wave", "kthread", NULL, 0, false },
};

static const wave_model *find_model(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

/* --------------------------------------------------------- the observer */

typedef struct {
    rts_ctx *ctx;
    volatile unsigned char *pin;  /* pin=shared: the byte polled */
    rts_gpio *line;           /* pin=gpio: the input line whose edges the kernel stamps */
    int line_level;           /* pin=gpio: its level when requested */
    bool line_failed;         /* pin=gpio: its edges could not be read */
    uint64_t half_ns;
    uint64_t blind_limit_ns;  /* set by the observer after calibrating */
    uint64_t blind_from_ns;   /* blind_us as given */
    rts_edges edges;
    rts_hist *gaps;           /* every loop gap, ns: the median is the resolution */
    uint64_t calibrated_ns;   /* the resolution before the run, published by calibrated */
    uint64_t episodes;        /* blind intervals, overlapping ones counted once */
    uint64_t first_ns, last_ns;
    wave_metrics metrics;     /* the on_period of edges */
    bench_counter calibrated, edges_seen, quit;
    bench_counter started;    /* set once edges.counts.first_ns holds the first edge */
    rts_thread *thread;
} observer;

/* The observer may not have looked from from_ns until its look stamped
 * to_ns, included: an edge that look finds happened somewhere in between,
 * so the period it starts overlaps the interval too (hence to_ns + 1). */
static void blind(observer *o, uint64_t from_ns, uint64_t to_ns)
{
    if (from_ns >= o->edges.blind_until_ns)
        o->episodes++;
    rts_edges_blind(&o->edges, from_ns, to_ns + 1);
}

/* pin=gpio: edges the kernel dropped between from_ns and to_ns. */
static void missing(observer *o, uint64_t from_ns, uint64_t to_ns)
{
    if (from_ns >= o->edges.blind_until_ns)
        o->episodes++;
    rts_edges_missing(&o->edges, from_ns, to_ns + 1);
}

/* Edges the blind intervals can have hidden from the observer: one per
 * half-period of blind time, and an edge at either end of each interval. */
static uint64_t hideable_edges(const observer *o)
{
    return o->edges.counts.blind_ns / o->half_ns + 2 * o->episodes;
}

/* Publish the first edge's stamp, for the supervisor to start the window
 * at: edges.counts.first_ns, written once, before this store. */
static void first_edge(observer *o)
{
    if (o->edges.counts.edges_seen == 1 && !atomic_load_explicit(&o->started, memory_order_relaxed))
        atomic_store_explicit(&o->started, 1, memory_order_release);
}

/* Poll for CALIBRATION_NS with no blind limit yet, then publish the median
 * gap and the blind limit it gives: max(blind_us, 10 resolutions). */
static uint64_t calibrate(observer *o)
{
    uint64_t start = rts_time_ns(), prev = start, now;
    while ((now = rts_time_ns()) - start < CALIBRATION_NS) {
        (void)*o->pin;
        rts_hist_add(o->gaps, now - prev);
        prev = now;
    }
    uint64_t res = (uint64_t)rts_hist_quantile(o->gaps, 0.5);
    o->calibrated_ns = res;
    o->blind_limit_ns = o->blind_from_ns > 10 * res ? o->blind_from_ns : 10 * res;
    atomic_store_explicit(&o->calibrated, 1, memory_order_release);
    return now;
}

/* Each look at the pin lies between the clock reads around it, so an edge
 * the look stamped now finds happened after the look before the previous
 * stamp: within the last two loop gaps. Those two gaps are what the
 * blind limit is held to. */
static void observe(void *arg)
{
    observer *o = arg;
    uint64_t prev = calibrate(o), before_prev = prev;
    int level = *o->pin == '1';
    o->first_ns = prev;
    for (bool last = false; !last;) {
        /* 1. One more look after the supervisor said quit: the generator
         *    has ended by then, so its last edge is seen. */
        last = atomic_load_explicit(&o->quit, memory_order_acquire) != 0;
        /* 2. Look at the pin, then read the clock. */
        int now_level = *o->pin == '1';
        uint64_t now = rts_time_ns();
        /* 3. The loop gap is a sample of the resolution; two gaps over the
         *    blind limit are a blind interval. */
        rts_hist_add(o->gaps, now - prev);
        if (now - before_prev > o->blind_limit_ns)
            blind(o, before_prev, now);
        /* 4. A change of level is an edge, stamped now. */
        if (now_level != level) {
            rts_edges_edge(&o->edges, now, now_level);
            bench_count(&o->edges_seen);
            first_edge(o);
            level = now_level;
        }
        before_prev = prev;
        prev = now;
    }
    o->last_ns = prev;
}

/* pin=gpio: the kernel stamps each edge when it takes it, whenever this
 * thread runs; the resolution is the clock's. Edges the kernel dropped
 * (its buffer full because this thread did not read) leave the time from
 * the edge before them to the edge after blind. */
static void observe_gpio(void *arg)
{
    observer *o = arg;
    uint64_t clock_res = rts_time_resolution_ns();
    o->calibrated_ns = clock_res ? clock_res : 1;
    o->first_ns = rts_time_ns();
    atomic_store_explicit(&o->calibrated, 1, memory_order_release);
    uint64_t prev = o->first_ns;
    rts_gpio_edge e;
    for (bool last = false; !last && !o->line_failed;) {
        last = atomic_load_explicit(&o->quit, memory_order_acquire) != 0;
        rts_status st;
        while ((st = rts_gpio_next_edge(o->line, last ? 0 : WATCH_SLICE_NS, &e)) == RTS_OK) {
            if (e.lost)
                missing(o, prev, e.at_ns);
            rts_edges_edge(&o->edges, e.at_ns, e.level);
            bench_count(&o->edges_seen);
            first_edge(o);
            prev = e.at_ns;
        }
        o->line_failed = st != RTS_ETIMEDOUT;
    }
    o->last_ns = rts_time_ns();
}

/* The observer's resolution over the run. */
static uint64_t resolution(const observer *o)
{
    return o->line ? o->calibrated_ns : (uint64_t)rts_hist_quantile(o->gaps, 0.5);
}

/* ------------------------------------------------------ the generator */

/* What starts the generator: its argv and extra environment, kept here. */
typedef struct {
    const char *argv[MAX_ARGS + 1];
    const char *env[6];
    char self[512], script[512], command[RTS_PARAM_TEXT_MAX];
    char pin_env[300], line_env[48], half_env[48], periods_env[48], prio_env[32];
} gen_plan;

/* The scripts directory: the parameter, else probe/wave beside the probe's
 * build directory (probe/build/rtscope-probe -> probe/wave). */
static void script_path(rts_ctx *ctx, gen_plan *g, const char *file)
{
    const char *dir = rts_ctx_param_text(ctx, "scripts");
    if (dir && dir[0]) {
        snprintf(g->script, sizeof g->script, "%s/%s", dir, file);
        return;
    }
    char *slash = strrchr(g->self, '/');
    int len = slash ? (int)(slash - g->self) : 1;
    snprintf(g->script, sizeof g->script, "%.*s/../wave/%s", len, slash ? g->self : ".", file);
}

/* The custom command split on spaces into argv: a program and plain
 * arguments, no shell (no quoting, no expansion): what runs is what was
 * written. False when it names nothing or has too many words. */
static bool split_command(gen_plan *g, const char *command)
{
    snprintf(g->command, sizeof g->command, "%s", command);
    int n = 0;
    for (char *c = g->command; *c; c++) {
        if (*c == ' ')
            *c = '\0';
        else if (c == g->command || c[-1] == '\0') {
            if (n == MAX_ARGS)
                return false;
            g->argv[n++] = c;
        }
    }
    g->argv[n] = NULL;
    return n > 0;
}

/* The argv of model m into g; false after rts_ctx_fail with one line. */
static bool plan_argv(rts_ctx *ctx, gen_plan *g, const wave_model *m)
{
    if (m->kind != RUN_CUSTOM && rts_proc_self_path(g->self, sizeof g->self) != RTS_OK) {
        rts_ctx_fail(ctx, "model %s: cannot tell where the probe's binary is", m->name);
        return false;
    }
    if (m->kind == RUN_SELF) {
        memcpy(g->argv, (const char *[]){ g->self, "generate", m->name, NULL }, 4 * sizeof g->argv[0]);
        return true;
    }
    if (m->kind == RUN_CUSTOM) {
        const char *command = rts_ctx_param_text(ctx, "command");
        if (!split_command(g, command ? command : "")) {
            rts_ctx_fail(ctx, "model custom: command must name a program and at most %d words in all", MAX_ARGS);
            return false;
        }
        return true;
    }
    if (m->kind == RUN_KMOD) {
        memcpy(g->argv, (const char *[]){ m->interpreter, m->script, NULL }, 3 * sizeof g->argv[0]);
        return true;
    }
    script_path(ctx, g, m->script);
    memcpy(g->argv, (const char *[]){ m->interpreter, g->script, NULL }, 3 * sizeof g->argv[0]);
    return true;
}

/* Whether the script at path can be read (its interpreter runs it: it
 * need not be executable); why if not. */
static bool script_readable(const char *path, char *why, size_t whysize)
{
    rts_file *f = NULL;
    rts_status st = rts_file_open(&f, path, why, whysize);
    rts_file_close(f);
    return st == RTS_OK;
}

/* pin=gpio with a model that cannot drive a line, or one line for both
 * ends: bad input, refused before the run. */
static bool params_ok(const rts_ctx *ctx, char *why, size_t whysize)
{
    const wave_model *m = find_model(rts_ctx_param_text(ctx, "model"));
    unsigned in = (unsigned)rts_ctx_param(ctx, "in_line"), out = (unsigned)rts_ctx_param(ctx, "out_line");
    if (strcmp(rts_ctx_param_text(ctx, "pin"), "gpio") != 0)
        return true;
    if (!m->drives_gpio)
        snprintf(why, whysize, "model %s cannot drive a GPIO line (%s); with pin=gpio use c-file, c-rt, c-busy, "
                               "c-timerfd or custom", m->name,
                 m->kind == RUN_SCRIPT ? "it writes a file: the shared pin"
                                       : "it stores to a mapped page, which a GPIO line has no portable one of");
    else if (in == out)
        snprintf(why, whysize, "pin gpio: in_line and out_line are both %u; the observer's input is another line, "
                               "wired to the output", in);
    else
        return true;
    return false;
}

/* What the target lacks for the model and the pin, before anything starts
 * (the bench is then skipped): a capability, the model's interpreter, a
 * GPIO chip. What the user names (a script, a program) is checked by
 * runnable: a wrong name fails. */
static bool can_run(const rts_ctx *ctx, char *why, size_t whysize)
{
    const wave_model *m = find_model(rts_ctx_param_text(ctx, "model"));
    unsigned missing = m->needs_caps & ~rts_port_caps();
    if (missing)
        snprintf(why, whysize, "model %s needs what this platform lacks (capabilities 0x%x)", m->name, missing);
    else if (m->kind == RUN_SCRIPT && !rts_proc_findable(m->interpreter))
        snprintf(why, whysize, "model %s: %s is not installed (Debian package %s)", m->name, m->interpreter,
                 m->package);
    else if (m->kind == RUN_KMOD && !rts_proc_findable(m->interpreter))
        snprintf(why, whysize, "model %s: no %s here: the kernel generators run in rtscope's QEMU guests "
                               "(--target qemu:…), which get the module built for their kernel", m->name,
                 m->interpreter);
    else if (strcmp(rts_ctx_param_text(ctx, "pin"), "gpio") != 0)
        return true;
    else if (!(rts_port_caps() & RTS_CAP_GPIO))
        snprintf(why, whysize, "pin gpio: this build of the probe has no GPIO lines (the GPIO character device of "
                               "Linux 5.10 and later); pin=shared works everywhere");
    else {
        rts_file *chip = NULL;
        char opened[RTS_MESSAGE_TEXT];
        rts_status st = rts_file_open(&chip, rts_ctx_param_text(ctx, "chip"), opened, sizeof opened);
        rts_file_close(chip);
        if (st == RTS_OK || st == RTS_EPERM) /* a chip not for this user: a privilege, the request fails */
            return true;
        snprintf(why, whysize, "pin gpio: %s (it needs a board's GPIO chip; pin=shared works everywhere)", opened);
    }
    return false;
}

/* Refuse what the user named wrong, before anything starts: one line each. */
static bool runnable(rts_ctx *ctx, const gen_plan *g, const wave_model *m)
{
    char why[RTS_MESSAGE_TEXT];
    if (m->kind == RUN_SCRIPT && !script_readable(g->script, why, sizeof why))
        rts_ctx_fail(ctx, "model %s: %s (the scripts parameter names their directory)", m->name, why);
    else if (m->kind == RUN_CUSTOM && !rts_proc_findable(g->argv[0]))
        rts_ctx_fail(ctx, "model custom: cannot find the program %s", g->argv[0]);
    else if (strcmp(m->name, "c-rt") == 0 && rts_ctx_thread_attr(ctx, NULL, -1, 0).policy == RTS_POLICY_OTHER)
        rts_ctx_fail(ctx, "model c-rt needs a real-time policy, and the run has none (no privilege, or "
                          "--policy other)");
    else
        return true;
    return false;
}

/* The generator interface's environment (docs/wave.md): the shared pin's
 * file, or (pin NULL) the GPIO chip and output line. */
static void plan_env(rts_ctx *ctx, gen_plan *g, const rts_pin *pin, uint64_t half_ns, uint64_t periods)
{
    rts_thread_attr granted = rts_ctx_thread_attr(ctx, NULL, -1, 0);
    int n = 0;
    if (pin) {
        snprintf(g->pin_env, sizeof g->pin_env, "RTSCOPE_PIN=%s", rts_pin_path(pin));
    } else {
        snprintf(g->pin_env, sizeof g->pin_env, "RTSCOPE_GPIO_CHIP=%s", rts_ctx_param_text(ctx, "chip"));
        snprintf(g->line_env, sizeof g->line_env, "RTSCOPE_GPIO_LINE=%.0f", rts_ctx_param(ctx, "out_line"));
        g->env[n++] = g->line_env;
    }
    snprintf(g->half_env, sizeof g->half_env, "RTSCOPE_HALF_PERIOD_NS=%llu", (unsigned long long)half_ns);
    snprintf(g->periods_env, sizeof g->periods_env, "RTSCOPE_PERIODS=%llu", (unsigned long long)periods);
    g->env[n++] = g->pin_env;
    g->env[n++] = g->half_env;
    g->env[n++] = g->periods_env;
    if (granted.policy != RTS_POLICY_OTHER) {
        snprintf(g->prio_env, sizeof g->prio_env, "RTSCOPE_PRIORITY=%d", granted.priority);
        g->env[n++] = g->prio_env;
    }
    g->env[n] = NULL;
}

/* ------------------------------------------------------------ the watch */

/* Watches the generator while the supervisor waits in rts_ctx_wait: stops
 * the bench when the generator ends, or hangs (no edge for too long). */
typedef struct {
    rts_ctx *ctx;
    rts_proc *proc;
    const observer *obs;
    uint64_t hang_ns;
    uint64_t startup_until_ns; /* no edge by then: the generator never toggled */
    bool ended, hung;
    int status;
    uint64_t quiet_ns;        /* hung: how long without an edge */
    rts_thread *thread;
} gen_watch;

static void watch(void *arg)
{
    gen_watch *w = arg;
    uint64_t seen = 0, since = rts_time_ns();
    while (!rts_ctx_stopping(w->ctx)) {
        if (rts_proc_wait(w->proc, WATCH_SLICE_NS, &w->status) == RTS_OK) {
            w->ended = true;
            break;
        }
        uint64_t edges = bench_read(&w->obs->edges_seen), now = rts_time_ns();
        if (edges != seen) {
            seen = edges;
            since = now;
        } else if (edges ? now - since > w->hang_ns : now > w->startup_until_ns) {
            w->hung = true;
            w->quiet_ns = now - since;
            break;
        }
    }
    rts_ctx_stop(w->ctx);
}

/* ------------------------------------------------------------ the run */

/* Everything one run holds, released by wave_release. */
typedef struct {
    rts_ctx *ctx;
    const wave_model *model;
    const char *model_name;
    int cpu, gen_cpu;
    uint64_t half_ns, periods;
    rts_pin *pin;
    observer obs;
    gen_plan plan;
    gen_watch watch;
    uint64_t startup_ns;      /* startup_s: the observer's and the generator's start, to the first edge */
    bool killed;              /* did not end within the grace of SIGTERM */
} wave_run;

/* The generator's CPU: the parameter, else the highest allowed one that is
 * not the observer's; -1 when there is none. */
static int generator_cpu(rts_ctx *ctx, int observer_cpu)
{
    int cpu = (int)rts_ctx_param(ctx, "gen_cpu");
    for (int c = rts_cpu_count() - 1; cpu < 0 && c >= 0; c--)
        if (c != observer_cpu && rts_cpu_allowed(c))
            cpu = c;
    rts_ctx_param_set(ctx, "gen_cpu", cpu);
    return cpu;
}

/* pin=gpio: the input line the observer watches, wired to the generator's
 * output line; false after rts_ctx_fail. */
static bool open_line(wave_run *w)
{
    rts_ctx *ctx = w->ctx;
    const char *chip = rts_ctx_param_text(ctx, "chip");
    unsigned in = (unsigned)rts_ctx_param(ctx, "in_line");
    char why[RTS_MESSAGE_TEXT];
    if (rts_gpio_input(&w->obs.line, chip, in, &w->obs.line_level, why, sizeof why) == RTS_OK)
        return true;
    rts_ctx_fail(ctx, "pin gpio: %s (it needs a board's GPIO chip with out_line wired to in_line; pin=shared works "
                      "everywhere)", why);
    return false;
}

/* Model, CPUs, the generator's plan and the pin; false after rts_ctx_fail. */
static bool prepare(wave_run *w)
{
    rts_ctx *ctx = w->ctx;
    char why[RTS_MESSAGE_TEXT];
    w->model_name = rts_ctx_param_text(ctx, "model");
    w->model = find_model(w->model_name ? w->model_name : "");
    if (!w->model) {
        rts_ctx_fail(ctx, "unknown model %s", w->model_name ? w->model_name : "(none)");
        return false;
    }
    if (!plan_argv(ctx, &w->plan, w->model) || !runnable(ctx, &w->plan, w->model))
        return false;
    w->cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    w->gen_cpu = generator_cpu(ctx, w->cpu);
    if (w->gen_cpu < 0 || w->gen_cpu == w->cpu || !rts_cpu_allowed(w->gen_cpu)) {
        rts_ctx_fail(ctx, "the generator needs a CPU of its own, not the observer's (CPU %d): gen_cpu %d", w->cpu,
                     w->gen_cpu);
        return false;
    }
    if (strcmp(rts_ctx_param_text(ctx, "pin"), "gpio") == 0) {
        if (!open_line(w))
            return false;
    } else if (rts_pin_create(&w->pin, why, sizeof why) != RTS_OK) {
        rts_ctx_fail(ctx, "%s", why);
        return false;
    }
    plan_env(ctx, &w->plan, w->pin, w->half_ns, w->periods);
    return true;
}

/* Wait for flag, set by another thread with release, until until_ns or a
 * stop; true once it is set. Sleeping between looks, not yielding: on a
 * loaded machine the thread being waited for needs the CPU. */
static bool await_flag(rts_ctx *ctx, const bench_counter *flag, uint64_t until_ns)
{
    while (!atomic_load_explicit(flag, memory_order_acquire)) {
        if (rts_time_ns() >= until_ns || rts_ctx_stopping(ctx) || rts_stop_requested())
            return false;
        rts_sleep_ns(MS);
    }
    return true;
}

/* Start the observer and wait for its resolution; refuse a period it
 * cannot resolve. False after rts_ctx_fail. */
static bool start_observer(wave_run *w)
{
    observer *o = &w->obs;
    rts_ctx *ctx = w->ctx;
    o->ctx = ctx;
    o->pin = w->pin ? rts_pin_byte(w->pin) : NULL;
    o->half_ns = w->half_ns;
    o->blind_from_ns = (uint64_t)(rts_ctx_param(ctx, "blind_us") * 1000.0);
    o->gaps = rts_heap_alloc(sizeof *o->gaps);
    if (!o->gaps) {
        rts_ctx_fail(ctx, "out of memory for the observer's loop gaps");
        return false;
    }
    rts_hist_init(o->gaps);
    rts_edges_init(&o->edges, o->metrics.nominal_ns, wave_metrics_add, &o->metrics);
    o->thread = rts_ctx_spawn(ctx, "wave-observer", w->cpu, 0, o->line ? observe_gpio : observe, o);
    if (!o->thread)
        return false;
    bool ready = await_flag(ctx, &o->calibrated, w->watch.startup_until_ns);
    if (!ready && (rts_ctx_stopping(ctx) || rts_stop_requested()))
        return false; /* the user's stop: the bench is interrupted, not failed */
    if (!ready)
        rts_ctx_fail(ctx, "the observer did not start looking within startup_s, %.1f s",
                     (double)w->startup_ns / 1e9);
    else if (o->metrics.nominal_ns < MIN_PERIODS_OF_RESOLUTION * o->calibrated_ns)
        rts_ctx_fail(ctx, "period %.3f us is below %d x the observer's resolution of %llu ns: it cannot resolve it",
                     (double)o->metrics.nominal_ns / 1e3, MIN_PERIODS_OF_RESOLUTION,
                     (unsigned long long)o->calibrated_ns);
    else
        return true;
    return false;
}

/* Start the generator and the watch over it; false after rts_ctx_fail. */
static bool start_generator(wave_run *w)
{
    char why[RTS_MESSAGE_TEXT];
    rts_proc_attr attr = { .argv = w->plan.argv, .env = w->plan.env, .cpu = w->gen_cpu };
    if (rts_proc_spawn(&w->watch.proc, &attr, why, sizeof why) != RTS_OK) {
        rts_ctx_fail(w->ctx, "%s", why);
        return false;
    }
    double ten_periods = 10.0 * 2.0 * (double)w->half_ns;
    w->watch.ctx = w->ctx;
    w->watch.obs = &w->obs;
    w->watch.hang_ns = ten_periods > HANG_MIN_NS ? (uint64_t)ten_periods : HANG_MIN_NS;
    rts_thread_attr attr_w = { .name = "wave-watch", .policy = RTS_POLICY_OTHER, .cpu = -1,
                               .stack_size = RTS_THREAD_STACK_BYTES };
    if (rts_thread_create(&w->watch.thread, &attr_w, watch, &w->watch) != RTS_OK) {
        rts_ctx_fail(w->ctx, "cannot start the thread watching the generator");
        return false;
    }
    return true;
}

/* The generator, if it still runs: asked to stop, then killed with its
 * group when it does not within the grace. */
static void stop_generator(wave_run *w)
{
    rts_proc *p = w->watch.proc;
    if (!p || w->watch.ended)
        return;
    rts_proc_signal(p, false);
    if (rts_proc_wait(p, STOP_GRACE_NS + w->half_ns, &w->watch.status) == RTS_OK)
        return;
    w->killed = true;
    rts_proc_signal(p, true);
    rts_proc_wait(p, RTS_FOREVER, &w->watch.status);
}

/* The generator's count from its last line "toggles N"; -1 without one. */
static long long generator_toggles(const rts_proc *p)
{
    unsigned long long n;
    char tail;
    const char *line = rts_proc_last_line(p);
    return sscanf(line, "toggles %llu%c", &n, &tail) == 1 ? (long long)n : -1;
}

/* Fail the bench when the generator misbehaved; true when it did not. */
static bool judge_generator(wave_run *w, long long toggles, uint64_t edges)
{
    const gen_watch *g = &w->watch;
    rts_ctx *ctx = w->ctx;
    if (g->hung && edges)
        rts_ctx_fail(ctx, "the generator hung: no edge for %.1f s (stopped)", (double)g->quiet_ns / 1e9);
    else if (g->hung)
        rts_ctx_fail(ctx, "the generator never toggled the pin within startup_s, %.1f s (stopped)",
                     (double)w->startup_ns / 1e9);
    else if (w->killed)
        rts_ctx_fail(ctx, "the generator did not end within %.1f s of SIGTERM: killed with its process group",
                     (double)(STOP_GRACE_NS + w->half_ns) / 1e9);
    else if (g->ended && g->status != 0)
        rts_ctx_fail(ctx, "the generator died: exit status %d after %llu edges", g->status, (unsigned long long)edges);
    else if (edges == 0)
        rts_ctx_fail(ctx, "the generator never toggled the pin (%s; its last line: '%s')",
                     g->ended ? "it ended by itself" : "stopped at the planned end", rts_proc_last_line(g->proc));
    else if (toggles < 0)
        rts_ctx_fail(ctx, "the generator ended without its last line 'toggles N' (last line: '%s')",
                     rts_proc_last_line(g->proc));
    else
        return true;
    return false;
}

/* The checks of docs/wave.md on wave.period, and what makes the wave invalid. */
static void judge_wave(wave_run *w, long long toggles)
{
    observer *o = &w->obs;
    const rts_edge_counts *c = &o->edges.counts;
    rts_metric *m = o->metrics.period;
    uint64_t span = o->last_ns > o->first_ns ? o->last_ns - o->first_ns : 1;
    double blind_fraction = (double)c->blind_ns / (double)span, max_blind = rts_ctx_param(w->ctx, "max_blind");
    uint64_t res = resolution(o);
    uint64_t made = toggles > 0 ? (uint64_t)toggles : 0;
    uint64_t extra = c->edges_seen > made ? c->edges_seen - made : 0;
    uint64_t missing = made > c->edges_seen ? made - c->edges_seen : 0;
    wave_metrics_check(&o->metrics, c, res, blind_fraction);
    rts_metric_check_int(m, "generator_toggles", toggles);
    rts_metric_check_int(m, "extra_edges", (long long)extra);
    if (o->line_failed)
        wave_metrics_invalidate(&o->metrics, "the edges of the input line could not be read to the end");
    else if (blind_fraction > max_blind)
        wave_metrics_invalidate(&o->metrics, "the observer was blind for %.1f %% of the run (max_blind %.1f %%)",
                                100.0 * blind_fraction, 100.0 * max_blind);
    else if (toggles >= 0 && extra)
        wave_metrics_invalidate(&o->metrics,
                                "the observer saw %llu edges, %llu more than the generator's %llu toggles",
                                (unsigned long long)c->edges_seen, (unsigned long long)extra, (unsigned long long)made);
    else if (missing > hideable_edges(o))
        wave_metrics_invalidate(&o->metrics,
                                "the observer missed %llu of the generator's %llu toggles, more than the %llu "
                                "its %.1f ms blind can hide: toggles closer together than its resolution of %llu ns",
                                (unsigned long long)missing, (unsigned long long)made,
                                (unsigned long long)hideable_edges(o), (double)c->blind_ns / 1e6,
                                (unsigned long long)res);
}

/* Stop what still runs, in order: the watch, the generator (its last
 * edge made), then the observer (one more look). */
static void wind_down(wave_run *w)
{
    if (w->watch.thread)
        rts_thread_join(w->watch.thread);
    stop_generator(w);
    if (w->obs.thread) {
        atomic_store_explicit(&w->obs.quit, 1, memory_order_release);
        rts_thread_join(w->obs.thread);
    }
}

static void wave_release(wave_run *w)
{
    rts_proc_release(w->watch.proc);
    rts_pin_close(w->pin);
    rts_gpio_close(w->obs.line);
    rts_heap_free(w->obs.gaps);
}

/* The window of --duration starts at the first edge: wait for it (the
 * watch stops the bench when the start-up limit passes without one). */
static void await_first_edge(wave_run *w)
{
    if (await_flag(w->ctx, &w->obs.started, w->watch.startup_until_ns))
        rts_ctx_started(w->ctx, w->obs.edges.counts.first_ns);
}

static int run(rts_ctx *ctx)
{
    wave_run w = { .ctx = ctx };
    double period_us = rts_ctx_param(ctx, "period_us");
    w.half_ns = (uint64_t)llround(period_us * 500.0);
    w.periods = (uint64_t)rts_ctx_param(ctx, "periods");
    /* 1. Everything that can be refused is, before anything starts. */
    bool ok = prepare(&w) && wave_metrics_make(ctx, &w.obs.metrics, w.model_name, period_us);
    /* 2. The observer looks at its resolution, then the generator starts:
     *    both within startup_s, which the planned end moves out by. */
    w.startup_ns = (uint64_t)(rts_ctx_param(ctx, "startup_s") * 1e9);
    w.watch.startup_until_ns = rts_time_ns() + w.startup_ns;
    if (ok)
        rts_ctx_await_start(ctx, w.startup_ns);
    ok = ok && start_observer(&w) && start_generator(&w);
    /* 3. From the first edge until the generator is done, the planned end
     *    or a stop. */
    if (ok) {
        await_first_edge(&w);
        rts_ctx_wait(ctx, w.obs.metrics.period);
    }
    rts_ctx_stop(ctx);
    wind_down(&w);
    /* 4. Judge the generator, then the wave. */
    if (ok) {
        long long toggles = generator_toggles(w.watch.proc);
        ok = judge_generator(&w, toggles, w.obs.edges.counts.edges_seen);
        judge_wave(&w, toggles);
    }
    wave_release(&w);
    return ok ? 0 : 1;
}

/* The wave ends when its generator has made its periods, which takes what
 * the model takes to start and to keep time: not known before it runs
 * (at most startup_s plus the run's --duration). */
static double own_length(const rts_ctx *ctx)
{
    (void)ctx;
    return 0.0;
}

static const rts_param_decl params[] = {
    RTS_PARAM_CHOICE("model", "c-mmap",
                     "bash,python,node,c-file,c-mmap,c-rt,c-busy,c-timerfd,custom,kmod-hrtimer,kmod-kthread",
                     "how the wave is made: a script (bash, python, node), one of the probe's C models, "
                     "custom (command), or a kernel module's hrtimer or thread (in rtscope's QEMU guests)"),
    RTS_PARAM_TEXT("command", "",
                   "model custom: the program and its arguments, split on spaces (no shell, no quoting)"),
    RTS_PARAM_CHOICE("pin", "shared", "shared,gpio",
                     "what is toggled and observed: shared (a memory page polled from another CPU; works "
                     "everywhere) or gpio (a board's output line, wired to an input line whose edges the kernel "
                     "stamps)"),
    RTS_PARAM_TEXT("chip", "/dev/gpiochip0", "pin gpio: the GPIO chip of both lines"),
    { "out_line", "0", 0, 511, true, "pin gpio: the generator's output line (its offset on the chip)" },
    { "in_line", "1", 0, 511, true, "pin gpio: the observer's input line, wired to out_line" },
    RTS_PARAM_TEXT("scripts", "", "directory of wave.sh, wave.py, wave.js; empty: probe/wave beside the probe"),
    { "period_us", "1000", 0.01, 1e7, false, "the wave's period in microseconds (50 % duty)" },
    { "periods", "100", 1, 1e9, true, "periods to generate (the run also ends at --duration from the first edge)" },
    { "startup_s", "30", 0.1, 3600, false,
      "how long the observer's and the generator's start may take, to the first edge; recorded apart "
      "(startup_ns), outside the --duration window" },
    RTS_PARAM_CPU("the last allowed CPU: the observer's"),
    { "gen_cpu", "-1", -1, RTS_MAX_CPUS - 1, true, "the generator's CPU; -1: the highest allowed but the observer's" },
    { "blind_us", "20", 0.1, 1e6, false, "a loop gap of the observer over this (or 10 resolutions) is blind time" },
    { "max_blind", "0.1", 0, 1, false, "the run is invalid when blind for more than this fraction of it" },
};

RTS_BENCH_DEFINE(rts_bench_wave_square) = {
    .id = "wave.square",
    .summary = "a square wave from a generator process, timed edge by edge by an observer on another CPU",
    .metrics = wave_metric_ids,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_PROCESSES | RTS_CAP_FILES,
    .params_ok = params_ok,
    .can_run = can_run,
    .announced_s = own_length,
    .run = run,
};
