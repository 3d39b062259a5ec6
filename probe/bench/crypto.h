/*
 * The crypto throughput benches (bench/crypto.c) and what they stand on:
 * the table of algorithms with their published known answers
 * (bench/crypto_algorithms.c), and the library that computes them, chosen
 * when the probe is built (bench/crypto_libcrypto.c: OpenSSL's libcrypto
 * when the Makefile found it, else nothing — the benches then say they are
 * not available in this build).
 *
 * One message is one buffer: a cipher starts it with its own IV (an AEAD
 * authenticates a record header with it and ends it with its tag), a digest
 * hashes it whole. That is what an
 * application encrypting packets of that size pays.
 */
#ifndef RTSCOPE_CRYPTO_H
#define RTSCOPE_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    CRYPTO_CIPHER, /* encrypt whole blocks, unpadded (AES-CBC) */
    CRYPTO_AEAD,   /* encrypt and authenticate: a tag per message */
    CRYPTO_DIGEST  /* hash: a digest per message */
} crypto_kind;

#define CRYPTO_MAX_KEY_BYTES 32
#define CRYPTO_MAX_IV_BYTES 16
#define CRYPTO_TAG_BYTES 16    /* the AEADs' tag */
#define CRYPTO_MAX_DIGEST_BYTES 32
#define CRYPTO_MAX_VECTOR_BYTES 128

/* A known answer from the algorithm's standard, in hex as published; an
 * empty string where the algorithm has no such input (no IV for a digest). */
typedef struct {
    const char *source;   /* where it is published */
    const char *key, *iv, *aad, *input, *output, *tag;
} crypto_vector;

/* The benches' ids, also their metrics'. */
#define CRYPTO_ID_AES128_CBC "crypto.aes128_cbc"
#define CRYPTO_ID_AES128_GCM "crypto.aes128_gcm"
#define CRYPTO_ID_SHA256 "crypto.sha256"
#define CRYPTO_ID_CHACHA20_POLY1305 "crypto.chacha20_poly1305"

typedef struct {
    const char *bench_id;     /* also the metric's id: "crypto.aes128_gcm" */
    const char *title;        /* "AES-128-GCM" */
    const char *library_name; /* the library's name for it, as openssl speed -evp takes it */
    crypto_kind kind;
    size_t key_bytes, iv_bytes;
    size_t block_bytes;       /* a message's length is a multiple of it */
    size_t output_bytes;      /* digests: the digest; ciphers: 0 (as long as the input) */
    crypto_vector vector;
} crypto_algorithm;

/* The algorithms, in the order of the benches. */
extern const crypto_algorithm crypto_algorithms[];
extern const size_t crypto_algorithm_count;

/* ---- the library (one backend per build) ---- */

typedef struct crypto_session crypto_session;

/* The library's name, one word ("openssl"), or NULL when this build has none. */
const char *crypto_library_name(void);

/* The version of the library session s loaded at run time as major × 10000
 * + minor × 100 + patch (OpenSSL 3.0.19: 30019), or 0 when this build has none. */
long crypto_library_version(const crypto_session *s);

/* A session of alg keyed with key (alg->key_bytes), or NULL with the reason
 * in why (also when this build has no library). Close it with crypto_close. */
crypto_session *crypto_open(const crypto_algorithm *alg, const uint8_t *key, char *why, size_t whysize);

/* Process one message of len bytes (a multiple of alg->block_bytes): encrypt
 * in into out (len bytes) with iv (alg->iv_bytes) and aad (aad_len bytes,
 * AEADs only), writing an AEAD's tag into tag; or hash in into out
 * (alg->output_bytes; iv, aad and tag unused). False when the library failed. */
bool crypto_encrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, uint8_t tag[CRYPTO_TAG_BYTES]);

/* Decrypt one message encrypted by crypto_encrypt (ciphers and AEADs only).
 * False when the library failed or, for an AEAD, the tag does not match. */
bool crypto_decrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, const uint8_t tag[CRYPTO_TAG_BYTES]);

/* Release s (NULL is fine). */
void crypto_close(crypto_session *s);

/* ---- known answers ---- */

/* Compute vector v with alg through the library and compare with its
 * published output and tag; ciphers also decrypt it back to its input.
 * False with the reason in why (which byte differs, or the library's
 * failure). */
bool crypto_check_vector(const crypto_algorithm *alg, const crypto_vector *v, char *why, size_t whysize);

#endif
