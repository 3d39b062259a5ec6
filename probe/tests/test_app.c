/*
 * The application workload's operations and checks (bench/app_ops.h) on
 * data made by hand: every op gives the known result and passes its check,
 * and a broken sort, a non-permutation and a wrong matrix are each caught.
 * Also the port's contract for per-thread scheduler statistics, where the
 * port has them (RTS_CAP_SCHED_STATS).
 */
#include <string.h>

#include "check.h"
#include "rtscope/port.h"
#include "port_time.h"

/* The bench's own file: the unit tests link the probe without its benches. */
#include "../bench/app_ops.c"

static atomic_bool never_stop = false;

static void test_ops_find_by_name(void)
{
    app_op op;
    CHECK(app_op_find("quick", &op) && op == APP_QUICK, "quick");
    CHECK(app_op_find("matrix_mul", &op) && op == APP_MATRIX_MUL, "matrix_mul");
    CHECK(!app_op_find("mix", &op) && !app_op_find("bubble", &op), "mix is the bench's, bubble nobody's");
    CHECK(strcmp(app_op_name(APP_SELECTION), "selection") == 0, "its name back");
}

/* Both sorts sort every shape of input (sorted, reversed, equal values,
 * random, one and two elements) into a permutation of it that passes. */
static void test_sorts_sort_and_pass(void)
{
    enum { N = 1000 };
    static int32_t input[N], data[N];
    for (app_op op = APP_SELECTION; op <= APP_QUICK; op++) {
        for (int pattern = 0; pattern < 4; pattern++) {
            app_shape s = { .op = op, .n = N };
            for (int i = 0; i < N; i++)
                input[i] = pattern == 0 ? i : pattern == 1 ? N - i : 7;
            if (pattern == 3)
                app_fill(&s, input, 42);
            app_reference ref = { .digest = app_multiset_digest(input, N) };
            memcpy(data, input, sizeof data);
            CHECK(app_run(&s, data, NULL, &never_stop), "%s ran", app_op_name(op));
            CHECK(app_check(&s, data, NULL, &ref) == APP_RESULT_OK, "%s, pattern %d: %s", app_op_name(op), pattern,
                  app_result_text(app_check(&s, data, NULL, &ref)));
        }
        for (size_t n = 1; n <= 2; n++) {
            int32_t small[2] = { 5, -3 };
            app_shape s = { .op = op, .n = n };
            app_reference ref = { .digest = app_multiset_digest(small, n) };
            app_run(&s, small, NULL, &never_stop);
            CHECK(app_check(&s, small, NULL, &ref) == APP_RESULT_OK && (n == 1 || small[0] == -3), "%s of %zu",
                  app_op_name(op), n);
        }
    }
}

/* A sort that stopped early (a pass left undone) is out of order. */
static void test_broken_sort_is_caught(void)
{
    int32_t data[] = { 1, 2, 4, 3, 5 };
    app_shape s = { .op = APP_QUICK, .n = 5 };
    app_reference ref = { .digest = app_multiset_digest(data, 5) };
    CHECK(app_check(&s, data, NULL, &ref) == APP_RESULT_UNSORTED, "out of order");
}

/* Sorted, but an element lost and another doubled (the study's kind of
 * race on shared data): not a permutation of the input. */
static void test_non_permutation_is_caught(void)
{
    int32_t input[] = { 3, 1, 2, 5, 4 }, sorted_wrong[] = { 1, 2, 2, 4, 5 };
    app_shape s = { .op = APP_SELECTION, .n = 5 };
    app_reference ref = { .digest = app_multiset_digest(input, 5) };
    CHECK(app_check(&s, sorted_wrong, NULL, &ref) == APP_RESULT_NOT_PERMUTATION, "2 twice, 3 lost");
    int32_t swapped[] = { 1, 2, 3, 4, 5 };
    CHECK(app_check(&s, swapped, NULL, &ref) == APP_RESULT_OK, "and the right one passes");
}

/* The digest does not depend on order. */
static void test_digest_is_order_independent(void)
{
    int32_t a[] = { -100, 0, 7, 7, 100 }, b[] = { 7, 100, -100, 7, 0 }, c[] = { 7, 100, -100, 8, 0 };
    CHECK(app_multiset_digest(a, 5) == app_multiset_digest(b, 5), "same multiset");
    CHECK(app_multiset_digest(a, 5) != app_multiset_digest(c, 5), "another multiset");
}

/* 2 × 2 matrices by hand: A = [1 2; 3 4], B = [5 6; 7 8]. */
static void test_matrices_by_hand(void)
{
    int32_t ab[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, c[4];
    app_shape add = { .op = APP_MATRIX_ADD, .side = 2 }, mul = { .op = APP_MATRIX_MUL, .side = 2 };
    CHECK(app_input_len(&mul) == 8 && app_output_len(&mul) == 4, "two operands in, one matrix out");
    app_run(&add, ab, c, &never_stop);
    CHECK(c[0] == 6 && c[1] == 8 && c[2] == 10 && c[3] == 12, "A + B: %d %d %d %d", c[0], c[1], c[2], c[3]);
    app_run(&mul, ab, c, &never_stop);
    CHECK(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50, "A x B: %d %d %d %d", c[0], c[1], c[2], c[3]);
    int32_t expected[] = { 19, 22, 43, 50 };
    app_reference ref = { .matrix = expected };
    CHECK(app_check(&mul, ab, c, &ref) == APP_RESULT_OK, "the product passes");
}

/* A product with one element off is caught. */
static void test_wrong_matrix_is_caught(void)
{
    enum { SIDE = 16 };
    static int32_t ab[2 * SIDE * SIDE], c[SIDE * SIDE], reference[SIDE * SIDE];
    app_shape s = { .op = APP_MATRIX_MUL, .side = SIDE };
    app_fill(&s, ab, 7);
    app_run(&s, ab, reference, &never_stop);
    app_run(&s, ab, c, &never_stop);
    app_reference ref = { .matrix = reference };
    CHECK(app_check(&s, ab, c, &ref) == APP_RESULT_OK, "the same product twice");
    c[SIDE * SIDE - 1] += 1;
    CHECK(app_check(&s, ab, c, &ref) == APP_RESULT_WRONG_MATRIX, "one element off");
}

/* Values stay within the bound that keeps products in 32 bits; a seed gives the same input. */
static void test_fill(void)
{
    enum { N = 4096 };
    static int32_t a[N], b[N];
    app_shape s = { .op = APP_QUICK, .n = N };
    app_fill(&s, a, 3);
    app_fill(&s, b, 3);
    bool bounded = true;
    for (int i = 0; i < N; i++)
        bounded = bounded && a[i] >= -APP_VALUE_MAX && a[i] <= APP_VALUE_MAX;
    CHECK(bounded && memcmp(a, b, sizeof a) == 0, "bounded and repeatable");
    app_fill(&s, b, 4);
    CHECK(memcmp(a, b, sizeof a) != 0, "another seed, other data");
}

/* An op asked to stop gives up and says so. */
static void test_stop_gives_up(void)
{
    enum { N = 2000 };
    static int32_t a[N];
    atomic_bool stop = true;
    app_shape s = { .op = APP_SELECTION, .n = N };
    app_fill(&s, a, 1);
    CHECK(!app_run(&s, a, NULL, &stop), "stopped");
}

/* The calling thread's counts only grow, and its run time grows by about
 * the time it spins. */
static void test_sched_stats_contract(void)
{
    rts_sched_stats *s = NULL;
    rts_status st = rts_sched_stats_open(&s);
    if (!(rts_port_caps() & RTS_CAP_SCHED_STATS)) {
        CHECK(st == RTS_ENOTSUP && !s, "without the capability: RTS_ENOTSUP");
        return;
    }
    CHECK(st == RTS_OK && s, "open: %s", rts_status_str(st));
    rts_sched_times before, after;
    CHECK(rts_sched_stats_read(s, &before) == RTS_OK, "read");
    uint64_t start = rts_time_ns();
    while (rts_time_ns() - start < 20000000u) {
    }
    CHECK(rts_sched_stats_read(s, &after) == RTS_OK, "read again");
    CHECK(after.run_ns - before.run_ns >= 10000000u && after.wait_ns >= before.wait_ns,
          "ran %llu ns of a 20 ms spin", (unsigned long long)(after.run_ns - before.run_ns));
    rts_sched_stats_close(s);
}

int main(void)
{
    test_ops_find_by_name();
    test_sorts_sort_and_pass();
    test_broken_sort_is_caught();
    test_non_permutation_is_caught();
    test_digest_is_order_independent();
    test_matrices_by_hand();
    test_wrong_matrix_is_caught();
    test_fill();
    test_stop_gives_up();
    test_sched_stats_contract();
    return check_report("test_app");
}
