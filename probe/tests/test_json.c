/* JSON writer: escaping, UTF-8 repair, layout, numbers. */
#include <math.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "rtscope/json.h"

static void expect_string(const char *in, const char *want)
{
    capture c = { 0 };
    rts_json j;
    rts_json_init(&j, capture_write, &c);
    rts_json_array_begin(&j, NULL, true);
    rts_json_string(&j, NULL, in);
    rts_json_array_end(&j);
    CHECK(rts_json_finish(&j) && strcmp(capture_text(&c), want) == 0, "escaping %s: got %s want %s", in,
          capture_text(&c), want);
    capture_free(&c);
}

static void test_escaping(void)
{
    expect_string("plain", "[\"plain\"]\n");
    expect_string("a\"b\\c", "[\"a\\\"b\\\\c\"]\n");
    expect_string("line\nnext\ttab\r", "[\"line\\nnext\\ttab\\r\"]\n");
    expect_string("\x01\x1f", "[\"\\u0001\\u001f\"]\n");
    expect_string("<script>", "[\"<script>\"]\n");
    expect_string("\xC2\xB5s", "[\"\xC2\xB5s\"]\n");                /* valid UTF-8 kept */
    expect_string("bad\xFFz", "[\"bad\xEF\xBF\xBDz\"]\n");          /* invalid byte -> U+FFFD */
    expect_string("\xC0\xAF", "[\"\xEF\xBF\xBD\xEF\xBF\xBD\"]\n");  /* overlong '/' rejected */
    expect_string("\xED\xA0\x80", "[\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"]\n"); /* surrogate */
    expect_string("cut\xE2\x82", "[\"cut\xEF\xBF\xBD\xEF\xBF\xBD\"]\n");  /* truncated sequence */
}

static void test_layout_and_numbers(void)
{
    capture c = { 0 };
    rts_json j;
    rts_json_init(&j, capture_write, &c);
    rts_json_object_begin(&j, NULL, false);
    rts_json_int(&j, "i", -3);
    rts_json_uint(&j, "u", 18446744073709551615ull);
    rts_json_double(&j, "whole", 42.0);
    rts_json_double(&j, "frac", 2.5);
    rts_json_double(&j, "ratio", 1.2863549);
    rts_json_double(&j, "large", 12345.678901);
    rts_json_double(&j, "small", 0.0146824536);
    rts_json_double(&j, "nan", NAN);
    rts_json_double(&j, "inf", INFINITY);
    rts_json_bool(&j, "t", true);
    rts_json_null(&j, "n");
    rts_json_string(&j, "s", NULL);
    rts_json_array_begin(&j, "empty", true);
    rts_json_array_end(&j);
    rts_json_object_begin(&j, "o", true);
    rts_json_int(&j, "a", 1);
    rts_json_int(&j, "b", 2);
    rts_json_object_end(&j);
    rts_json_object_end(&j);
    const char *want = "{\n"
                       "  \"i\": -3,\n"
                       "  \"u\": 18446744073709551615,\n"
                       "  \"whole\": 42,\n"
                       "  \"frac\": 2.5,\n"
                       "  \"ratio\": 1.286355,\n"
                       "  \"large\": 12345.6789,\n"
                       "  \"small\": 0.0146825,\n"
                       "  \"nan\": null,\n"
                       "  \"inf\": null,\n"
                       "  \"t\": true,\n"
                       "  \"n\": null,\n"
                       "  \"s\": null,\n"
                       "  \"empty\": [],\n"
                       "  \"o\": {\"a\": 1, \"b\": 2}\n"
                       "}\n";
    CHECK(rts_json_finish(&j) && strcmp(capture_text(&c), want) == 0, "layout:\n%s", capture_text(&c));
    capture_free(&c);
}

static void test_errors_are_sticky(void)
{
    capture c = { 0 };
    rts_json j;
    rts_json_init(&j, capture_write, &c);
    rts_json_object_end(&j); /* closing what was never opened */
    rts_json_int(&j, NULL, 1);
    CHECK(!rts_json_finish(&j) && c.len == 0, "unbalanced close fails, nothing written: %s",
          capture_text(&c));
    capture_free(&c);
    rts_json_init(&j, capture_write, &c);
    for (int i = 0; i < RTS_JSON_MAX_DEPTH + 1; i++)
        rts_json_array_begin(&j, NULL, false);
    for (int i = 0; i < RTS_JSON_MAX_DEPTH + 1; i++)
        rts_json_array_end(&j);
    CHECK(!rts_json_finish(&j), "nesting beyond the limit fails");
    capture_free(&c);
    rts_json_init(&j, capture_write, &c);
    rts_json_array_begin(&j, NULL, false);
    CHECK(!rts_json_finish(&j), "an unclosed document is not whole");
    capture_free(&c);
}

/* A long document goes out in chunks of RTS_JSON_CHUNK bytes, in order. */
static void test_chunks(void)
{
    capture c = { 0 };
    rts_json j;
    rts_json_init(&j, capture_write, &c);
    rts_json_array_begin(&j, NULL, true);
    for (int i = 0; i < 100000; i++)
        rts_json_int(&j, NULL, i);
    rts_json_array_end(&j);
    bool whole = rts_json_finish(&j);
    const char *t = capture_text(&c);
    CHECK(whole && strncmp(t, "[0, 1, 2", 8) == 0 && strstr(t, "99998, 99999]\n"), "large array");
    CHECK(c.calls == (c.len + RTS_JSON_CHUNK - 1) / RTS_JSON_CHUNK, "%zu bytes in %zu writes", c.len, c.calls);
    capture_free(&c);
}

/* A write refused stops the document: nothing more is handed over. */
static void test_refused_write(void)
{
    capture c = { .refuse_after = 3 * RTS_JSON_CHUNK };
    rts_json j;
    rts_json_init(&j, capture_write, &c);
    rts_json_array_begin(&j, NULL, true);
    for (int i = 0; i < 10000; i++)
        rts_json_int(&j, NULL, i);
    rts_json_array_end(&j);
    CHECK(!rts_json_finish(&j), "a refused write fails the document");
    CHECK(c.calls == 3 && c.len == 3 * RTS_JSON_CHUNK, "writes stop at the refusal: %zu calls, %zu bytes", c.calls,
          c.len);
    capture_free(&c);
}

int main(void)
{
    test_escaping();
    test_layout_and_numbers();
    test_errors_are_sticky();
    test_chunks();
    test_refused_write();
    return check_report("test_json");
}
