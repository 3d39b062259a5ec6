/*
 * The crypto benches' algorithms and their known answers: published test
 * vectors, typed in from the standards named beside each, checked through
 * the library before anything is timed (a library, or a build of it, that
 * computes something else is caught before its speed is reported).
 */
#include <stdio.h>
#include <string.h>

#include "crypto.h"

const crypto_algorithm crypto_algorithms[] = {
    { CRYPTO_ID_AES128_CBC, "AES-128-CBC", "aes-128-cbc", CRYPTO_CIPHER, 16, 16, 16, 0, {
        "NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt)",
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "",
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
        "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
        "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        "" } },
    { CRYPTO_ID_AES128_GCM, "AES-128-GCM", "aes-128-gcm", CRYPTO_AEAD, 16, 12, 1, 0, {
        "GCM specification test case 3 (McGrew and Viega, as used by NIST SP 800-38D validation)",
        "feffe9928665731c6d6a8f9467308308",
        "cafebabefacedbaddecaf888",
        "",
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
        "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
        "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
        "4d5c2af327cd64a62cf35abd2ba6fab4" } },
    { CRYPTO_ID_SHA256, "SHA-256", "sha256", CRYPTO_DIGEST, 0, 0, 1, 32, {
        "FIPS 180-2 appendix B.2 (the 448-bit message)",
        "",
        "",
        "",
        "6162636462636465636465666465666765666768666768696768696a68696a6b"
        "696a6b6c6a6b6c6d6b6c6d6e6c6d6e6f6d6e6f706e6f7071",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "" } },
    { CRYPTO_ID_CHACHA20_POLY1305, "ChaCha20-Poly1305", "chacha20-poly1305", CRYPTO_AEAD, 32, 12, 1, 0, {
        "RFC 8439 section 2.8.2",
        "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
        "070000004041424344454647",
        "50515253c0c1c2c3c4c5c6c7",
        "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
        "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
        "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
        "637265656e20776f756c642062652069742e",
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
        "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
        "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
        "3ff4def08e4b7a9de576d26586cec64b6116",
        "1ae10b594f09e26a7e902ecbd0600691" } },
};
const size_t crypto_algorithm_count = sizeof crypto_algorithms / sizeof crypto_algorithms[0];

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decode hex (lower case, even length) into out (room for cap bytes);
 * returns the bytes written, or -1 when hex is not such text or too long. */
static long decode_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

/* The first byte where got differs from want (n bytes each), or -1. */
static long first_difference(const uint8_t *got, const uint8_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return (long)i;
    return -1;
}

/* A vector's fields, decoded. */
typedef struct {
    uint8_t key[CRYPTO_MAX_KEY_BYTES], iv[CRYPTO_MAX_IV_BYTES], tag[CRYPTO_TAG_BYTES];
    uint8_t aad[CRYPTO_MAX_VECTOR_BYTES], input[CRYPTO_MAX_VECTOR_BYTES], output[CRYPTO_MAX_VECTOR_BYTES];
    long key_len, iv_len, tag_len, aad_len, input_len, output_len;
} decoded_vector;

/* Decode v for alg; false with the reason when a field is malformed or its
 * length is not the algorithm's (a typing slip in the table). */
static bool decode_vector(const crypto_algorithm *alg, const crypto_vector *v, decoded_vector *d, char *why,
                          size_t whysize)
{
    d->key_len = decode_hex(v->key, d->key, sizeof d->key);
    d->iv_len = decode_hex(v->iv, d->iv, sizeof d->iv);
    d->tag_len = decode_hex(v->tag, d->tag, sizeof d->tag);
    d->aad_len = decode_hex(v->aad, d->aad, sizeof d->aad);
    d->input_len = decode_hex(v->input, d->input, sizeof d->input);
    d->output_len = decode_hex(v->output, d->output, sizeof d->output);
    size_t want_output = alg->kind == CRYPTO_DIGEST ? alg->output_bytes : (size_t)d->input_len;
    size_t want_tag = alg->kind == CRYPTO_AEAD ? CRYPTO_TAG_BYTES : 0;
    if (d->key_len != (long)alg->key_bytes || d->iv_len != (long)alg->iv_bytes || d->tag_len != (long)want_tag ||
        d->aad_len < 0 || d->input_len < 0 || d->output_len != (long)want_output ||
        d->input_len % (long)alg->block_bytes) {
        snprintf(why, whysize, "%s: the known answer of %s is malformed (a field's hex or length is wrong)",
                 alg->title, v->source);
        return false;
    }
    return true;
}

/* Compare got with the published want (n bytes) under name; false with the reason. */
static bool same_bytes(const crypto_algorithm *alg, const crypto_vector *v, const char *name, const uint8_t *got,
                       const uint8_t *want, size_t n, char *why, size_t whysize)
{
    long at = first_difference(got, want, n);
    if (at >= 0)
        snprintf(why, whysize, "%s: the %s differs from the known answer of %s at byte %ld (0x%02x, not 0x%02x)",
                 alg->title, name, v->source, at, got[at], want[at]);
    return at < 0;
}

bool crypto_check_vector(const crypto_algorithm *alg, const crypto_vector *v, char *why, size_t whysize)
{
    decoded_vector d;
    if (!decode_vector(alg, v, &d, why, whysize))
        return false;
    crypto_session *s = crypto_open(alg, d.key, why, whysize);
    if (!s)
        return false;
    uint8_t out[CRYPTO_MAX_VECTOR_BYTES], back[CRYPTO_MAX_VECTOR_BYTES], tag[CRYPTO_TAG_BYTES];
    bool ok = crypto_encrypt(s, d.iv, d.aad, (size_t)d.aad_len, d.input, (size_t)d.input_len, out, tag);
    if (!ok)
        snprintf(why, whysize, "%s: the library failed on the known answer of %s", alg->title, v->source);
    ok = ok && same_bytes(alg, v, "output", out, d.output, (size_t)d.output_len, why, whysize);
    ok = ok && (alg->kind != CRYPTO_AEAD || same_bytes(alg, v, "tag", tag, d.tag, CRYPTO_TAG_BYTES, why, whysize));
    if (ok && alg->kind != CRYPTO_DIGEST) {
        ok = crypto_decrypt(s, d.iv, d.aad, (size_t)d.aad_len, d.output, (size_t)d.output_len, back, d.tag);
        if (!ok)
            snprintf(why, whysize, "%s: decrypting the known answer of %s failed", alg->title, v->source);
        ok = ok && same_bytes(alg, v, "decrypted output", back, d.input, (size_t)d.input_len, why, whysize);
    }
    crypto_close(s);
    return ok;
}
