/* Formatted text through an output function: one call per text, any length. */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "text.h"

static capture taken;

/* An rts_text_fn into taken. */
static void take(const char *text, size_t n) { capture_write(&taken, text, n); }

static void test_short_line(void)
{
    capture_free(&taken);
    rts_text_fmt(take, "%-6s|%5.1f|%llu\n", "id", 2.25, 18446744073709551615ull);
    CHECK(strcmp(capture_text(&taken), "id    |  2.2|18446744073709551615\n") == 0 && taken.calls == 1, "short: %s",
          capture_text(&taken));
}

/* Longer than the stack buffer: formatted on the heap, still one call. */
static void test_long_line(void)
{
    char word[3 * RTS_TEXT_LINE];
    memset(word, 'x', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    capture_free(&taken);
    rts_text_fmt(take, "<%s>", word);
    CHECK(taken.len == sizeof word + 1 && taken.calls == 1, "long: %zu bytes in %zu calls", taken.len, taken.calls);
    CHECK(taken.text[0] == '<' && taken.text[taken.len - 1] == '>' && taken.text[taken.len - 2] == 'x', "long text");
}

static void test_puts(void)
{
    capture_free(&taken);
    rts_text_puts(take, "100% as is\n");
    CHECK(strcmp(capture_text(&taken), "100% as is\n") == 0, "puts: %s", capture_text(&taken));
    capture_free(&taken);
}

/* Text that does not fit its buffer is cut visibly. */
static void test_into(void)
{
    char buf[12];
    rts_text_into(buf, sizeof buf, "%s", "short");
    CHECK(strcmp(buf, "short") == 0, "fits: %s", buf);
    rts_text_into(buf, sizeof buf, "%s %d", "much too long", 42);
    CHECK(strcmp(buf, "much too...") == 0, "cut: %s", buf);
    rts_text_into(buf, sizeof buf, "%s", "exactly 11c");
    CHECK(strcmp(buf, "exactly 11c") == 0, "the last byte that fits: %s", buf);
}

/* Warnings are kept in order, the first RTS_MAX_WARNINGS of them. */
static void test_warnings(void)
{
    rts_warnings w = { .quiet = true };
    for (int i = 0; i <= RTS_MAX_WARNINGS; i++)
        rts_warn(&w, "warning %d", i);
    CHECK(w.count == RTS_MAX_WARNINGS, "kept %u of %d", w.count, RTS_MAX_WARNINGS + 1);
    char last[32];
    snprintf(last, sizeof last, "warning %d", RTS_MAX_WARNINGS - 1);
    CHECK(strcmp(w.text[0], "warning 0") == 0 && strcmp(w.text[RTS_MAX_WARNINGS - 1], last) == 0, "kept: %s .. %s",
          w.text[0], w.text[RTS_MAX_WARNINGS - 1]);
}

int main(void)
{
    test_short_line();
    test_long_line();
    test_puts();
    test_into();
    test_warnings();
    return check_report("test_text");
}
