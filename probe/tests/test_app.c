/*
 * The application workload's operations and checks (bench/app_ops.h) on
 * data made by hand: every op gives the known result and passes its check,
 * and a broken sort, a non-permutation and a wrong matrix are each caught.
 * The layout of the region its processes share leaves every part apart.
 * Also the port's contracts for what the bench added: per-thread scheduler
 * statistics (RTS_CAP_SCHED_STATS) and shared memory (RTS_CAP_PROCESSES).
 */
#include <string.h>

#include "check.h"
#include "rtscope/port.h"
#include "port_time.h"

/* The bench's own files: the unit tests link the probe without its benches. */
#include "../bench/app_ops.c"
#include "../bench/app_worker.c"

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
    /* Spin until the counter shows 10 ms on the CPU: on a busy machine that
     * takes longer than 10 ms of wall time, never less, and never 5 s. */
    uint64_t start = rts_time_ns(), spun_ns = 0;
    do {
        CHECK(rts_sched_stats_read(s, &after) == RTS_OK, "read again");
        spun_ns = rts_time_ns() - start;
    } while (after.run_ns - before.run_ns < 10000000u && spun_ns < 5000000000u);
    CHECK(after.run_ns - before.run_ns >= 10000000u, "ran %llu ns in %llu ns of spinning",
          (unsigned long long)(after.run_ns - before.run_ns), (unsigned long long)spun_ns);
    /* The kernel brings the counter up to date at ticks and switches: the
     * first read may lag by a tick (4 ms at HZ=250), so allow two. */
    CHECK(after.run_ns - before.run_ns <= spun_ns + 10000000u, "no more time on the CPU than passed: %llu in %llu ns",
          (unsigned long long)(after.run_ns - before.run_ns), (unsigned long long)spun_ns);
    CHECK(after.wait_ns >= before.wait_ns, "waiting time never goes back");
    rts_sched_stats_close(s);
}

/* Every slot, input and buffer of a mixed workload lies inside the region,
 * aligned, and no two overlap. */
static void test_layout_keeps_parts_apart(void)
{
    app_header h = { .ngroups = 3, .threads_per_group = 5, .nkinds = 2,
                     .shapes = { { .op = APP_QUICK, .n = 1001 }, { .op = APP_MATRIX_MUL, .n = 1001, .side = 31 } } };
    app_layout l;
    app_layout_of(&h, &l);
    enum { PARTS = 3 * 2 + 15 * 3 };
    size_t from[PARTS], to[PARTS], n = 0;
    char *base = rts_heap_alloc(l.total);
    for (unsigned g = 0; g < 3; g++)
        for (unsigned k = 0; k < 2; k++) {
            from[n] = (size_t)((char *)app_layout_input(base, &l, g, k) - base);
            to[n] = from[n] + app_input_len(&h.shapes[k]) * sizeof(int32_t);
            n++;
        }
    for (unsigned i = 0; i < 15; i++) {
        const app_shape *s = &h.shapes[i % 2];
        from[n] = (size_t)((char *)app_layout_slot(base, &l, i) - base);
        to[n] = from[n] + sizeof(app_slot);
        n++;
        from[n] = (size_t)((char *)app_layout_data(base, &l, i) - base);
        to[n] = from[n] + app_input_len(s) * sizeof(int32_t);
        n++;
        from[n] = (size_t)((char *)app_layout_output(base, &l, i) - base);
        to[n] = from[n] + app_output_len(s) * sizeof(int32_t);
        n++;
    }
    bool inside = true, apart = true;
    for (size_t a = 0; a < n; a++) {
        inside = inside && from[a] >= sizeof h && to[a] <= l.total && from[a] % 64 == 0;
        for (size_t b = a + 1; b < n; b++)
            apart = apart && (to[a] <= from[b] || to[b] <= from[a] || from[a] == to[a] || from[b] == to[b]);
    }
    CHECK(inside, "every part after the header, within %zu bytes, on a cache line", l.total);
    CHECK(apart, "no two parts overlap");
    rts_heap_free(base);
}

/* A region another mapping of it (as another process's) sees alike. */
static void test_shm_contract(void)
{
    char why[RTS_MESSAGE_TEXT];
    rts_shm *made = NULL, *opened = NULL;
    rts_status st = rts_shm_create(&made, 10000, why, sizeof why);
    if (!(rts_port_caps() & RTS_CAP_PROCESSES)) {
        CHECK(st == RTS_ENOTSUP && !made, "without processes: RTS_ENOTSUP");
        return;
    }
    CHECK(st == RTS_OK && made && rts_shm_size(made) == 10000, "create: %s", why);
    unsigned char *a = rts_shm_base(made);
    CHECK(a[0] == 0 && a[9999] == 0, "zeroed");
    CHECK(rts_shm_open(&opened, rts_shm_path(made), why, sizeof why) == RTS_OK, "open: %s", why);
    unsigned char *b = rts_shm_base(opened);
    a[9999] = 42;
    CHECK(rts_shm_size(opened) == 10000 && b[9999] == 42, "one region, two mappings");
    rts_shm_close(opened);
    rts_shm_close(made);
    CHECK(rts_shm_open(&opened, "/nonexistent/region", why, sizeof why) != RTS_OK && !opened && why[0],
          "a missing region is one line: %s", why);
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
    test_layout_keeps_parts_apart();
    test_shm_contract();
    return check_report("test_app");
}
