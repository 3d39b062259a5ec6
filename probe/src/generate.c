/*
 * rtscope-probe generate MODEL: the probe binary as a square-wave generator
 * for the C models (docs/wave.md, "The generator"). wave.square starts it
 * as a process of its own, on a CPU other than its observer's.
 *
 * The models differ in how they write the pin and how they wait:
 *   c-file     pwrite of the pin's byte (a device file's write), then a
 *              relative sleep of a half-period, as the scripts do;
 *   c-mmap     a store to the mapped pin, then a relative sleep;
 *   c-rt       a store; SCHED_FIFO at RTSCOPE_PRIORITY (default RTS_PRIORITY_DEFAULT),
 *              mlockall, sleeps until absolute times on the monotonic clock;
 *   c-busy     a store; spins on the clock until each absolute time;
 *   c-timerfd  a store on each expiry of a periodic kernel timer (the
 *              port's ticker: a timerfd on Linux).
 * A relative sleep drifts by the toggle's own cost and each wake-up's
 * lateness; the absolute ones do not (a late wake-up is caught up).
 *
 * On a board (RTSCOPE_GPIO_CHIP and RTSCOPE_GPIO_LINE instead of
 * RTSCOPE_PIN) every model but c-mmap writes a GPIO output line through
 * the kernel's GPIO character device, one ioctl per toggle; c-mmap, whose
 * point is a store to memory, is refused (a GPIO register's address is the
 * board's own).
 */
#include "generate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "port_time.h"
#include "rtscope/port.h"
#include "text.h"

#define EXIT_USAGE 2

typedef enum { WAIT_RELATIVE, WAIT_ABSOLUTE, WAIT_BUSY, WAIT_TICKER } wait_kind;

typedef struct {
    const char *name;
    bool mapped;      /* a store to the mapped page, else pwrite through the file */
    bool realtime;    /* SCHED_FIFO and mlockall first */
    wait_kind wait;
    unsigned needs_caps;
    bool drives_gpio; /* can write a GPIO line instead */
} gen_model;

static const gen_model models[] = {
    { "c-file", false, false, WAIT_RELATIVE, RTS_CAP_FILES, true },
    { "c-mmap", true, false, WAIT_RELATIVE, RTS_CAP_FILES, false },
    { "c-rt", true, true, WAIT_ABSOLUTE, RTS_CAP_FILES | RTS_CAP_PRIORITY_SCHED | RTS_CAP_MLOCK, true },
    { "c-busy", true, false, WAIT_BUSY, RTS_CAP_FILES, true },
    { "c-timerfd", true, false, WAIT_TICKER, RTS_CAP_FILES | RTS_CAP_TICKER, true },
};

/* One generator's state. */
typedef struct {
    const gen_model *model;
    rts_pin *pin;             /* the shared pin, or */
    rts_gpio *line;           /* a GPIO output line */
    rts_ticker *ticker;
    uint64_t half_ns, toggles_wanted, toggles, start_ns;
    char *why;                /* where a failure is said, of whysize bytes */
    size_t whysize;
} generator;

/* Say why g cannot generate; returns status. */
static int refuse(generator *g, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(generator *g, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rts_text_vinto(g->why, g->whysize, fmt, ap);
    va_end(ap);
    return status;
}

static const gen_model *find_model(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

/* Environment variable name as a whole number from min to max into *out. */
static bool env_number(const char *name, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *text = getenv(name);
    char *end;
    errno = 0;
    unsigned long long v = text ? strtoull(text, &end, 10) : 0;
    if (!text || end == text || *end || errno || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* Real-time setup of c-rt: its point is that it holds. */
static int setup_realtime(generator *g)
{
    uint64_t prio = RTS_PRIORITY_DEFAULT;
    if (getenv("RTSCOPE_PRIORITY") && !env_number("RTSCOPE_PRIORITY", RTS_PRIORITY_MIN, RTS_PRIORITY_MAX, &prio))
        return refuse(g, EXIT_USAGE, "RTSCOPE_PRIORITY must be a priority from %d to %d", RTS_PRIORITY_MIN,
                      RTS_PRIORITY_MAX);
    rts_status st = rts_self_set_sched(RTS_POLICY_FIFO, (int)prio);
    if (st != RTS_OK)
        return refuse(g, 1, "SCHED_FIFO priority %d refused (%s)", (int)prio, rts_status_str(st));
    st = rts_mem_lock_all();
    if (st != RTS_OK)
        return refuse(g, 1, "mlockall refused (%s)", rts_status_str(st));
    return 0;
}

/* Set the pin to level, the model's way. */
static void set_level(generator *g, int level)
{
    unsigned char byte = level ? '1' : '0';
    if (g->line)
        rts_gpio_set(g->line, level);
    else if (g->model->mapped)
        *rts_pin_byte(g->pin) = byte;
    else
        rts_pin_write(g->pin, byte);
}

/* Wait until toggle k (1, 2 …) is due; false when asked to stop. */
static bool wait_toggle(generator *g, uint64_t k)
{
    uint64_t due = g->start_ns + k * g->half_ns, expiries;
    switch (g->model->wait) {
    case WAIT_RELATIVE:
        rts_sleep_ns(g->half_ns);
        break;
    case WAIT_ABSOLUTE:
        rts_sleep_until_ns(due);
        break;
    case WAIT_BUSY:
        while (rts_time_ns() < due && !rts_stop_requested())
            ;
        break;
    case WAIT_TICKER:
        while (rts_ticker_wait(g->ticker, &expiries) == RTS_EAGAIN && !rts_stop_requested())
            ;
        break;
    }
    return !rts_stop_requested();
}

/* The wave: start low, toggle every half-period until done or stopped. */
static void generate(generator *g)
{
    set_level(g, 0);
    for (uint64_t k = 1; k <= g->toggles_wanted && wait_toggle(g, k); k++) {
        set_level(g, (int)(k & 1));
        g->toggles++;
    }
}

/* The pin of the environment: RTSCOPE_PIN's file, or line RTSCOPE_GPIO_LINE
 * of RTSCOPE_GPIO_CHIP, driven low. */
static int open_pin(generator *g)
{
    const char *pin = getenv("RTSCOPE_PIN"), *chip = getenv("RTSCOPE_GPIO_CHIP");
    uint64_t line;
    if (chip && chip[0]) {
        if (!g->model->drives_gpio)
            return refuse(g, EXIT_USAGE, "model %s stores to a mapped pin: it cannot drive a GPIO line", g->model->name);
        if (!env_number("RTSCOPE_GPIO_LINE", 0, 511, &line))
            return refuse(g, EXIT_USAGE, "RTSCOPE_GPIO_LINE must be the output line's offset on the chip");
        return rts_gpio_output(&g->line, chip, (unsigned)line, 0, g->why, g->whysize) == RTS_OK ? 0 : 1;
    }
    if (!pin || !pin[0])
        return refuse(g, EXIT_USAGE, "RTSCOPE_PIN must name the pin file (or RTSCOPE_GPIO_CHIP a GPIO chip)");
    return rts_pin_open(&g->pin, pin, g->why, g->whysize) == RTS_OK ? 0 : 1;
}

/* Read the interface's environment and open what the model needs. */
static int prepare(generator *g)
{
    uint64_t periods;
    if (!env_number("RTSCOPE_HALF_PERIOD_NS", 1, UINT64_C(1) << 40, &g->half_ns))
        return refuse(g, EXIT_USAGE, "RTSCOPE_HALF_PERIOD_NS must be a positive whole number of ns");
    if (!env_number("RTSCOPE_PERIODS", 1, UINT64_C(1) << 40, &periods))
        return refuse(g, EXIT_USAGE, "RTSCOPE_PERIODS must be a positive whole number");
    g->toggles_wanted = 2 * periods;
    int st = open_pin(g);
    if (st)
        return st;
    st = g->model->realtime ? setup_realtime(g) : 0;
    if (st)
        return st;
    g->start_ns = rts_time_ns();
    if (g->model->wait == WAIT_TICKER &&
        rts_ticker_start(&g->ticker, g->start_ns + g->half_ns, g->half_ns) != RTS_OK)
        return refuse(g, 1, "cannot start a periodic timer");
    return 0;
}

int rts_generate_main(int argc, char **argv, char *why, size_t whysize)
{
    generator g = { .model = argc == 3 ? find_model(argv[2]) : NULL, .why = why, .whysize = whysize };
    if (!g.model)
        return refuse(&g, EXIT_USAGE, "name one model: c-file, c-mmap, c-rt, c-busy or c-timerfd");
    unsigned missing = g.model->needs_caps & ~rts_port_caps();
    if (missing)
        return refuse(&g, 1, "model %s needs what this platform lacks (capabilities 0x%x)", g.model->name, missing);
    rts_stop_requests_catch();
    int st = prepare(&g);
    if (!st) {
        generate(&g);
        rts_text_fmt(rts_console_write, "toggles %llu\n", (unsigned long long)g.toggles);
    }
    rts_ticker_stop(g.ticker);
    rts_pin_close(g.pin);
    rts_gpio_close(g.line);
    return st;
}
