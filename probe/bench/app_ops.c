/* The application workload's operations and checks (see app_ops.h). */
#include "app_ops.h"

#include <string.h>

static const char *const op_names[] = {
    [APP_SELECTION] = "selection",
    [APP_QUICK] = "quick",
    [APP_MATRIX_ADD] = "matrix_add",
    [APP_MATRIX_MUL] = "matrix_mul",
};

bool app_op_find(const char *name, app_op *op)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (strcmp(op_names[i], name) == 0) {
            *op = (app_op)i;
            return true;
        }
    return false;
}

const char *app_op_name(app_op op) { return op_names[op]; }

size_t app_input_len(const app_shape *s) { return app_op_is_sort(s->op) ? s->n : 2 * s->side * s->side; }

size_t app_output_len(const app_shape *s) { return app_op_is_sort(s->op) ? 0 : s->side * s->side; }

/* splitmix64: a well-mixed 64-bit value from each step of a counter. */
static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

void app_fill(const app_shape *s, int32_t *input, uint64_t seed)
{
    size_t len = app_input_len(s);
    uint64_t span = 2 * APP_VALUE_MAX + 1;
    for (size_t i = 0; i < len; i++)
        input[i] = (int32_t)(mix64(seed * UINT64_C(0x100000001b3) + i) % span) - APP_VALUE_MAX;
}

static bool stopped(const atomic_bool *stop) { return atomic_load_explicit(stop, memory_order_relaxed); }

static void swap(int32_t *a, int32_t *b)
{
    int32_t t = *a;
    *a = *b;
    *b = t;
}

/* Selection sort, as the study's program runs: n passes, each finding the
 * smallest of the rest. */
static bool selection_sort(int32_t *a, size_t n, const atomic_bool *stop)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (stopped(stop))
            return false;
        size_t min = i;
        for (size_t j = i + 1; j < n; j++)
            if (a[j] < a[min])
                min = j;
        swap(&a[i], &a[min]);
    }
    return true;
}

/* Hoare's partition of a[0..n-1] (n >= 2) around the median of its first,
 * middle and last elements; returns k with a[0..k] <= pivot <= a[k+1..n-1],
 * 0 <= k < n-1, so that both sides are shorter than n. */
static size_t partition(int32_t *a, size_t n)
{
    size_t mid = (n - 1) / 2; /* with n / 2, [1, 2] would split into 2 + 0 for ever */
    if (a[mid] < a[0])
        swap(&a[mid], &a[0]);
    if (a[n - 1] < a[0])
        swap(&a[n - 1], &a[0]);
    if (a[n - 1] < a[mid])
        swap(&a[n - 1], &a[mid]);
    int32_t pivot = a[mid];
    size_t i = 0, j = n - 1;
    for (;;) {
        while (a[i] < pivot)
            i++;
        while (a[j] > pivot)
            j--;
        if (i >= j)
            return j;
        swap(&a[i++], &a[j--]);
    }
}

/* Quicksort: recurse into the shorter side and loop on the longer, so the
 * stack holds at most log2(n) frames whatever the data. */
static bool quick_sort(int32_t *a, size_t n, const atomic_bool *stop)
{
    while (n > 1) {
        if (stopped(stop))
            return false;
        size_t left = partition(a, n) + 1, right = n - left;
        if (left < right) {
            if (!quick_sort(a, left, stop))
                return false;
            a += left;
            n = right;
        } else {
            if (!quick_sort(a + left, right, stop))
                return false;
            n = left;
        }
    }
    return true;
}

static bool matrix_add(const int32_t *ab, int32_t *c, size_t side, const atomic_bool *stop)
{
    const int32_t *b = ab + side * side;
    for (size_t row = 0; row < side; row++) {
        if (stopped(stop))
            return false;
        for (size_t k = row * side; k < (row + 1) * side; k++)
            c[k] = ab[k] + b[k];
    }
    return true;
}

/* C = A × B, row by row; the i-k-j order reads B along its rows. */
static bool matrix_mul(const int32_t *ab, int32_t *c, size_t side, const atomic_bool *stop)
{
    const int32_t *b = ab + side * side;
    for (size_t i = 0; i < side; i++) {
        if (stopped(stop))
            return false;
        int32_t *c_row = c + i * side;
        memset(c_row, 0, side * sizeof *c_row);
        for (size_t k = 0; k < side; k++) {
            int32_t a_ik = ab[i * side + k];
            const int32_t *b_row = b + k * side;
            for (size_t j = 0; j < side; j++)
                c_row[j] += a_ik * b_row[j];
        }
    }
    return true;
}

bool app_run(const app_shape *s, int32_t *data, int32_t *output, const atomic_bool *stop)
{
    switch (s->op) {
    case APP_SELECTION:
        return selection_sort(data, s->n, stop);
    case APP_QUICK:
        return quick_sort(data, s->n, stop);
    case APP_MATRIX_ADD:
        return matrix_add(data, output, s->side, stop);
    case APP_MATRIX_MUL:
        return matrix_mul(data, output, s->side, stop);
    }
    return false;
}

/* A sum of well-mixed values does not depend on their order, and a changed,
 * lost or doubled integer changes it but for a 2^-64 chance. */
uint64_t app_multiset_digest(const int32_t *a, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += mix64((uint64_t)(uint32_t)a[i]);
    return sum;
}

const char *app_result_text(app_result r)
{
    switch (r) {
    case APP_RESULT_OK:
        return "correct";
    case APP_RESULT_UNSORTED:
        return "a sort's output is out of order";
    case APP_RESULT_NOT_PERMUTATION:
        return "a sort's output is not a permutation of its input";
    case APP_RESULT_WRONG_MATRIX:
        return "a matrix result differs from the reference";
    }
    return "?";
}

app_result app_check(const app_shape *s, const int32_t *data, const int32_t *output, const app_reference *ref)
{
    if (!app_op_is_sort(s->op))
        return memcmp(output, ref->matrix, app_output_len(s) * sizeof *output) == 0 ? APP_RESULT_OK
                                                                                     : APP_RESULT_WRONG_MATRIX;
    for (size_t i = 1; i < s->n; i++)
        if (data[i - 1] > data[i])
            return APP_RESULT_UNSORTED;
    return app_multiset_digest(data, s->n) == ref->digest ? APP_RESULT_OK : APP_RESULT_NOT_PERMUTATION;
}
