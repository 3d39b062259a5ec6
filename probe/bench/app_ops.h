/*
 * The operations of the application workload (app.workload) and the
 * checks of their results, apart from any thread or clock so that unit
 * tests can run them on data made by hand (tests/test_app.c).
 *
 * A sort takes integers; a matrix operation takes two square matrices of
 * side × side integers, A and B, laid out one after the other (row-major),
 * and writes the result matrix C. Values are small (|x| <= APP_VALUE_MAX)
 * so that a product of matrices of side up to 1000 stays within 32 bits.
 */
#ifndef RTSCOPE_APP_OPS_H
#define RTSCOPE_APP_OPS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define APP_VALUE_MAX 100

typedef enum { APP_SELECTION, APP_QUICK, APP_MATRIX_ADD, APP_MATRIX_MUL } app_op;

/* The op called name ("selection", "quick", "matrix_add", "matrix_mul"),
 * false when there is none. "mix" is not an op: the bench gives its
 * threads quick and matrix_mul in turn. */
bool app_op_find(const char *name, app_op *op);

const char *app_op_name(app_op op);

static inline bool app_op_is_sort(app_op op) { return op == APP_SELECTION || op == APP_QUICK; }

/* The data one op works on: a sort's n integers, or a matrix op's two
 * operands of side × side. */
typedef struct {
    app_op op;
    size_t n;     /* sorts: integers */
    size_t side;  /* matrices: rows and columns */
} app_shape;

/* Integers of input (the operands) and of output (a sort sorts its input
 * in place: 0; a matrix op writes C). */
size_t app_input_len(const app_shape *s);
size_t app_output_len(const app_shape *s);

/* Fill input (app_input_len integers) with values in [-APP_VALUE_MAX,
 * APP_VALUE_MAX], the same for the same seed. */
void app_fill(const app_shape *s, int32_t *input, uint64_t seed);

/* Do the op: sort data (n integers) in place, or write C (output) from the
 * operands in data. Gives up between passes once *stop is set (the run
 * ended): the result is then incomplete and returns false; true when the
 * op ran to its end. */
bool app_run(const app_shape *s, int32_t *data, int32_t *output, const atomic_bool *stop);

/* An order-independent digest of a multiset of integers: two arrays have
 * the same one when one is a permutation of the other (and, but for a
 * 2^-64 chance, only then). */
uint64_t app_multiset_digest(const int32_t *a, size_t n);

/* What app_check found wrong with a result; APP_RESULT_OK when nothing. */
typedef enum {
    APP_RESULT_OK,
    APP_RESULT_UNSORTED,         /* a sort's output is out of order */
    APP_RESULT_NOT_PERMUTATION,  /* a sort's output is not its input's integers */
    APP_RESULT_WRONG_MATRIX      /* a matrix result differs from the reference */
} app_result;

const char *app_result_text(app_result r);

/* The reference a result is checked against, made once from the input: a
 * sort's digest, or a matrix op's result (reference: app_output_len
 * integers, owned by the caller). */
typedef struct {
    uint64_t digest;
    const int32_t *matrix;
} app_reference;

/* Check one result: a sort's data (sorted, and a permutation of the input
 * whose digest ref holds), or a matrix op's output (equal to ref's). */
app_result app_check(const app_shape *s, const int32_t *data, const int32_t *output, const app_reference *ref);

#endif
