/*
 * The crypto benches' library when the probe is built with CRYPTO=libcrypto
 * (the Makefile's default where pkg-config finds it): OpenSSL's libcrypto
 * (3.x) through EVP. EVP is what applications and `openssl speed -evp` call,
 * so the figures include its dispatch, as theirs do.
 */
#include <stdio.h>

#include "crypto.h"

#ifdef RTS_HAVE_LIBCRYPTO

#include <openssl/crypto.h>
#include <openssl/evp.h>

struct crypto_session {
    const crypto_algorithm *alg;
    EVP_CIPHER *cipher;          /* ciphers and AEADs */
    EVP_CIPHER_CTX *enc, *dec;   /* keyed once; each message sets its IV */
    EVP_MD *md;                  /* digests */
    EVP_MD_CTX *hash;
};

const char *crypto_library_name(void)
{
    return "openssl";
}

long crypto_library_version(void)
{
    return (long)OPENSSL_version_major() * 10000 + (long)OPENSSL_version_minor() * 100 +
           (long)OPENSSL_version_patch();
}

/* Key ctx for alg in one direction; unpadded, so a message is exactly its blocks. */
static bool key_context(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, const uint8_t *key, int encrypt)
{
    return EVP_CipherInit_ex(ctx, cipher, NULL, key, NULL, encrypt) == 1 && EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
}

crypto_session *crypto_open(const crypto_algorithm *alg, const uint8_t *key, char *why, size_t whysize)
{
    crypto_session *s = OPENSSL_zalloc(sizeof *s);
    if (!s) {
        snprintf(why, whysize, "%s: out of memory for a libcrypto session", alg->title);
        return NULL;
    }
    s->alg = alg;
    bool ok;
    if (alg->kind == CRYPTO_DIGEST) {
        /* Fetched once: a name given at each init would be looked up at each message. */
        ok = (s->md = EVP_MD_fetch(NULL, alg->library_name, NULL)) && (s->hash = EVP_MD_CTX_new());
    } else {
        ok = (s->cipher = EVP_CIPHER_fetch(NULL, alg->library_name, NULL)) && (s->enc = EVP_CIPHER_CTX_new()) &&
             (s->dec = EVP_CIPHER_CTX_new()) && key_context(s->enc, s->cipher, key, 1) &&
             key_context(s->dec, s->cipher, key, 0);
    }
    if (!ok) {
        snprintf(why, whysize, "%s: %s has no %s (or could not key it)", alg->title,
                 OpenSSL_version(OPENSSL_VERSION), alg->library_name);
        crypto_close(s);
        return NULL;
    }
    return s;
}

/* One message through ctx (keyed for its direction): its IV, its AAD, its
 * data, its end. An AEAD's tag is set before decrypting ends (the end then
 * verifies it) and read after encrypting ends. */
static bool cipher_message(EVP_CIPHER_CTX *ctx, const crypto_algorithm *alg, bool encrypt, const uint8_t *iv,
                           const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                           uint8_t *tag)
{
    int n = 0, last = 0;
    bool aead = alg->kind == CRYPTO_AEAD;
    bool ok = EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, encrypt) == 1;
    ok = ok && (aad_len == 0 || EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aad_len) == 1);
    ok = ok && EVP_CipherUpdate(ctx, out, &n, in, (int)len) == 1;
    ok = ok && (encrypt || !aead || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, CRYPTO_TAG_BYTES, tag) == 1);
    ok = ok && EVP_CipherFinal_ex(ctx, out + n, &last) == 1;
    ok = ok && (!encrypt || !aead || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, CRYPTO_TAG_BYTES, tag) == 1);
    return ok && (size_t)(n + last) == len;
}

bool crypto_encrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, uint8_t tag[CRYPTO_TAG_BYTES])
{
    if (s->alg->kind == CRYPTO_DIGEST)
        return EVP_DigestInit_ex(s->hash, s->md, NULL) == 1 && EVP_DigestUpdate(s->hash, in, len) == 1 &&
               EVP_DigestFinal_ex(s->hash, out, NULL) == 1;
    return cipher_message(s->enc, s->alg, true, iv, aad, aad_len, in, len, out, tag);
}

bool crypto_decrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, const uint8_t tag[CRYPTO_TAG_BYTES])
{
    /* EVP's tag control takes a non-const pointer; setting a tag only reads it. */
    uint8_t expected[CRYPTO_TAG_BYTES];
    for (size_t i = 0; tag && i < sizeof expected; i++)
        expected[i] = tag[i];
    return s->alg->kind != CRYPTO_DIGEST &&
           cipher_message(s->dec, s->alg, false, iv, aad, aad_len, in, len, out, expected);
}

void crypto_close(crypto_session *s)
{
    if (!s)
        return;
    EVP_CIPHER_CTX_free(s->enc);
    EVP_CIPHER_CTX_free(s->dec);
    EVP_CIPHER_free(s->cipher);
    EVP_MD_CTX_free(s->hash);
    EVP_MD_free(s->md);
    OPENSSL_free(s);
}

#endif
