/* The crypto benches' known-answer check: every published vector passes
 * through the build's library, and a vector with one wrong byte — in the
 * output, the tag or the key — is caught with the reason. A build without a
 * library says, for each algorithm, that it is not available. */
#include <string.h>

#include "check.h"
#include "crypto.h"

/* Copy of hex with its character at index flipped to another hex digit. */
static const char *one_digit_changed(char *buf, size_t size, const char *hex, size_t index)
{
    snprintf(buf, size, "%s", hex);
    buf[index] = buf[index] == '0' ? '1' : '0';
    return buf;
}

static void test_published_vectors_pass(void)
{
    for (size_t i = 0; i < crypto_algorithm_count; i++) {
        const crypto_algorithm *alg = &crypto_algorithms[i];
        char why[256] = "";
        CHECK(crypto_check_vector(alg, &alg->vector, why, sizeof why), "%s: %s", alg->title, why);
    }
}

static void test_a_wrong_vector_is_caught(void)
{
    for (size_t i = 0; i < crypto_algorithm_count; i++) {
        const crypto_algorithm *alg = &crypto_algorithms[i];
        char buf[300], why[256] = "";
        crypto_vector wrong = alg->vector;
        wrong.output = one_digit_changed(buf, sizeof buf, alg->vector.output, 9);
        CHECK(!crypto_check_vector(alg, &wrong, why, sizeof why), "%s: a wrong output passed", alg->title);
        CHECK(strstr(why, "output differs") && strstr(why, "at byte 4"), "%s: reason '%s'", alg->title, why);
        if (alg->kind == CRYPTO_AEAD) {
            wrong = alg->vector;
            wrong.tag = one_digit_changed(buf, sizeof buf, alg->vector.tag, 0);
            CHECK(!crypto_check_vector(alg, &wrong, why, sizeof why) && strstr(why, "tag differs"),
                  "%s: a wrong tag: '%s'", alg->title, why);
        }
        if (alg->key_bytes) {
            wrong = alg->vector;
            wrong.key = one_digit_changed(buf, sizeof buf, alg->vector.key, 0);
            CHECK(!crypto_check_vector(alg, &wrong, why, sizeof why), "%s: a wrong key passed", alg->title);
        }
        wrong = alg->vector;
        wrong.output = "abc";
        CHECK(!crypto_check_vector(alg, &wrong, why, sizeof why) && strstr(why, "malformed"),
              "%s: malformed hex: '%s'", alg->title, why);
    }
}

static void test_without_a_library_each_says_so(void)
{
    for (size_t i = 0; i < crypto_algorithm_count; i++) {
        const crypto_algorithm *alg = &crypto_algorithms[i];
        char why[256] = "";
        CHECK(!crypto_check_vector(alg, &alg->vector, why, sizeof why) && strstr(why, "not in this build"),
              "%s: '%s'", alg->title, why);
    }
}

int main(void)
{
    if (crypto_library_name()) {
        test_published_vectors_pass();
        test_a_wrong_vector_is_caught();
    } else {
        test_without_a_library_each_says_so();
    }
    return check_report("test_crypto");
}
