/* Reference for evaluation/crypto.sh: the loop `openssl speed -evp` runs, with no
 * rtscope code, timed by the process's CPU time as openssl speed times it.
 *   evp_loop NAME SIZE SECONDS [aead]
 * prints the bytes/s of NAME (an EVP cipher or digest name) over SIZE-byte
 * buffers: a digest hashes each buffer whole (EVP_Digest); a cipher
 * encrypts the buffers in place as one stream (EVP_EncryptUpdate); with
 * "aead", each buffer is a message as -aead makes it: its IV, a 13-byte AAD,
 * its data in place, its end. When this figure and openssl speed's differ,
 * the difference is in openssl speed's own reporting, not in the library. */
#define _POSIX_C_SOURCE 200809L
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One buffer as openssl speed processes it; false on the library's failure. */
static int one_buffer(EVP_CIPHER_CTX *ctx, const EVP_MD *md, int aead, unsigned char *buf, int size)
{
    static const unsigned char iv[16], aad[13] = { 0xcc };
    unsigned char digest[EVP_MAX_MD_SIZE];
    int outl = 0, last = 0;
    if (md)
        return EVP_Digest(buf, (size_t)size, digest, NULL, md, NULL);
    if (!aead)
        return EVP_EncryptUpdate(ctx, buf, &outl, buf, size);
    return EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) && EVP_EncryptUpdate(ctx, NULL, &outl, aad, sizeof aad) &&
           EVP_EncryptUpdate(ctx, buf, &outl, buf, size) && EVP_EncryptFinal_ex(ctx, buf + outl, &last);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "aead") != 0)) {
        fprintf(stderr, "usage: evp_loop NAME SIZE SECONDS [aead]\n");
        return 2;
    }
    int size = atoi(argv[2]), aead = argc == 5;
    double seconds = atof(argv[3]);
    static const unsigned char key[32] = { 0x5a };
    EVP_MD *md = EVP_MD_fetch(NULL, argv[1], NULL);
    EVP_CIPHER *cipher = md ? NULL : EVP_CIPHER_fetch(NULL, argv[1], NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char *buf = calloc(1, (size_t)size + 64);
    if ((!md && !cipher) || !ctx || !buf || size <= 0 || seconds <= 0 ||
        (cipher && !EVP_EncryptInit_ex(ctx, cipher, NULL, key, NULL))) {
        fprintf(stderr, "evp_loop: cannot run %s over %s bytes for %s s\n", argv[1], argv[2], argv[3]);
        return 1;
    }
    unsigned long long buffers = 0;
    double start = cpu_s(), used = 0;
    while (used < seconds) {
        for (int i = 0; i < 64; i++, buffers++)
            if (!one_buffer(ctx, md, aead, buf, size)) {
                fprintf(stderr, "evp_loop: %s failed\n", argv[1]);
                return 1;
            }
        used = cpu_s() - start;
    }
    printf("%.0f\n", (double)buffers * size / used);
    return 0;
}
