/*
 * The crypto benches' library in a build without one (CRYPTO=none: the
 * static, cross, small and RTOS builds, or a machine without a library):
 * every session fails, so the crypto benches are listed but say in one line
 * that they are not available in this build.
 */
#include <stdio.h>

#include "crypto.h"

#if !defined(RTS_HAVE_LIBCRYPTO) && !defined(RTS_HAVE_WOLFCRYPT)

const char *crypto_library_name(void)
{
    return NULL;
}

long crypto_library_version(const crypto_session *s)
{
    (void)s;
    return 0;
}

crypto_session *crypto_open(const crypto_algorithm *alg, const uint8_t *key, char *why, size_t whysize)
{
    (void)key;
    snprintf(why, whysize, "%s: not in this build of the probe (built without a crypto library)",
             alg->title);
    return NULL;
}

bool crypto_encrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, uint8_t tag[CRYPTO_TAG_BYTES])
{
    (void)s, (void)iv, (void)aad, (void)aad_len, (void)in, (void)len, (void)out, (void)tag;
    return false;
}

bool crypto_decrypt(crypto_session *s, const uint8_t *iv, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, const uint8_t tag[CRYPTO_TAG_BYTES])
{
    (void)s, (void)iv, (void)aad, (void)aad_len, (void)in, (void)len, (void)out, (void)tag;
    return false;
}

void crypto_close(crypto_session *s)
{
    (void)s;
}

#endif
