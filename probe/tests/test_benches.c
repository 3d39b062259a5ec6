/*
 * Whether a target can run a bench, decided before it starts: the
 * capabilities it needs, each missing one named in the reason, then its own
 * can_run with the run's parameters.
 */
#include <string.h>

#include "capture.h"
#include "check.h"
#include "fixture.h"
#include "result.h"

static const rts_param_decl tracer_params[] = { RTS_PARAM_CHOICE("tracer", "timerlat", "timerlat,osnoise", "which") };

/* A target that has only the osnoise tracer. */
static bool tracer_present(const rts_ctx *ctx, char *why, size_t whysize)
{
    const char *tracer = rts_ctx_param_text(ctx, "tracer");
    if (strcmp(tracer, "osnoise") == 0)
        return true;
    snprintf(why, whysize, "the kernel has no %s tracer", tracer);
    return false;
}

static const rts_bench needs_files_and_gpio = {
    .id = "caps.bench",
    .summary = "needs files and GPIO lines",
    .metrics = fixture_metric_ids,
    .needs_caps = RTS_CAP_FILES | RTS_CAP_GPIO,
    .can_run = tracer_present, /* never asked: the capabilities come first */
    .run = fixture_bench_run,
};

static const rts_bench needs_a_tracer = {
    .id = "tracer.bench",
    .summary = "needs a tracer the kernel may not have",
    .metrics = fixture_metric_ids,
    .params = tracer_params,
    .nparams = 1,
    .needs_caps = RTS_CAP_FILES,
    .can_run = tracer_present,
    .run = fixture_bench_run,
};

/* The registry rts_bench_find searches: this test's benches. */
const rts_bench *const rts_benches[] = { &needs_files_and_gpio, &needs_a_tracer, &fixture_bench, NULL };

/* Whether bench b can run with caps, its parameter tracer set to tracer (NULL: the default). */
static bool decide(const rts_bench *b, unsigned caps, const char *tracer, char *why, size_t whysize)
{
    rts_run run;
    rts_run_request req;
    fixture_run(&run, &req);
    req.benches[0] = b;
    if (tracer)
        req.assignments[req.nassignments++] = (rts_assignment){ .key = "tracer", .value = tracer };
    char err[128] = "";
    CHECK(rts_params_resolve(&run, err, sizeof err), "%s", err);
    const rts_ctx ctx = { .run = &run, .result = &run.results[0] };
    why[0] = '\0';
    return rts_bench_can_run(b, &ctx, caps, why, whysize);
}

int main(void)
{
    char why[RTS_MESSAGE_TEXT];
    CHECK(rts_bench_find("tracer.bench") == &needs_a_tracer, "the registry is searched");

    /* Nothing needed, no hook: it runs anywhere. */
    CHECK(decide(&fixture_bench, 0, NULL, why, sizeof why), "no needs, no hook: %s", why);

    /* Capabilities missing: each named, the hook not asked. */
    CHECK(!decide(&needs_files_and_gpio, RTS_CAP_AFFINITY, NULL, why, sizeof why), "capabilities missing");
    CHECK(strcmp(why, "this target's port: no files; no GPIO lines") == 0, "%s", why);
    CHECK(!decide(&needs_files_and_gpio, RTS_CAP_FILES, NULL, why, sizeof why), "one missing");
    CHECK(strcmp(why, "this target's port: no GPIO lines") == 0, "%s", why);

    /* Capabilities there: the bench's own check, with the run's parameters. */
    CHECK(!decide(&needs_a_tracer, RTS_CAP_FILES, NULL, why, sizeof why), "the default tracer is missing");
    CHECK(strcmp(why, "the kernel has no timerlat tracer") == 0, "%s", why);
    CHECK(decide(&needs_a_tracer, RTS_CAP_FILES, "osnoise", why, sizeof why), "osnoise is there: %s", why);

    /* A reason longer than the room for it is cut, never overrun. */
    char small[24];
    CHECK(!decide(&needs_files_and_gpio, 0, NULL, small, sizeof small), "cut");
    CHECK(strlen(small) == sizeof small - 1 && strncmp(small, "this target's port: no ", 23) == 0, "%s", small);

    /* Skipped: the run complete, the bench's status and reason in the result, no metrics. */
    rts_run run;
    rts_run_request req;
    fixture_run(&run, &req);
    CHECK(!decide(&needs_a_tracer, RTS_CAP_FILES, NULL, run.results[0].error, sizeof run.results[0].error), "no");
    run.results[0].status = RTS_BENCH_SKIPPED;
    run.results[0].elapsed_s = 0;
    capture doc = { 0 };
    CHECK(rts_result_write(&run, capture_write, &doc), "written");
    const char *text = capture_text(&doc);
    CHECK(strstr(text, "\"status\": \"skipped\"") && strstr(text, "\"error\": \"the kernel has no timerlat tracer\""),
          "%s", text);
    CHECK(strstr(text, "\"metrics\": []") && strstr(text, "\"status\": \"complete\""), "%s", text);
    free(doc.text);
    return check_report("test_benches");
}
