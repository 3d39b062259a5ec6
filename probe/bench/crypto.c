/*
 * crypto.* — how fast the crypto library this probe was built with
 * encrypts, authenticates or hashes messages of size bytes (bench/crypto.h):
 * crypto.aes128_cbc, crypto.aes128_gcm, crypto.sha256 and
 * crypto.chacha20_poly1305, one bench per algorithm of crypto_algorithms[].
 *
 * One sample is the throughput of one batch of messages (at least
 * SAMPLE_BYTES, so that the two clock reads around it weigh nothing even for
 * 16-byte messages) in bytes of message per second: the distribution shows
 * what interference does to it, as the latency benches' do. Before anything
 * is timed the library must reproduce the algorithm's published known
 * answer; after, the last message timed is decrypted back (or its digest
 * compared with one taken before timing), so a loop the compiler or the
 * library skipped is caught. The library's name is the metric's label, its
 * version a check.
 */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "crypto.h"

#define SAMPLE_BYTES (256u * 1024) /* message bytes per sample, at least */
#define MAX_MESSAGE_BYTES (16u << 20)
/* An AEAD message authenticates a TLS 1.2 record's 13-byte header with its
 * data (sequence number, type, version, length), as a protocol does and as
 * openssl speed -aead times it. */
#define RECORD_HEADER_BYTES 13

typedef struct {
    rts_ctx *ctx;
    const crypto_algorithm *alg;
    crypto_session *session;
    rts_metric *m;
    size_t size;             /* bytes per message */
    uint64_t batch;          /* messages per sample */
    uint64_t warmup, count;  /* batches before recording; samples to record (0: the duration's) */
    uint8_t *in, *out;
    uint8_t iv[CRYPTO_MAX_IV_BYTES], tag[CRYPTO_TAG_BYTES];
    uint8_t header[RECORD_HEADER_BYTES]; /* an AEAD's additional data */
    size_t header_len;       /* RECORD_HEADER_BYTES for an AEAD, else 0 */
    uint64_t messages, failures;
    uint64_t timed_ns;       /* over the recorded samples */
} crypto_state;

/* Each message gets an IV of its own, as a protocol's counter gives it,
 * and an AEAD's the header of its record (the counter as its sequence
 * number, application data, TLS 1.2, its length's low 16 bits: a
 * message may be longer than a record). */
static void next_message(crypto_state *s)
{
    memcpy(s->iv, &s->messages, sizeof s->messages < s->alg->iv_bytes ? sizeof s->messages : s->alg->iv_bytes);
    if (!s->header_len)
        return;
    for (int i = 0; i < 8; i++)
        s->header[i] = (uint8_t)(s->messages >> (56 - 8 * i));
    s->header[8] = 0x17;
    s->header[9] = 0x03;
    s->header[10] = 0x03;
    s->header[11] = (uint8_t)(s->size >> 8);
    s->header[12] = (uint8_t)s->size;
}

/* One batch of messages, in[] to out[] (overwritten by each). */
static void run_batch(crypto_state *s)
{
    for (uint64_t i = 0; i < s->batch; i++) {
        next_message(s);
        s->failures += !crypto_encrypt(s->session, s->iv, s->header, s->header_len, s->in, s->size, s->out, s->tag);
        s->messages++;
    }
}

static void measurer(void *p)
{
    crypto_state *s = p;
    for (uint64_t i = 0; s->failures == 0 && bench_more(s->ctx, i, s->warmup, s->count); i++) {
        /* 1. One batch between two clock reads. */
        uint64_t t0 = rts_time_ns();
        run_batch(s);
        uint64_t t1 = rts_time_ns();
        /* 2. Its throughput, once warm. */
        if (i >= s->warmup && t1 > t0) {
            rts_metric_add(s->m, (double)(s->batch * s->size) * 1e9 / (double)(t1 - t0));
            s->timed_ns += t1 - t0;
        }
    }
    rts_ctx_stop(s->ctx);
}

/* Whether the last message timed (its IV still in s->iv, its output in out)
 * is what the library computes untimed: decrypted back to in, or the
 * digest of in. */
static bool last_message_verified(crypto_state *s)
{
    if (s->messages == 0)
        return false;
    if (s->alg->kind == CRYPTO_DIGEST) {
        uint8_t digest[CRYPTO_MAX_DIGEST_BYTES];
        return crypto_encrypt(s->session, NULL, NULL, 0, s->in, s->size, digest, NULL) &&
               memcmp(digest, s->out, s->alg->output_bytes) == 0;
    }
    uint8_t *again = rts_heap_alloc(s->size);
    bool ok = again && crypto_decrypt(s->session, s->iv, s->header, s->header_len, s->out, s->size, again, s->tag) &&
              memcmp(again, s->in, s->size) == 0;
    rts_heap_free(again);
    return ok;
}

static void record_checks(crypto_state *s)
{
    rts_metric_check_int(s->m, "library_version", crypto_library_version(s->session));
    rts_metric_check_bool(s->m, "known_answer", true);
    rts_metric_check_int(s->m, "messages", (long long)s->messages);
    rts_metric_check_int(s->m, "batch", (long long)s->batch);
    /* All recorded bytes over all recorded time: what openssl speed reports. */
    uint64_t recorded = s->m->values.n;
    if (s->timed_ns)
        rts_metric_check_double(s->m, "overall_bytes_per_s",
                                (double)(recorded * s->batch * s->size) * 1e9 / (double)s->timed_ns);
    bool verified = last_message_verified(s);
    rts_metric_check_bool(s->m, "last_message_verified", verified);
    if (s->failures)
        rts_metric_invalidate(s->m, "the library failed on %llu of %llu messages", (unsigned long long)s->failures,
                              (unsigned long long)s->messages);
    else if (!verified)
        rts_metric_invalidate(s->m, "the last message timed does not decrypt back (or hash again) to its input");
}

/* The algorithm of bench id, or NULL. */
static const crypto_algorithm *find_algorithm(const char *id)
{
    for (size_t i = 0; i < crypto_algorithm_count; i++)
        if (strcmp(crypto_algorithms[i].bench_id, id) == 0)
            return &crypto_algorithms[i];
    return NULL;
}

/* Whether the algorithm of bench id takes messages of the size asked: a
 * cipher without padding takes whole blocks (the runner's check of the
 * parameters, before anything runs). */
static bool size_ok(const rts_ctx *ctx, const char *id, char *why, size_t whysize)
{
    const crypto_algorithm *alg = find_algorithm(id);
    size_t size = (size_t)rts_ctx_param(ctx, "size");
    if (!alg || size % alg->block_bytes == 0)
        return true;
    snprintf(why, whysize, "size %zu: %s takes whole %zu-byte blocks (unpadded); give a multiple of %zu", size,
             alg->title, alg->block_bytes, alg->block_bytes);
    return false;
}

/* The known answer, before anything is allocated or timed; false after
 * rts_ctx_fail. */
static bool ready(crypto_state *s)
{
    char why[RTS_MESSAGE_TEXT];
    if (!crypto_check_vector(s->alg, &s->alg->vector, why, sizeof why)) {
        rts_ctx_fail(s->ctx, "%s", why);
        return false;
    }
    return true;
}

/* Key a session and fill the message with a pattern; false after rts_ctx_fail. */
static bool prepare(crypto_state *s)
{
    char why[RTS_MESSAGE_TEXT];
    uint8_t key[CRYPTO_MAX_KEY_BYTES];
    for (size_t i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(0x5a ^ i);
    s->session = crypto_open(s->alg, key, why, sizeof why);
    if (!s->session) {
        rts_ctx_fail(s->ctx, "%s", why);
        return false;
    }
    size_t out_bytes = s->alg->kind == CRYPTO_DIGEST ? s->alg->output_bytes : s->size;
    s->in = rts_heap_alloc(s->size);
    s->out = rts_heap_alloc(out_bytes);
    if (!s->in || !s->out) {
        rts_ctx_fail(s->ctx, "out of memory for a %zu-byte message and its output", s->size);
        return false;
    }
    for (size_t i = 0; i < s->size; i++)
        s->in[i] = (uint8_t)(i * 131 + 7);
    return true;
}

/* The metric, labelled with the message size and the library; NULL after rts_ctx_fail. */
static rts_metric *throughput_metric(crypto_state *s)
{
    rts_metric *m = rts_ctx_metric_unit(s->ctx, s->alg->bench_id,
                                        "message bytes per second over one batch of size-byte messages",
                                        RTS_UNIT_BYTES_PER_S, 1000);
    if (m) {
        rts_metric_label_int(m, "size", (long long)s->size);
        rts_metric_label_text(m, "library", crypto_library_name());
    }
    return m;
}

/* Whether the build's library has the algorithm: a session of it opens
 * (never where the build has no library). */
static bool library_has(const char *id, char *why, size_t whysize)
{
    static const uint8_t key[CRYPTO_MAX_KEY_BYTES];
    crypto_session *session = crypto_open(find_algorithm(id), key, why, whysize);
    crypto_close(session);
    return session != NULL;
}

static int measure(rts_ctx *ctx, const char *id)
{
    const crypto_algorithm *alg = find_algorithm(id);
    if (!alg) {
        rts_ctx_fail(ctx, "%s is not in the table of crypto algorithms", id);
        return 1;
    }
    crypto_state s = { .ctx = ctx, .alg = alg, .size = (size_t)rts_ctx_param(ctx, "size"),
                       .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                       .count = (uint64_t)rts_ctx_param(ctx, "count"),
                       .header_len = alg->kind == CRYPTO_AEAD ? RECORD_HEADER_BYTES : 0 };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    s.batch = (SAMPLE_BYTES + s.size - 1) / s.size;
    bool ran = ready(&s) && prepare(&s) && (s.m = throughput_metric(&s)) &&
               bench_run_measurer(ctx, "crypto", cpu, 0, measurer, &s, s.m);
    if (ran)
        record_checks(&s);
    crypto_close(s.session);
    rts_heap_free(s.in);
    rts_heap_free(s.out);
    return ran ? 0 : 1;
}

#define CRYPTO_BENCH(id_, title_, name_)                                                                      \
    {                                                                                                             \
        .id = id_, .summary = title_ ": bytes/s over messages of size bytes, through the build's crypto library", \
        .metrics = (const char *const[]){ id_, NULL }, .params = name_##_params,                                  \
        .nparams = sizeof name_##_params / sizeof name_##_params[0], .params_ok = name_##_ok,                    \
        .can_run = can_##name_, .run = run_##name_,                                                               \
    }

/* One bench per algorithm of crypto_algorithms[], found by its id, with
 * its own rule for size (size_ok checks it). */
#define CRYPTO_ENTRY_POINTS(id_, name_, size_help_)                                                         \
    static const rts_param_decl name_##_params[] = {                                                        \
        BENCH_PARAM_COUNT,                                                                                  \
        RTS_PARAM_CPU("the last CPU"),                                                                      \
        { "size", "16384", 16, MAX_MESSAGE_BYTES, true, size_help_ },                                       \
        { "warmup", "8", 0, 1e6, true, "batches (a sample's messages) processed before recording" },       \
    };                                                                                                      \
    static bool name_##_ok(const rts_ctx *ctx, char *why, size_t whysize) { return size_ok(ctx, id_, why, whysize); } \
    static bool can_##name_(const rts_ctx *ctx, char *why, size_t whysize) { (void)ctx; return library_has(id_, why, whysize); } \
    static int run_##name_(rts_ctx *ctx) { return measure(ctx, id_); }
CRYPTO_ENTRY_POINTS(CRYPTO_ID_AES128_CBC, aes128_cbc, "bytes per message: a multiple of 16 (whole AES blocks, unpadded)")
CRYPTO_ENTRY_POINTS(CRYPTO_ID_AES128_GCM, aes128_gcm, "bytes per message, 16 or more (a 13-byte header authenticated too)")
CRYPTO_ENTRY_POINTS(CRYPTO_ID_SHA256, sha256, "bytes per message hashed, 16 or more")
CRYPTO_ENTRY_POINTS(CRYPTO_ID_CHACHA20_POLY1305, chacha20_poly1305,
                    "bytes per message, 16 or more (a 13-byte header authenticated too)")

RTS_BENCH_DEFINE(rts_bench_crypto_aes128_cbc) = CRYPTO_BENCH(CRYPTO_ID_AES128_CBC, "AES-128-CBC", aes128_cbc);
RTS_BENCH_DEFINE(rts_bench_crypto_aes128_gcm) = CRYPTO_BENCH(CRYPTO_ID_AES128_GCM, "AES-128-GCM", aes128_gcm);
RTS_BENCH_DEFINE(rts_bench_crypto_sha256) = CRYPTO_BENCH(CRYPTO_ID_SHA256, "SHA-256", sha256);
RTS_BENCH_DEFINE(rts_bench_crypto_chacha20_poly1305) =
    CRYPTO_BENCH(CRYPTO_ID_CHACHA20_POLY1305, "ChaCha20-Poly1305", chacha20_poly1305);
