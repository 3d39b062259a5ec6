/*
 * The crypto benches' library when the probe is built with CRYPTO=wolfcrypt:
 * wolfSSL's wolfCrypt, the library of the board study's benchmark, through
 * its own API (wc_*). AES and SHA-256 keep their state in the session, keyed
 * once; ChaCha20-Poly1305's one-shot calls take the key with each message,
 * as wolfCrypt's own benchmark calls them.
 */
#include <stdio.h>
#include <string.h>

#include "crypto.h"

#ifdef RTS_HAVE_WOLFCRYPT

#include <wolfssl/options.h>

#include <wolfssl/ssl.h>
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/chacha20_poly1305.h>
#include <wolfssl/wolfcrypt/sha256.h>

#include "rtscope/port.h"

/* Which wolfCrypt calls a session makes: found from the bench id once, at
 * open, not compared again with every message. */
typedef enum { WOLF_AES_CBC, WOLF_AES_GCM, WOLF_SHA256, WOLF_CHACHA20_POLY1305, WOLF_UNKNOWN } wolf_algorithm;

struct crypto_session {
    const crypto_algorithm *alg;
    wolf_algorithm which;
    Aes enc, dec;                    /* AES: keyed once (GCM uses enc both ways) */
    bool enc_ready, dec_ready;       /* initialised, so freed */
    wc_Sha256 sha;
    uint8_t key[CRYPTO_MAX_KEY_BYTES]; /* ChaCha20-Poly1305: given with each message */
};

const char *crypto_library_name(void)
{
    return "wolfcrypt";
}

long crypto_library_version(const crypto_session *s)
{
    (void)s;
    /* 0xMMMmmmppp packed as 0x05005004 for 5.5.4: major, then three hex digits each. */
    unsigned long hex = wolfSSL_lib_version_hex();
    return (long)(hex >> 24) * 10000 + (long)((hex >> 12) & 0xfff) * 100 + (long)(hex & 0xfff);
}

/* Initialise aes and key it for alg in one direction; false on the library's failure. */
static bool key_aes(Aes *aes, bool *ready, const crypto_algorithm *alg, const uint8_t *key, int direction)
{
    if (wc_AesInit(aes, NULL, INVALID_DEVID) != 0)
        return false;
    *ready = true;
    if (alg->kind == CRYPTO_AEAD)
        return wc_AesGcmSetKey(aes, key, (word32)alg->key_bytes) == 0;
    return wc_AesSetKey(aes, key, (word32)alg->key_bytes, NULL, direction) == 0;
}

static wolf_algorithm wolf_algorithm_of(const char *bench_id)
{
    static const char *const ids[] = { CRYPTO_ID_AES128_CBC, CRYPTO_ID_AES128_GCM, CRYPTO_ID_SHA256,
                                       CRYPTO_ID_CHACHA20_POLY1305 };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (strcmp(bench_id, ids[i]) == 0)
            return (wolf_algorithm)i;
    return WOLF_UNKNOWN;
}

crypto_session *crypto_open(const crypto_algorithm *alg, const uint8_t *key, char *why, size_t whysize)
{
    crypto_session *s = rts_heap_calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, whysize, "%s: out of memory for a wolfCrypt session", alg->title);
        return NULL;
    }
    s->alg = alg;
    s->which = wolf_algorithm_of(alg->bench_id);
    bool ok = alg->key_bytes <= sizeof s->key;
    if (ok)
        memcpy(s->key, key, alg->key_bytes);
    switch (s->which) {
    case WOLF_SHA256:           /* a digest starts afresh with each message */
    case WOLF_CHACHA20_POLY1305: /* the key goes with each message */
        break;
    case WOLF_AES_GCM:
        ok = ok && key_aes(&s->enc, &s->enc_ready, alg, key, AES_ENCRYPTION);
        break;
    case WOLF_AES_CBC:
        ok = ok && key_aes(&s->enc, &s->enc_ready, alg, key, AES_ENCRYPTION) &&
             key_aes(&s->dec, &s->dec_ready, alg, key, AES_DECRYPTION);
        break;
    case WOLF_UNKNOWN:
        ok = false;
        break;
    }
    if (!ok) {
        snprintf(why, whysize, "%s: wolfSSL %s has no %s (or could not key it)", alg->title, wolfSSL_lib_version(),
                 alg->title);
        crypto_close(s);
        return NULL;
    }
    return s;
}

bool crypto_encrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, uint8_t tag[CRYPTO_TAG_BYTES])
{
    switch (s->which) {
    case WOLF_SHA256:
        return wc_InitSha256(&s->sha) == 0 && wc_Sha256Update(&s->sha, in, (word32)len) == 0 &&
               wc_Sha256Final(&s->sha, out) == 0;
    case WOLF_AES_CBC:
        return wc_AesSetIV(&s->enc, iv) == 0 && wc_AesCbcEncrypt(&s->enc, out, in, (word32)len) == 0;
    case WOLF_AES_GCM:
        return wc_AesGcmEncrypt(&s->enc, out, in, (word32)len, iv, (word32)s->alg->iv_bytes, tag, CRYPTO_TAG_BYTES,
                                aad, (word32)aad_len) == 0;
    case WOLF_CHACHA20_POLY1305:
        return wc_ChaCha20Poly1305_Encrypt(s->key, iv, aad, (word32)aad_len, in, (word32)len, out, tag) == 0;
    case WOLF_UNKNOWN:
        break;
    }
    return false;
}

bool crypto_decrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, const uint8_t tag[CRYPTO_TAG_BYTES])
{
    switch (s->which) {
    case WOLF_AES_CBC:
        return wc_AesSetIV(&s->dec, iv) == 0 && wc_AesCbcDecrypt(&s->dec, out, in, (word32)len) == 0;
    case WOLF_AES_GCM:
        return wc_AesGcmDecrypt(&s->enc, out, in, (word32)len, iv, (word32)s->alg->iv_bytes, tag, CRYPTO_TAG_BYTES,
                                aad, (word32)aad_len) == 0;
    case WOLF_CHACHA20_POLY1305:
        return wc_ChaCha20Poly1305_Decrypt(s->key, iv, aad, (word32)aad_len, in, (word32)len, tag, out) == 0;
    case WOLF_SHA256: /* a digest is not decrypted */
    case WOLF_UNKNOWN:
        break;
    }
    return false;
}

void crypto_close(crypto_session *s)
{
    if (!s)
        return;
    if (s->enc_ready)
        wc_AesFree(&s->enc);
    if (s->dec_ready)
        wc_AesFree(&s->dec);
    rts_heap_free(s);
}

#endif
