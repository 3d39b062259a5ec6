/*
 * The crypto benches' library when the probe is built with CRYPTO=libcrypto
 * (the Makefile's default where pkg-config finds it): OpenSSL's libcrypto
 * (3.x) through EVP. EVP is what applications and `openssl speed -evp` call,
 * so the figures include its dispatch, as theirs do.
 *
 * libcrypto is loaded when a session opens (rts_library_open), not linked:
 * linked, it was mapped by every run of the probe, and under mlockall made
 * resident whole (4.6 MiB of a clock.read run's 8.7), crypto bench or not.
 * Its functions are called through pointers resolved then, with the types
 * of its headers; a call through one costs what a call through the
 * dynamic linker's table did.
 */
#include <stdio.h>
#include <string.h>

#include "crypto.h"

#ifdef RTS_HAVE_LIBCRYPTO

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "rtscope/port.h"

/* RTS_LIBCRYPTO_SONAME: the library's file, as the loader finds it (the Makefile reads its SONAME). */

/* The functions the benches call, each a field of the same name. */
#define LIBCRYPTO_FUNCTIONS(X)                                                                                    \
    X(OpenSSL_version) X(OPENSSL_version_major) X(OPENSSL_version_minor) X(OPENSSL_version_patch)                 \
    X(EVP_CIPHER_fetch) X(EVP_CIPHER_free) X(EVP_CIPHER_CTX_new) X(EVP_CIPHER_CTX_free)                           \
    X(EVP_CIPHER_CTX_set_padding) X(EVP_CIPHER_CTX_ctrl) X(EVP_CipherInit_ex) X(EVP_CipherUpdate)                 \
    X(EVP_CipherFinal_ex) X(EVP_MD_fetch) X(EVP_MD_free) X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestInit_ex) \
    X(EVP_DigestUpdate) X(EVP_DigestFinal_ex)

typedef struct {
#define LIBCRYPTO_FIELD(name) __typeof__(name) *name;
    LIBCRYPTO_FUNCTIONS(LIBCRYPTO_FIELD)
#undef LIBCRYPTO_FIELD
} libcrypto;

struct crypto_session {
    const crypto_algorithm *alg;
    rts_library *library;
    libcrypto lib;
    bool loaded;                 /* every function of lib resolved */
    EVP_CIPHER *cipher;          /* ciphers and AEADs */
    EVP_CIPHER_CTX *enc, *dec;   /* keyed once; each message sets its IV */
    EVP_MD *md;                  /* digests */
    EVP_MD_CTX *hash;
};

const char *crypto_library_name(void)
{
    return "openssl";
}

long crypto_library_version(const crypto_session *s)
{
    const libcrypto *lib = &s->lib;
    return (long)lib->OPENSSL_version_major() * 10000 + (long)lib->OPENSSL_version_minor() * 100 +
           (long)lib->OPENSSL_version_patch();
}

/* Load libcrypto into s and resolve its functions; false with why. */
static bool load(crypto_session *s, char *why, size_t whysize)
{
    if (rts_library_open(&s->library, RTS_LIBCRYPTO_SONAME, why, whysize) != RTS_OK)
        return false;
    /* A symbol's address copied into its typed pointer, as POSIX has dlsym's used. */
#define LIBCRYPTO_RESOLVE(name)                                                                                   \
    if (!(symbol = rts_library_symbol(s->library, #name))) {                                                      \
        snprintf(why, whysize, "%s has no %s", RTS_LIBCRYPTO_SONAME, #name);                                       \
        return false;                                                                                             \
    }                                                                                                             \
    memcpy(&s->lib.name, &symbol, sizeof symbol);
    void *symbol;
    LIBCRYPTO_FUNCTIONS(LIBCRYPTO_RESOLVE)
#undef LIBCRYPTO_RESOLVE
    s->loaded = true;
    return true;
}

/* Key ctx for alg in one direction; unpadded, so a message is exactly its blocks. */
static bool key_context(const libcrypto *lib, EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, const uint8_t *key,
                        int encrypt)
{
    return lib->EVP_CipherInit_ex(ctx, cipher, NULL, key, NULL, encrypt) == 1 &&
           lib->EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
}

/* Fetch alg and make its contexts (keyed, for a cipher); false when libcrypto cannot. */
static bool fetch(crypto_session *s, const uint8_t *key)
{
    const libcrypto *lib = &s->lib;
    const char *name = s->alg->library_name;
    /* Fetched once: a name given at each init would be looked up at each message. */
    if (s->alg->kind == CRYPTO_DIGEST)
        return (s->md = lib->EVP_MD_fetch(NULL, name, NULL)) && (s->hash = lib->EVP_MD_CTX_new());
    return (s->cipher = lib->EVP_CIPHER_fetch(NULL, name, NULL)) && (s->enc = lib->EVP_CIPHER_CTX_new()) &&
           (s->dec = lib->EVP_CIPHER_CTX_new()) && key_context(lib, s->enc, s->cipher, key, 1) &&
           key_context(lib, s->dec, s->cipher, key, 0);
}

crypto_session *crypto_open(const crypto_algorithm *alg, const uint8_t *key, char *why, size_t whysize)
{
    crypto_session *s = rts_heap_calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, whysize, "%s: out of memory for a libcrypto session", alg->title);
        return NULL;
    }
    s->alg = alg;
    if (!load(s, why, whysize)) {
        crypto_close(s);
        return NULL;
    }
    if (!fetch(s, key)) {
        snprintf(why, whysize, "%s: %s has no %s (or could not key it)", alg->title,
                 s->lib.OpenSSL_version(OPENSSL_VERSION), alg->library_name);
        crypto_close(s);
        return NULL;
    }
    return s;
}

/* One message through ctx (keyed for its direction): its IV, its AAD, its
 * data, its end. An AEAD's tag is set before decrypting ends (the end then
 * verifies it) and read after encrypting ends. */
static bool cipher_message(const crypto_session *s, EVP_CIPHER_CTX *ctx, bool encrypt, const uint8_t *iv,
                           const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                           uint8_t *tag)
{
    const libcrypto *lib = &s->lib;
    int n = 0, last = 0;
    bool aead = s->alg->kind == CRYPTO_AEAD;
    bool ok = lib->EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, encrypt) == 1;
    ok = ok && (aad_len == 0 || lib->EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aad_len) == 1);
    ok = ok && lib->EVP_CipherUpdate(ctx, out, &n, in, (int)len) == 1;
    ok = ok && (encrypt || !aead || lib->EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, CRYPTO_TAG_BYTES, tag) == 1);
    ok = ok && lib->EVP_CipherFinal_ex(ctx, out + n, &last) == 1;
    ok = ok && (!encrypt || !aead || lib->EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, CRYPTO_TAG_BYTES, tag) == 1);
    return ok && (size_t)(n + last) == len;
}

bool crypto_encrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, uint8_t tag[CRYPTO_TAG_BYTES])
{
    const libcrypto *lib = &s->lib;
    if (s->alg->kind == CRYPTO_DIGEST)
        return lib->EVP_DigestInit_ex(s->hash, s->md, NULL) == 1 && lib->EVP_DigestUpdate(s->hash, in, len) == 1 &&
               lib->EVP_DigestFinal_ex(s->hash, out, NULL) == 1;
    return cipher_message(s, s->enc, true, iv, aad, aad_len, in, len, out, tag);
}

bool crypto_decrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, const uint8_t tag[CRYPTO_TAG_BYTES])
{
    /* EVP's tag control takes a non-const pointer; setting a tag only reads it. */
    uint8_t expected[CRYPTO_TAG_BYTES];
    for (size_t i = 0; tag && i < sizeof expected; i++)
        expected[i] = tag[i];
    return s->alg->kind != CRYPTO_DIGEST && cipher_message(s, s->dec, false, iv, aad, aad_len, in, len, out, expected);
}

void crypto_close(crypto_session *s)
{
    if (!s)
        return;
    if (s->loaded) { /* else nothing was made */
        s->lib.EVP_CIPHER_CTX_free(s->enc);
        s->lib.EVP_CIPHER_CTX_free(s->dec);
        s->lib.EVP_CIPHER_free(s->cipher);
        s->lib.EVP_MD_CTX_free(s->hash);
        s->lib.EVP_MD_free(s->md);
    }
    rts_library_close(s->library);
    rts_heap_free(s);
}

#endif
