/*
 * rtscope-probe: the measuring side of rtscope, usable alone on a target.
 * A thin command line over the run (run.c), its parameters (params.c) and
 * its output (output.c); all text goes through the port (text.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generate.h"
#include "output.h"
#include "params.h"
#include "result.h"
#include "rtscope/json.h"
#include "text.h"
#include "version.h"

#define EXIT_USAGE 2
/* A number macro as text, for the usage. */
#define TEXT(x) #x
#define NUMBER_TEXT(x) TEXT(x)
#define PRIORITIES NUMBER_TEXT(RTS_PRIORITY_MIN) ".." NUMBER_TEXT(RTS_PRIORITY_MAX)

#ifdef RTS_MCU_SMALL
/* A microcontroller build's runs are asked by rtscope and its flash is
 * scarce (the full usage is 1.4 KiB): the commands alone. */
static const char usage[] =
    "usage: rtscope-probe list [--json] | run BENCH|SUITE... [options] | system | version\n"
    "(a microcontroller build: the options are a full build's, which its help lists)\n";
#else
static const char usage[] =
    "usage: rtscope-probe list [--json]\n"
    "       rtscope-probe run BENCH|SUITE [BENCH|SUITE...] [options]\n"
    "       rtscope-probe generate c-file|c-mmap|c-rt|c-busy|c-timerfd\n"
    "                                   a square-wave generator (docs/wave.md; wave.square runs it)\n"
    "       rtscope-probe system       the system a result records, as JSON (rtscope doctor asks it)\n"
    "       rtscope-probe version\n"
    "\n"
    "run options:\n"
    "  --param [BENCH:]KEY=VALUE  set a bench parameter (repeatable)\n"
    "  --duration SECONDS         measuring time per bench (default 5)\n"
    "  --policy other|fifo|rr     policy of the measuring threads (default fifo)\n"
    "  --priority N               " PRIORITIES " for fifo and rr (default " NUMBER_TEXT(RTS_PRIORITY_DEFAULT)
    "); other has only 0\n"
    "  --cpus LIST                CPUs for the measuring threads, e.g. 1 or 0,2-3\n"
    "  --no-mlock                 do not lock memory\n"
    "  --no-cpu-latency           leave CPU idle states alone (default: limit wake-up latency to 0 us)\n"
    "  --refuse-privilege         act as unprivileged: no real-time policy, mlockall or latency limit\n"
    "  --rt-throttling off|on     off: lift RT throttling for the run, then put it back (default: on, as set)\n"
    "  --raw N                    keep the first N samples of each metric\n"
    "  --grace SECONDS            how long a bench may take to stop before the watchdog\n"
    "                             ends the run (default 10)\n"
    "  --series-window SECONDS    window of the latency benches' series of worst samples,\n"
    "                             0.001 to --duration (default 1)\n"
    "  --label TEXT               a label stored with the result\n"
    "  --run-id HEX               the run's id, 16 hex digits (default: random); rtscope\n"
    "                             gives one where the target's randomness repeats\n"
    "  --seed N                   0..4294967295: start each bench after a wait drawn from N\n"
    "                             (0-10 ms), so that reruns on an emulator vary\n"
    "  --json FILE|-              write the result to FILE (atomically); -: standard output\n"
    "  --quiet                    no progress and no summary\n";
#endif

/* One line on diagnostics for bad input; returns the usage exit status. */
static int fail_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rts_text_puts(rts_diag_write, "rtscope-probe: ");
    rts_text_vfmt(rts_diag_write, fmt, ap);
    rts_text_puts(rts_diag_write, "\n");
    va_end(ap);
    return EXIT_USAGE;
}

/* ------------------------------------------------------------------ list */

/* JSON text to the console (an rts_json_write_fn). */
static bool to_console(void *arg, const char *data, size_t n)
{
    (void)arg;
    rts_console_write(data, n);
    return true;
}

/* One parameter of the bench list: its type is "int", "float" or "string";
 * a number has its range (min, max), text has none (null), and a choice
 * parameter lists its choices. */
static void list_json_param(rts_json *j, const rts_param_decl *p)
{
    static const char *const type_names[] = {
        [RTS_PARAM_KIND_FLOAT] = "float", [RTS_PARAM_KIND_INT] = "int",
        [RTS_PARAM_KIND_TEXT] = "string", [RTS_PARAM_KIND_CHOICE] = "string",
    };
    bool number = p->kind == RTS_PARAM_KIND_FLOAT || p->kind == RTS_PARAM_KIND_INT;
    rts_json_object_begin(j, NULL, true);
    rts_json_string(j, "name", p->name);
    rts_json_string(j, "type", type_names[p->kind]);
    rts_json_string(j, "default", p->def);
    rts_json_double(j, "min", number ? p->min : NAN);
    rts_json_double(j, "max", number ? p->max : NAN);
    const char *choices = rts_param_choices(p);
    if (choices) {
        rts_json_array_begin(j, "choices", true);
        size_t n;
        for (const char *word, *cursor = choices; (word = rts_param_choice_next(&cursor, &n));) {
            char copy[RTS_PARAM_TEXT_MAX];
            snprintf(copy, sizeof copy, "%.*s", (int)n, word);
            rts_json_string(j, NULL, copy);
        }
        rts_json_array_end(j);
    }
    rts_json_string(j, "description", p->description);
    rts_json_object_end(j);
}

static void list_json(void)
{
    rts_json j;
    rts_json_init(&j, to_console, NULL);
    rts_json_object_begin(&j, NULL, false);
    rts_json_string(&j, "format", "rtscope-bench-list");
    rts_json_int(&j, "version", 1);
    rts_json_string(&j, "port", rts_port_name());
    rts_json_array_begin(&j, "benches", false);
    for (const rts_bench *const *b = rts_benches; *b; b++) {
        rts_json_object_begin(&j, NULL, false);
        rts_json_string(&j, "id", (*b)->id);
        rts_json_string(&j, "summary", (*b)->summary);
        rts_json_array_begin(&j, "metrics", true);
        for (const char *const *m = (*b)->metrics; *m; m++)
            rts_json_string(&j, NULL, *m);
        rts_json_array_end(&j);
        rts_json_array_begin(&j, "params", false);
        for (unsigned i = 0; i < (*b)->nparams; i++)
            list_json_param(&j, &(*b)->params[i]);
        rts_json_array_end(&j);
        rts_json_object_end(&j);
    }
    rts_json_array_end(&j);
    rts_json_array_begin(&j, "suites", false);
    for (const rts_suite *s = rts_suites; s->id; s++) {
        rts_json_object_begin(&j, NULL, false);
        rts_json_string(&j, "id", s->id);
        rts_json_string(&j, "summary", s->summary);
        rts_json_array_begin(&j, "benches", true);
        for (const char *const *b = s->benches; *b; b++)
            rts_json_string(&j, NULL, *b);
        rts_json_array_end(&j);
        rts_json_object_end(&j);
    }
    rts_json_array_end(&j);
    rts_json_object_end(&j);
    rts_json_finish(&j);
}

static void list_text(void)
{
    for (const rts_bench *const *b = rts_benches; *b; b++) {
        rts_text_fmt(rts_console_write, "%-12s %s\n", (*b)->id, (*b)->summary);
        for (unsigned i = 0; i < (*b)->nparams; i++) {
            const rts_param_decl *p = &(*b)->params[i];
            const char *choices = rts_param_choices(p);
            rts_text_fmt(rts_console_write, "    %-12s default %-6s %s%s%s%s\n", p->name, p->def, p->description,
                         choices ? " (one of " : "", choices ? choices : "", choices ? ")" : "");
        }
    }
    rts_text_puts(rts_console_write, "\nsuites:\n");
    for (const rts_suite *s = rts_suites; s->id; s++) {
        rts_text_fmt(rts_console_write, "%-12s %s\n   ", s->id, s->summary);
        for (const char *const *b = s->benches; *b; b++)
            rts_text_fmt(rts_console_write, " %s", *b);
        rts_text_puts(rts_console_write, "\n");
    }
}

static int cmd_list(int argc, char **argv)
{
    bool json = false;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else
            return fail_usage("list: unknown option '%s'", argv[i]);
    }
    if (json)
        list_json();
    else
        list_text();
    return 0;
}

/* ---------------------------------------------------------- run options */

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0 && isfinite(*out);
}

static bool parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    *out = strtol(s, &end, 10);
    return end != s && *end == '\0' && errno == 0;
}

/* Decimal digits alone into a 32-bit seed (strtoul: a long is 32 bits on a
 * microcontroller, too short for parse_long). */
static bool parse_seed(const char *s, uint32_t *out)
{
    if (s[0] < '0' || s[0] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    *out = (uint32_t)v;
    return *end == '\0' && errno == 0 && v <= UINT32_MAX;
}

/* "0,2-3" into cfg->cpus; every CPU must be usable by this process. */
static bool parse_cpus(const char *list, rts_rtconfig *cfg, char *err, size_t errsize)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    cfg->ncpus = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long lo, hi;
        char *dash = strchr(tok, '-');
        if (dash)
            *dash = '\0';
        if (!parse_long(tok, &lo) || (dash && !parse_long(dash + 1, &hi)) || lo < 0) {
            snprintf(err, errsize, "--cpus: '%s' is not a CPU list (e.g. 1 or 0,2-3)", list);
            return false;
        }
        if (!dash)
            hi = lo;
        for (long cpu = lo; cpu <= hi; cpu++) {
            if (!rts_cpu_allowed((int)cpu)) {
                snprintf(err, errsize, "--cpus: CPU %ld is not available to this process (%d online)", cpu,
                         rts_cpu_count());
                return false;
            }
            if (cfg->ncpus >= RTS_MAX_CPUS)
                break;
            cfg->cpus[cfg->ncpus++] = (int)cpu;
        }
    }
    if (cfg->ncpus == 0) {
        snprintf(err, errsize, "--cpus: '%s' names no CPU", list);
        return false;
    }
    return true;
}

static bool parse_policy(const char *s, rts_policy *out)
{
    static const rts_policy all[] = { RTS_POLICY_OTHER, RTS_POLICY_FIFO, RTS_POLICY_RR };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, rts_policy_name(all[i])) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

/* "[BENCH:]KEY=VALUE" into a (split in a copy: argv is recorded as typed). */
static bool parse_assignment(const char *typed, rts_assignment *a)
{
    if ((size_t)snprintf(a->text, sizeof a->text, "%s", typed) >= sizeof a->text)
        return false;
    char *text = a->text;
    char *eq = strchr(text, '=');
    if (!eq || eq == text || eq[1] == '\0')
        return false;
    *eq = '\0';
    a->value = eq + 1;
    char *colon = strchr(text, ':');
    a->bench = NULL;
    a->key = text;
    if (colon) {
        *colon = '\0';
        a->bench = text;
        a->key = colon + 1;
    }
    return a->key[0] != '\0' && (!a->bench || a->bench[0] != '\0');
}

/* Whether text is a run id as the probe makes them: 16 lower-case hex
 * digits. Every character is looked at, whatever it is, so that any valid
 * id costs the same instructions (see make_run_id). */
static bool is_run_id(const char *text)
{
    size_t n = strlen(text);
    if (n != 16)
        return false;
    unsigned bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        bad |= (unsigned)!((c >= '0' && c <= '9') | (c >= 'a' && c <= 'f'));
    }
    return bad == 0;
}

/* Parse one option at argv[*i] (advancing past its value). 0 on success,
 * else the exit status after printing the error. */
static int parse_option(int argc, char **argv, int *i, rts_run_request *req)
{
    const char *opt = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    char err[256];
    long n;
    bool takes_value = strcmp(opt, "--no-mlock") && strcmp(opt, "--no-cpu-latency") &&
                       strcmp(opt, "--refuse-privilege") && strcmp(opt, "--quiet");
    if (takes_value && !val)
        return fail_usage("%s needs a value", opt);
    if (takes_value)
        (*i)++;
    if (strcmp(opt, "--no-mlock") == 0)
        req->requested.mlockall = false;
    else if (strcmp(opt, "--no-cpu-latency") == 0)
        req->requested.cpu_latency_us = -1;
    else if (strcmp(opt, "--refuse-privilege") == 0)
        req->refuse_privilege = true;
    else if (strcmp(opt, "--quiet") == 0)
        req->quiet = true;
    else if (strcmp(opt, "--duration") == 0) {
        if (!parse_double(val, &req->duration_s) || req->duration_s <= 0 || req->duration_s > 1e7)
            return fail_usage("--duration: '%s' is not a positive number of seconds", val);
    } else if (strcmp(opt, "--grace") == 0) {
        if (!parse_double(val, &req->grace_s) || req->grace_s <= 0 || req->grace_s > 1e6)
            return fail_usage("--grace: '%s' is not a positive number of seconds", val);
    } else if (strcmp(opt, "--series-window") == 0) {
        /* Against --duration, which may come after it, once all are read (parse_run_args). */
        double s;
        if (!parse_double(val, &s) || s * 1e9 < (double)RTS_SERIES_WINDOW_MIN_NS || s > 1e7)
            return fail_usage("--series-window: '%s' is not a number of seconds from 0.001 to --duration", val);
        req->series_window_ns = (uint64_t)(s * 1e9 + 0.5);
    } else if (strcmp(opt, "--rt-throttling") == 0) {
        if (strcmp(val, "off") != 0 && strcmp(val, "on") != 0)
            return fail_usage("--rt-throttling: '%s' is not off or on (on: as the system has it)", val);
        req->requested.rt_throttling_off = strcmp(val, "off") == 0;
    } else if (strcmp(opt, "--policy") == 0) {
        if (!parse_policy(val, &req->requested.policy))
            return fail_usage("--policy: '%s' is not one of other, fifo, rr", val);
    } else if (strcmp(opt, "--priority") == 0) {
        if (!parse_long(val, &n) || n < 0 || n > RTS_PRIORITY_MAX)
            return fail_usage("--priority: '%s' is not between 0 and %d", val, RTS_PRIORITY_MAX);
        req->requested.priority = (int)n;
    } else if (strcmp(opt, "--cpus") == 0) {
        if (!parse_cpus(val, &req->requested, err, sizeof err))
            return fail_usage("%s", err);
    } else if (strcmp(opt, "--raw") == 0) {
        if (!parse_long(val, &n) || n < 0 || n > 100000000)
            return fail_usage("--raw: '%s' is not a sample count from 0 to 100000000", val);
        req->raw_cap = (uint32_t)n;
    } else if (strcmp(opt, "--label") == 0)
        req->label = val;
    else if (strcmp(opt, "--run-id") == 0) {
        if (!is_run_id(val))
            return fail_usage("--run-id: '%s' is not 16 hex digits (0-9, a-f)", val);
        req->run_id = val;
    }
    else if (strcmp(opt, "--seed") == 0) {
        if (!parse_seed(val, &req->seed))
            return fail_usage("--seed: '%s' is not a whole number from 0 to 4294967295", val);
        req->has_seed = true;
    } else if (strcmp(opt, "--json") == 0)
        req->json_path = val;
    else if (strcmp(opt, "--param") == 0) {
        if (req->nassignments >= RTS_MAX_ASSIGNMENTS)
            return fail_usage("too many --param options");
        if (!parse_assignment(argv[*i], &req->assignments[req->nassignments++]))
            return fail_usage("--param: '%s' is not [BENCH:]KEY=VALUE", val);
    } else
        return fail_usage("run: unknown option '%s' (rtscope-probe --help)", opt);
    return 0;
}

/* Add bench b to the request; a bench named twice is an error, unless it
 * came again through a suite. */
static int add_bench(const rts_bench *b, bool from_suite, rts_run_request *req)
{
    for (unsigned k = 0; k < req->nbenches; k++)
        if (req->benches[k] == b)
            return from_suite ? 0 : fail_usage("bench '%s' is named twice", b->id);
    if (req->nbenches >= RTS_MAX_RUN_BENCHES)
        return fail_usage("too many benches");
    req->benches[req->nbenches++] = b;
    return 0;
}

/* Add the bench, or every bench of the suite, called name. */
static int add_benches(const char *name, rts_run_request *req)
{
    const rts_bench *b = rts_bench_find(name);
    if (b)
        return add_bench(b, false, req);
    const rts_suite *s = rts_suite_find(name);
    if (!s)
        return fail_usage("unknown bench or suite '%s' (rtscope-probe list shows them)", name);
    for (const char *const *id = s->benches; *id; id++) {
        b = rts_bench_find(*id);
        int st = b ? add_bench(b, true, req) : fail_usage("suite %s names a missing bench %s", name, *id);
        if (st)
            return st;
    }
    return 0;
}

static int parse_run_args(int argc, char **argv, rts_run_request *req)
{
    *req = (rts_run_request){
        .duration_s = 5.0,
        .grace_s = 10.0,
        .requested = { .policy = RTS_POLICY_FIFO, .priority = RTS_PRIORITY_DEFAULT, .mlockall = true,
                       .stack_prefault = true, .cpu_latency_us = 0 },
        .argc = argc,
        .argv = argv,
    };
    for (int i = 2; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) == 0) {
            int st = parse_option(argc, argv, &i, req);
            if (st)
                return st;
            continue;
        }
        int st = add_benches(argv[i], req);
        if (st)
            return st;
    }
    if (req->nbenches == 0)
        return fail_usage("run: name at least one bench (rtscope-probe list shows them)");
    /* Longer than the run, a series is one window: the metric's maximum, placed nowhere. The default
     * stays one second whatever the duration, as a run without the option always had it. */
    uint64_t duration_ns = (uint64_t)(req->duration_s * 1e9 + 0.5);
    if (!req->series_window_ns)
        req->series_window_ns = RTS_SERIES_WINDOW_DEFAULT_NS;
    else if (req->series_window_ns > duration_ns)
        return fail_usage("--series-window: %g s is longer than the run's --duration (%g s)",
                          (double)req->series_window_ns / 1e9, req->duration_s);
    /* SCHED_OTHER has only priority 0; the real-time policies RTS_PRIORITY_MIN..MAX. */
    if (req->requested.policy == RTS_POLICY_OTHER)
        req->requested.priority = 0;
    else if (req->requested.priority == 0)
        return fail_usage("--priority 0 goes only with --policy other (fifo and rr take " PRIORITIES ")");
    return 0;
}

/* ------------------------------------------------------------------- run */

/* Hex digits by table, not printf: the same instructions whatever the
 * bytes, so that under instruction counting (an emulated board) the run id
 * does not shift everything measured after it. */
static void make_run_id(char id[17])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[8];
    rts_random_bytes(bytes, sizeof bytes);
    for (int i = 0; i < 8; i++) {
        id[2 * i] = hex[bytes[i] >> 4];
        id[2 * i + 1] = hex[bytes[i] & 15];
    }
    id[16] = '\0';
}

static int cmd_run(int argc, char **argv)
{
    static rts_run_request req;
    static rts_run run;
    static rts_output out;
    int st = parse_run_args(argc, argv, &req);
    if (st)
        return st;
    run.req = &req;
    char err[320];
    if (!rts_params_resolve(&run, err, sizeof err))
        return fail_usage("%s", err);
    if (req.run_id)
        memcpy(run.id, req.run_id, sizeof run.id); /* 16 digits and the NUL: is_run_id checked */
    else
        make_run_id(run.id);
    if (!rts_output_open(&out, req.json_path))
        return EXIT_USAGE;
    run.started = rts_output_started;
    run.measured = rts_output_measured;
    run.publish = rts_output_publish;
    run.output_arg = &out;
    run.stop_requests = rts_stop_requests_catch() == RTS_OK;
    int status = rts_run_execute(&run);
    rts_run_release(&run);
    return status;
}

/* --------------------------------------------------------------- system */

/* What every result records of the system (its "system": kernel, preemption
 * model, virtualisation, ...), alone, as JSON: how rtscope doctor learns what
 * the probe's rules make of the machine, without a second copy of them. */
static int cmd_system(int argc, char **argv)
{
    if (argc > 2)
        return fail_usage("system: takes no arguments ('%s')", argv[2]);
    static rts_sysinfo sys; /* kilobytes: not on a small board's stack */
    rts_sysinfo_read(&sys);
    rts_json j;
    rts_json_init(&j, to_console, NULL);
    rts_json_object_begin(&j, NULL, false);
    rts_json_string(&j, "format", "rtscope-system");
    rts_json_int(&j, "version", 1);
    rts_result_write_system(&j, &sys);
    rts_json_object_end(&j);
    return rts_json_finish(&j) ? 0 : 1;
}

/* The probe as a square-wave generator (generate.c); its one line of
 * failure goes where every other does. */
static int cmd_generate(int argc, char **argv)
{
    char why[RTS_MESSAGE_TEXT];
    int status = rts_generate_main(argc, argv, why, sizeof why);
    if (status)
        fail_usage("generate: %s", why);
    return status;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "list") == 0)
        return cmd_list(argc, argv);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc, argv);
    if (strcmp(cmd, "generate") == 0)
        return cmd_generate(argc, argv);
    if (strcmp(cmd, "system") == 0)
        return cmd_system(argc, argv);
    const rts_bench *owner = rts_bench_of_process(cmd); /* one process of a bench, started by it */
    if (owner)
        return owner->process_main(argc, argv);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        rts_text_fmt(rts_console_write, "rtscope-probe %s (port %s)\n", RTS_PROBE_VERSION, rts_port_name());
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        rts_text_puts(rts_console_write, usage);
        return 0;
    }
    rts_text_puts(rts_diag_write, usage);
    return cmd[0] ? fail_usage("unknown command '%s'", cmd) : EXIT_USAGE;
}
