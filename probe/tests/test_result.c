/*
 * The result document (format 4) of a run made by hand: units, labels
 * (escaped), histogram resolution, what other units leave out, and the
 * summary. `test_result --print` writes the document, for a schema check:
 *   build/test_result --print | python -m jsonschema ... schema/result-v4.schema.json
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "check.h"
#include "fixture.h"
#include "result.h"

static rts_run_request req;
static rts_run run;

/* The fixture's run with an ns metric, a labelled ns metric, a ratio, a
 * percentage and a throughput. */
static void build(void)
{
    fixture_run(&run, &req);
    run.image = (rts_image){ .text = 0, .data = -1, .bss = 4096 };
    rts_metric *ns = fixture_metric(&run, "fix.time", RTS_UNIT_NS, 1);
    rts_metric *cpu = fixture_metric(&run, "fix.time.cpu3", RTS_UNIT_NS, 1);
    rts_metric *ratio = fixture_metric(&run, "fix.error", RTS_UNIT_RATIO, 0.001);
    rts_metric *pct = fixture_metric(&run, "fix.load", RTS_UNIT_PERCENT, 0.5);
    rts_metric *rate = fixture_metric(&run, "fix.rate", RTS_UNIT_BYTES_PER_S, 1000);
    rts_metric *retries = fixture_metric(&run, "fix.retries", RTS_UNIT_COUNT, 1);
    rts_metric *periods = fixture_metric(&run, "fix.periods", RTS_UNIT_COUNT, 1);
    periods->per_period = true;
    periods->period_s = 0.5;
    for (int i = 1; i <= 100; i++) {
        rts_metric_add(ns, 1000 + i);
        rts_metric_add(cpu, 2000 + i);
        rts_metric_add(ratio, i / 1000.0);
        rts_metric_add(pct, i / 4.0);
        rts_metric_add(rate, 1e6 * i);
        rts_metric_add(retries, i % 7);
    }
    rts_metric_add(periods, 1200);
    rts_metric_add(periods, 1100);
    rts_metric_label_int(cpu, "cpu", 3);
    rts_metric_label_text(cpu, "model", "py\"th\non");
    ratio->overhead_ns = 50; /* ignored: not a time metric */
    ratio->threshold_ns = 10;
}

static const char *document(capture *c)
{
    CHECK(rts_result_write(&run, capture_write, c), "document written whole");
    return capture_text(c);
}

/* The text of metric id's object in doc (up to the next metric). */
static const char *metric_text(const char *doc, const char *id, char *buf, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "\"id\": \"%s\"", id);
    const char *at = strstr(doc, key);
    const char *end = at ? strstr(at + 1, "\"id\": ") : NULL;
    size_t n = !at ? 0 : end ? (size_t)(end - at) : strlen(at);
    n = n < size - 1 ? n : size - 1;
    memcpy(buf, at ? at : "", n);
    buf[n] = '\0';
    return buf;
}

static void test_document(void)
{
    capture c = { 0 };
    const char *doc = document(&c);
    static char m[16384];
    CHECK(strstr(doc, "\"version\": 4,\n"), "version 4");
    CHECK(strstr(doc, "\"image\": {\"text\": 0, \"data\": null, \"bss\": 4096}"), "image sizes, null unknown");
    metric_text(doc, "fix.time", m, sizeof m);
    CHECK(strstr(m, "\"unit\": \"ns\",\n      \"labels\": {},\n"), "ns metric, no labels:\n%s", m);
    CHECK(!strstr(m, "resolution"), "ns histogram without resolution");
    metric_text(doc, "fix.time.cpu3", m, sizeof m);
    CHECK(strstr(m, "\"labels\": {\"cpu\": 3, \"model\": \"py\\\"th\\non\"},"), "labels in order, escaped:\n%s", m);
    metric_text(doc, "fix.error", m, sizeof m);
    CHECK(strstr(m, "\"unit\": \"ratio\""), "ratio unit");
    CHECK(strstr(m, "\"overflow_above\": 68719476736,\n        \"resolution\": 0.001\n"), "resolution:\n%s", m);
    CHECK(strstr(m, "\"overhead_ns\": 0,") && strstr(m, "\"cycles\": null") && strstr(m, "\"threshold\": null"),
          "no overhead, cycles or threshold outside time metrics");
    CHECK(strstr(m, "\"p50\": 0.05"), "percentiles in the unit");
    metric_text(doc, "fix.load", m, sizeof m);
    CHECK(strstr(m, "\"unit\": \"percent\"") && strstr(m, "\"resolution\": 0.5"), "percent in half steps");
    metric_text(doc, "fix.rate", m, sizeof m);
    CHECK(strstr(m, "\"unit\": \"bytes/s\"") && strstr(m, "\"resolution\": 1000"), "bytes/s in steps of 1000");
    metric_text(doc, "fix.retries", m, sizeof m);
    CHECK(strstr(m, "\"unit\": \"count\"") && strstr(m, "\"scheme\": \"log-linear\"") && !strstr(m, "periods"),
          "a count of samples has a histogram:\n%s", m);
    metric_text(doc, "fix.periods", m, sizeof m);
    CHECK(strstr(m, "\"histogram\": null") && strstr(m, "\"period_s\": 0.5") &&
              strstr(m, "\"periods\": [1200, 1100]") && strstr(m, "\"baseline\": null"),
          "a per-period count has periods:\n%s", m);
    capture_free(&c);
}

/* The run's times in UTC, as the C library's gmtime has them, over four
 * centuries either side of 1970 (leap days, century years). */
static void test_utc_times(void)
{
    int64_t saved = run.finished_sec;
    for (int64_t t = -12219292800LL; t < 32503680000LL; t += 86400LL * 365 / 7 + 3671) {
        run.finished_sec = t;
        capture c = { 0 };
        CHECK(rts_result_write(&run, capture_write, &c), "document written");
        time_t tt = (time_t)t;
        char want[64], at[80];
        strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%S.000Z", gmtime(&tt));
        snprintf(at, sizeof at, "\"finished\": \"%s\"", want);
        if (!strstr(capture_text(&c), at)) {
            CHECK(false, "%lld is %s", (long long)t, want);
            capture_free(&c);
            break;
        }
        capture_free(&c);
    }
    run.finished_sec = saved;
}

/* This test's own image, from its link's symbols: code and zeroed data
 * (this file's static run alone is kilobytes) are there. */
static void test_image_read(void)
{
    rts_image image;
    rts_image_read(&image);
    CHECK(image.text > 4096 && image.bss >= (long long)sizeof run && image.data >= -1, "text %lld, data %lld, bss %lld",
          image.text, image.data, image.bss);
}

/* The manifest's values are typed by their text: booleans and whole numbers
 * become JSON's, anything else (a version, flags, a number with a sign, a
 * leading zero or too many digits) stays text; no manifest, no key. */
static void test_os_config(void)
{
    static const rts_os_setting manifest[] = {
        { "kernel", "FreeRTOS" },      { "tick_hz", "1000" },   { "preemption", "true" },
        { "assertions", "false" },     { "priorities", "0" },   { "kernel_version", "V11.1.0" },
        { "cflags", "-O2 -g" },        { "offset", "-1" },      { "mask", "0777" },
        { "big", "1234567890123456789" }, { "empty", "" },      { "yes", "True" },
    };
    capture c = { 0 };
    rts_json j;
    rts_json_init(&j, capture_write, &c);
    rts_json_object_begin(&j, NULL, false);
    rts_result_write_os_config(&j, manifest, sizeof manifest / sizeof manifest[0]);
    rts_json_object_end(&j);
    CHECK(rts_json_finish(&j), "manifest written");
    const char *doc = capture_text(&c);
    static const char *const expected[] = {
        "\"os_config\": {\n",        "\"kernel\": \"FreeRTOS\",",  "\"tick_hz\": 1000,",
        "\"preemption\": true,",    "\"assertions\": false,",    "\"priorities\": 0,",
        "\"kernel_version\": \"V11.1.0\",", "\"cflags\": \"-O2 -g\",", "\"offset\": \"-1\",",
        "\"mask\": \"0777\",",      "\"big\": \"1234567890123456789\",", "\"empty\": \"\",",
        "\"yes\": \"True\"\n",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        CHECK(strstr(doc, expected[i]), "%s in:\n%s", expected[i], doc);
    capture_free(&c);

    capture none = { 0 };
    rts_json_init(&j, capture_write, &none);
    rts_json_object_begin(&j, NULL, false);
    rts_result_write_os_config(&j, NULL, 0);
    rts_json_object_end(&j);
    CHECK(rts_json_finish(&j) && !strstr(capture_text(&none), "os_config"), "no manifest, no key:\n%s",
          capture_text(&none));
    capture_free(&none);
}

static capture summary;
static void take_summary(const char *text, size_t n) { capture_write(&summary, text, n); }

static void test_summary(void)
{
    rts_result_print_heading(&run, take_summary);
    rts_result_print_bench(&run, &run.results[0], take_summary);
    rts_result_print_run(&run, take_summary);
    const char *s = capture_text(&summary);
    CHECK(strncmp(s, "Metrics, overhead-adjusted\nmetric ", 34) == 0, "summary heading:\n%s", s);
    CHECK(strstr(s, " p90 ") && strstr(s, " p99.9 ") && strstr(s, " stddev  validity\n"), "the analyzer's columns:\n%s",
          s);
    CHECK(strstr(s, "\nrun 0123456789abcdef  complete"), "the run's line last:\n%s", s);
    CHECK(strstr(s, "fix.error") && strstr(s, "0.05 "), "ratio row");
    CHECK(strstr(s, "12.5 %"), "percent row:\n%s", s);
    CHECK(strstr(s, "50 MB/s") && strstr(s, "100 MB/s"), "throughput row:\n%s", s);
    CHECK(strstr(s, "1,200/p"), "per-period row:\n%s", s);
    capture_free(&summary);
}

/* A time metric's figures below the clock's resolution are named (a board
 * whose clock counts 40 ns, an interrupt that costs no instruction: most of
 * the samples read 0); the sleeps' granularity the port declares is in the
 * timing, null where sleeps end at the clock's time. */
static void test_below_resolution(void)
{
    static rts_run_request breq;
    static rts_run brun;
    fixture_run(&brun, &breq);
    brun.timing.clock_resolution_ns = 40;
    brun.timing.sleep_granularity_ns = 1000000;
    rts_metric *irq = fixture_metric(&brun, "fix.irq", RTS_UNIT_NS, 1);
    rts_metric *count = fixture_metric(&brun, "fix.count", RTS_UNIT_COUNT, 1);
    for (int i = 0; i < 100; i++) {
        rts_metric_add(irq, i < 60 ? 0 : 80);
        rts_metric_add(count, 0);
    }
    capture c = { 0 };
    CHECK(rts_result_write(&brun, capture_write, &c), "document written whole");
    const char *doc = capture_text(&c);
    static char m[16384];
    CHECK(strstr(doc, "\"clock_resolution_ns\": 40,\n    \"sleep_granularity_ns\": 1000000,"), "granularity:\n%s", doc);
    metric_text(doc, "fix.irq", m, sizeof m);
    CHECK(strstr(m, "\"below_resolution\": [\"min\", \"p50\", \"mean\"]"), "min, median and mean (32 ns) below 40 ns:\n%s", m);
    metric_text(doc, "fix.count", m, sizeof m);
    CHECK(!strstr(m, "below_resolution"), "a count is not a clock's reading:\n%s", m);
    capture_free(&c);
    metric_text(document(&c), "fix.time", m, sizeof m);
    CHECK(strstr(capture_text(&c), "\"sleep_granularity_ns\": null,") && !strstr(m, "below_resolution"),
          "no tick, nothing below 1 ns");
    capture_free(&c);
}

/* A per-period metric of bench result r (fixture_metric's, in another bench). */
static rts_metric *period_metric(rts_bench_result *r, const char *id, const char *baseline, uint64_t figure)
{
    char why[RTS_MESSAGE_TEXT];
    rts_metric *m = rts_metric_new(id, "periods of the tests", RTS_UNIT_COUNT, 1, &run.timing, 2, why, sizeof why);
    CHECK(m, "metric %s: %s", id, why);
    m->per_period = true;
    m->period_s = 0.1;
    m->baseline = baseline;
    rts_metric_add(m, (double)figure);
    rts_metric_add(m, (double)figure);
    r->metrics[r->nmetrics++] = m;
    return m;
}

/* Written as the run goes: a bench's metrics reach the writer before the
 * run ends, in chunks of at most RTS_JSON_CHUNK, and once written can be
 * released; a later bench's ratio to a calibration metric released before
 * is still computed; the benches and the run come last. */
static void test_streamed(void)
{
    static rts_run_request sreq;
    static rts_run srun;
    fixture_run(&srun, &sreq);
    sreq.benches[1] = &fixture_bench;
    sreq.nbenches = 2;
    srun.results[1] = (rts_bench_result){ .bench = &fixture_bench, .status = RTS_BENCH_OK };
    capture c = { 0 };
    rts_result_writer w;
    period_metric(&srun.results[0], "fix.basic", "fix.basic", 1000);
    rts_result_begin(&w, &srun, capture_write, &c);
    rts_result_add_bench(&w, &srun);
    CHECK(strstr(capture_text(&c), "\"id\": \"fix.basic\""), "the first bench's metric is out before the run ends");
    CHECK(!strstr(capture_text(&c), "\"benches\""), "the benches are not yet written");
    rts_metric_free(srun.results[0].metrics[0]);
    srun.results[0].nmetrics = 0;
    period_metric(&srun.results[1], "fix.coop", "fix.basic", 2500);
    CHECK(rts_result_end(&w, &srun), "document written whole");
    const char *doc = capture_text(&c);
    CHECK(strstr(doc, "\"baseline\": {\"metric\": \"fix.basic\", \"ratio\": 1}"), "a calibration is its own baseline");
    CHECK(strstr(doc, "\"baseline\": {\"metric\": \"fix.basic\", \"ratio\": 2.5}"), "ratio to a released metric:\n%s",
          doc);
    const char *benches = strstr(doc, "\"benches\"");
    CHECK(benches && strstr(doc, "\"metrics\"") < benches && strstr(benches, "\"run\": {"), "metrics, benches, run");
    CHECK(c.calls >= c.len / RTS_JSON_CHUNK && c.calls > 1, "%zu bytes in %zu chunks", c.len, c.calls);
    rts_metric_free(srun.results[1].metrics[0]);
    capture_free(&c);
}

static bool to_stdout(void *arg, const char *data, size_t n)
{
    (void)arg;
    return fwrite(data, 1, n, stdout) == n;
}

int main(int argc, char **argv)
{
    build();
    if (argc > 1 && strcmp(argv[1], "--print") == 0)
        return rts_result_write(&run, to_stdout, NULL) ? 0 : 1;
    test_document();
    test_image_read();
    test_utc_times();
    test_os_config();
    test_summary();
    test_streamed();
    test_below_resolution();
    return check_report("test_result");
}
