/*
 * Bench parameters: numbers as always, text of declared choices or free,
 * from defaults and --param assignments; what benches read and what the
 * result records; one clear line for each bad value.
 */
#include <math.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "fixture.h"
#include "result.h"

static const rts_param_decl params[] = {
    { "period_us", "1000", 10, 1e6, false, "a float, declared positionally as before" },
    { "count", "3", 0, 10, true, "an int" },
    RTS_PARAM_CHOICE("format", "auto", "auto,csv,vcd", "a choice"),
    RTS_PARAM_TEXT("file", "", "free text"),
};
static const char *const metric_ids[] = { "par.metric", NULL };

/* Each value in range, but not every pair: count at most one per 4 us. */
static bool counts_fit_the_period(const rts_ctx *ctx, char *why, size_t whysize)
{
    double count = rts_ctx_param(ctx, "count"), period_us = rts_ctx_param(ctx, "period_us");
    if (count * 4 <= period_us)
        return true;
    snprintf(why, whysize, "count %g needs a period_us of at least %g", count, count * 4);
    return false;
}

static const rts_bench bench = {
    .id = "par.bench",
    .summary = "a bench with text parameters",
    .metrics = metric_ids,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .params_ok = counts_fit_the_period,
    .run = fixture_bench_run,
};

static rts_run_request req;
static rts_run run;

/* Add the assignments given ("key=value", for every bench) to req. */
static void assign(const char *const *assignments, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        rts_assignment *a = &req.assignments[req.nassignments++];
        snprintf(a->text, sizeof a->text, "%s", assignments[i]);
        char *eq = strchr(a->text, '=');
        *eq = '\0';
        a->key = a->text;
        a->value = eq + 1;
    }
}

/* Resolve bench's parameters with the assignments given; err gets the error line. */
static bool resolve(char *err, size_t errsize, const char *const *assignments, unsigned n)
{
    memset(&req, 0, sizeof req);
    memset(&run, 0, sizeof run);
    req.benches[0] = &bench;
    req.nbenches = 1;
    assign(assignments, n);
    run.req = &req;
    err[0] = '\0';
    return rts_params_resolve(&run, err, errsize);
}

static void test_defaults(void)
{
    char err[200];
    CHECK(resolve(err, sizeof err, NULL, 0), "defaults resolve: %s", err);
    rts_ctx ctx = { .run = &run, .result = &run.results[0] };
    CHECK(rts_ctx_param(&ctx, "period_us") == 1000, "float default");
    CHECK(rts_ctx_param(&ctx, "count") == 3, "int default");
    CHECK(strcmp(rts_ctx_param_text(&ctx, "format"), "auto") == 0, "choice default: %s",
          rts_ctx_param_text(&ctx, "format"));
    CHECK(strcmp(rts_ctx_param_text(&ctx, "file"), "") == 0, "free text default");
    CHECK(isnan(rts_ctx_param(&ctx, "format")), "a text parameter has no number");
    CHECK(rts_ctx_param_text(&ctx, "count") == NULL, "a number has no text");
    CHECK(rts_ctx_param_text(&ctx, "nothing") == NULL, "undeclared");
}

static void test_assignments(void)
{
    char err[200];
    const char *const given[] = { "format=vcd", "file=/tmp/a capture.csv", "period_us=12.5" };
    CHECK(resolve(err, sizeof err, given, 3), "assignments resolve: %s", err);
    rts_ctx ctx = { .run = &run, .result = &run.results[0] };
    CHECK(strcmp(rts_ctx_param_text(&ctx, "format"), "vcd") == 0, "choice given");
    CHECK(strcmp(rts_ctx_param_text(&ctx, "file"), "/tmp/a capture.csv") == 0, "free text given");
    CHECK(rts_ctx_param(&ctx, "period_us") == 12.5, "float given");
}

/* Resolving the one assignment given fails with exactly the line expected. */
static void check_refused(const char *assignment, const char *expected)
{
    char err[200];
    CHECK(!resolve(err, sizeof err, &assignment, 1), "%s refused", assignment);
    CHECK(strcmp(err, expected) == 0, "%s: got '%s'", assignment, err);
}

static void test_bad_values(void)
{
    check_refused("format=cs", "bench par.bench: parameter format: 'cs' is not one of auto,csv,vcd");
    check_refused("format=", "bench par.bench: parameter format: '' is not one of auto,csv,vcd");
    check_refused("format=auto,csv", "bench par.bench: parameter format: 'auto,csv' is not one of auto,csv,vcd");
    check_refused("count=2.5", "bench par.bench: parameter count: '2.5' is not a whole number");
    _Static_assert(RTS_PARAM_TEXT_MAX + 5 < RTS_ASSIGNMENT_TEXT, "the Makefile builds this test with short text");
    char expected[200], assignment[RTS_ASSIGNMENT_TEXT];
    snprintf(assignment, sizeof assignment, "file=%0*d", RTS_PARAM_TEXT_MAX, 0);
    snprintf(expected, sizeof expected, "bench par.bench: parameter file: '%.24s...' is longer than %d characters",
             assignment + 5, RTS_PARAM_TEXT_MAX - 1);
    check_refused(assignment, expected);
    snprintf(assignment, sizeof assignment, "file=%0*d", RTS_PARAM_TEXT_MAX - 1, 0);
    CHECK(resolve(expected, sizeof expected, (const char *const[]){ assignment }, 1), "longest text taken");
    const char *const empty = "file=";
    char err[200];
    CHECK(resolve(err, sizeof err, &empty, 1), "free text may be empty: %s", err);
}

/* The bench's own check sees the values assigned, not only the defaults. */
static void test_values_checked_together(void)
{
    check_refused("period_us=10", "bench par.bench: count 3 needs a period_us of at least 12");
    char err[200];
    const char *const together[] = { "count=2", "period_us=10" };
    CHECK(resolve(err, sizeof err, together, 2), "count 2 at 10 us: %s", err);
}

static void test_choices_listed(void)
{
    const char *cursor = rts_param_choices(&params[2]), *word;
    size_t n;
    CHECK(strcmp(cursor, "auto,csv,vcd") == 0, "choices ride after the default");
    const char *expected[] = { "auto", "csv", "vcd" };
    unsigned k = 0;
    for (; (word = rts_param_choice_next(&cursor, &n)) && k < 3; k++)
        CHECK(n == strlen(expected[k]) && strncmp(word, expected[k], n) == 0, "choice %u", k);
    CHECK(k == 3 && !word, "three choices");
    CHECK(rts_param_choices(&params[3]) == NULL && rts_param_choices(&params[0]) == NULL, "no choices");
}

static void test_result_records_text(void)
{
    fixture_run(&run, &req);
    req.benches[0] = &bench;
    const char *const given[] = { "format=csv", "file=a \"quoted\" name" };
    assign(given, 2);
    char err[200];
    CHECK(rts_params_resolve(&run, err, sizeof err), "resolve: %s", err);
    capture c = { 0 };
    CHECK(rts_result_write(&run, capture_write, &c), "document written");
    const char *params_text = "\"params\": {\"period_us\": 1000, \"count\": 3, \"format\": \"csv\", "
                              "\"file\": \"a \\\"quoted\\\" name\"}";
    CHECK(strstr(capture_text(&c), params_text), "params recorded: %s", capture_text(&c));
    capture_free(&c);
}

int main(void)
{
    test_defaults();
    test_assignments();
    test_bad_values();
    test_values_checked_together();
    test_choices_listed();
    test_result_records_text();
    return check_report("test_params");
}
