/* The serial link's frames and the board's end of its exchange
 * (boards/common/frame.c), over a line simulated here. */
#include <string.h>

#include "check.h"
#include "frame.h"

/* ------------------------------------------------------------ a line */

/* Bytes one way: what the board wrote, or what the host queued for it. */
typedef struct {
    uint8_t bytes[16384];
    size_t len, read;
} line;

static void line_put(line *l, const void *data, size_t n)
{
    memcpy(l->bytes + l->len, data, n);
    l->len += n;
}

static size_t encode(uint8_t *out, char type, uint16_t seq, const void *payload, uint16_t len)
{
    rts_frame_header(out, type, seq, len);
    memcpy(out + RTS_FRAME_HEADER_BYTES, payload, len);
    uint32_t crc = rts_frame_crc(out, payload, len);
    for (int i = 0; i < 4; i++)
        out[RTS_FRAME_HEADER_BYTES + len + i] = (uint8_t)(crc >> (8 * i));
    return RTS_FRAME_OVERHEAD + len;
}

/* Decode every frame of n bytes with a fresh decoder into frames (at most
 * max); how many. */
static int decode_all(rts_frame_decoder *d, uint8_t *buf, size_t cap, const uint8_t *bytes, size_t n,
                      rts_frame *frames, char payloads[][64], int max)
{
    rts_frame_decoder_init(d, buf, cap);
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        rts_frame_feed(d, bytes[i]);
        rts_frame f;
        while (rts_frame_next(d, &f) && count < max) {
            frames[count] = f;
            memcpy(payloads[count], f.payload, f.len < 63 ? f.len : 63);
            payloads[count][f.len < 63 ? f.len : 63] = '\0';
            count++;
        }
    }
    return count;
}

static void test_crc32_is_zlibs(void)
{
    CHECK(rts_crc32(0, "123456789", 9) == 0xCBF43926u, "check value");
    CHECK(rts_crc32(rts_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u, "continued");
    CHECK(rts_crc32(0, "", 0) == 0, "empty");
}

static void test_frames_are_found_among_noise(void)
{
    uint8_t stream[512], buf[256];
    size_t n = 0;
    const char noise[] = "boot banner \xA5 then text \xA5\x5A not a frame\n";
    memcpy(stream, noise, sizeof noise - 1);
    n += sizeof noise - 1;
    n += encode(stream + n, RTS_FRAME_DATA, 7, "hello", 5);
    memcpy(stream + n, "more text", 9);
    n += 9;
    n += encode(stream + n, RTS_FRAME_STATUS, 8, "", 0);
    rts_frame_decoder d;
    rts_frame frames[4];
    char payloads[4][64];
    int count = decode_all(&d, buf, sizeof buf, stream, n, frames, payloads, 4);
    CHECK(count == 2, "%d frames", count);
    CHECK(frames[0].type == 'D' && frames[0].seq == 7 && strcmp(payloads[0], "hello") == 0, "first");
    CHECK(frames[1].type == 'S' && frames[1].seq == 8 && frames[1].len == 0, "second");
    /* Every other byte is noise but the false marker's first, which began
     * a frame whose length and complement did not match. */
    CHECK(d.noise == sizeof noise - 1 + 9 - 1 && d.bad == 1, "noise %u bad %u", (unsigned)d.noise,
          (unsigned)d.bad);
    CHECK(!rts_frame_pending(&d), "nothing left");
}

static void test_a_corrupted_frame_is_dropped_and_the_next_one_found(void)
{
    uint8_t stream[512], buf[256];
    size_t first = encode(stream, RTS_FRAME_DATA, 1, "payload one", 11);
    size_t n = first + encode(stream + first, RTS_FRAME_DATA, 2, "payload two", 11);
    rts_frame_decoder d;
    rts_frame frames[4];
    char payloads[4][64];

    stream[RTS_FRAME_HEADER_BYTES + 3] ^= 0x10; /* a payload bit */
    int count = decode_all(&d, buf, sizeof buf, stream, n, frames, payloads, 4);
    CHECK(count == 1 && frames[0].seq == 2 && strcmp(payloads[0], "payload two") == 0, "payload: %d", count);
    CHECK(d.bad == 1, "bad %u", (unsigned)d.bad);
    stream[RTS_FRAME_HEADER_BYTES + 3] ^= 0x10;

    stream[5] ^= 0x40; /* the length: caught by its complement, the next frame is not swallowed */
    count = decode_all(&d, buf, sizeof buf, stream, n, frames, payloads, 4);
    CHECK(count == 1 && frames[0].seq == 2, "length: %d", count);
    stream[5] ^= 0x40;

    /* Truncated: the first frame's tail never came. */
    memmove(stream + first - 6, stream + first, n - first);
    count = decode_all(&d, buf, sizeof buf, stream, n - 6, frames, payloads, 4);
    CHECK(count == 1 && frames[0].seq == 2 && strcmp(payloads[0], "payload two") == 0, "truncated: %d", count);
}

static void test_a_frame_longer_than_the_buffer_is_dropped(void)
{
    static uint8_t stream[4096], payload[2000];
    uint8_t buf[128];
    memset(payload, 'x', sizeof payload);
    size_t n = encode(stream, RTS_FRAME_DATA, 1, payload, sizeof payload);
    n += encode(stream + n, RTS_FRAME_ACK, 3, "", 0);
    rts_frame_decoder d;
    rts_frame frames[4];
    char payloads[4][64];
    int count = decode_all(&d, buf, sizeof buf, stream, n, frames, payloads, 4);
    CHECK(count == 1 && frames[0].type == 'K' && frames[0].seq == 3, "%d", count);
}

/* ------------------------------------------------ the board's end, simulated */

/* The host's side, played by the test: it answers each sequenced frame the
 * board writes as told, then acknowledges. */
typedef enum { HOST_ACKS, HOST_ASKS_AGAIN_ONCE, HOST_SILENT, HOST_OTHER_SESSION } host_mode;

typedef struct {
    line to_host, to_board;
    rts_frame_decoder seen;
    uint8_t seen_buf[RTS_LINK_RX_BYTES];
    host_mode mode;
    uint32_t clock_ms;
    int asked_again;
    char types[64];
    int frames;
} sim;

static void sim_write(void *ctx, const void *data, size_t n)
{
    sim *s = ctx;
    line_put(&s->to_host, data, n);
    for (size_t i = 0; i < n; i++) {
        rts_frame_feed(&s->seen, ((const uint8_t *)data)[i]);
        rts_frame f;
        while (rts_frame_next(&s->seen, &f)) {
            if (s->frames < 63)
                s->types[s->frames++] = f.type;
            if (f.type == RTS_FRAME_HELLO || f.type == RTS_FRAME_ACCEPT)
                continue;
            uint8_t answer[RTS_FRAME_OVERHEAD];
            switch (s->mode) {
            case HOST_ACKS:
                line_put(&s->to_board, answer, encode(answer, RTS_FRAME_ACK, f.seq, "", 0));
                break;
            case HOST_ASKS_AGAIN_ONCE:
                if (s->asked_again++ == 0)
                    line_put(&s->to_board, answer, encode(answer, RTS_FRAME_RESEND, f.seq, "", 0));
                else
                    line_put(&s->to_board, answer, encode(answer, RTS_FRAME_ACK, f.seq, "", 0));
                break;
            case HOST_SILENT:
                break;
            case HOST_OTHER_SESSION:
                line_put(&s->to_board, answer, encode(answer, RTS_FRAME_REQUEST, 999, "", 0));
                break;
            }
        }
    }
}

static int sim_read(void *ctx)
{
    sim *s = ctx;
    return s->to_board.read < s->to_board.len ? s->to_board.bytes[s->to_board.read++] : -1;
}

/* Each look at the clock is a millisecond later: a wait ends. */
static uint32_t sim_now(void *ctx) { return ((sim *)ctx)->clock_ms++; }

static void sim_start(sim *s, rts_link *link, host_mode mode)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    rts_frame_decoder_init(&s->seen, s->seen_buf, sizeof s->seen_buf);
    rts_link_io io = { sim_write, sim_read, sim_now, s };
    rts_link_init(link, &io, "rtscope-link/1 board=test");
    /* Noise, a garbled request, then the request of session 42. */
    uint8_t frame[64];
    line_put(&s->to_board, "noise", 5);
    size_t n = encode(frame, RTS_FRAME_REQUEST, 41, "run\0x\0", 6);
    frame[10] ^= 1;
    line_put(&s->to_board, frame, n);
    line_put(&s->to_board, frame, encode(frame, RTS_FRAME_REQUEST, 42, "run\0mutex.ops\0", 14));
}

static void test_the_board_takes_a_request_and_its_frames_are_acknowledged(void)
{
    static sim s;
    static rts_link link;
    sim_start(&s, &link, HOST_ACKS);
    uint8_t request[RTS_FRAME_MAX_PAYLOAD];
    size_t n = rts_link_wait_request(&link, request);
    CHECK(n == 14 && memcmp(request, "run\0mutex.ops\0", 14) == 0, "request of %zu bytes", n);
    CHECK(link.session == 42, "session %u", link.session);
    CHECK(rts_link_send(&link, RTS_FRAME_OUTPUT, "text", 4) == 0, "output");
    CHECK(rts_link_send(&link, RTS_FRAME_DATA, "{}", 2) == 0, "data");
    CHECK(rts_link_send(&link, RTS_FRAME_STATUS, "\0\0\0\0", 4) == 0, "status");
    CHECK(strcmp(s.types, "HAODS") == 0, "frames %s", s.types);
    CHECK(link.seq == 3 && link.resent == 0 && !link.serving, "seq %u resent %u", link.seq, (unsigned)link.resent);
    /* Served: nothing more is sent until the next request. */
    CHECK(rts_link_send(&link, RTS_FRAME_OUTPUT, "late", 4) == -1, "after status");
}

static void test_a_frame_is_sent_again_when_the_host_asks(void)
{
    static sim s;
    static rts_link link;
    uint8_t request[RTS_FRAME_MAX_PAYLOAD];
    sim_start(&s, &link, HOST_ASKS_AGAIN_ONCE);
    (void)rts_link_wait_request(&link, request);
    CHECK(rts_link_send(&link, RTS_FRAME_DATA, "chunk", 5) == 0, "sent");
    CHECK(strcmp(s.types, "HADD") == 0 && link.resent == 1, "frames %s", s.types);
}

static void test_a_silent_host_is_given_up_after_the_tries(void)
{
    static sim s;
    static rts_link link;
    uint8_t request[RTS_FRAME_MAX_PAYLOAD];
    sim_start(&s, &link, HOST_SILENT);
    (void)rts_link_wait_request(&link, request);
    CHECK(rts_link_send(&link, RTS_FRAME_DATA, "chunk", 5) == -1, "lost");
    CHECK(link.lost && link.resent == RTS_LINK_TRIES - 1, "resent %u", (unsigned)link.resent);
    CHECK(s.clock_ms >= RTS_LINK_TRIES * RTS_LINK_RESEND_MS, "waited %u ms", (unsigned)s.clock_ms);
    CHECK(rts_link_send(&link, RTS_FRAME_STATUS, "\0\0\0\0", 4) == -1, "nothing more");
}

static void test_another_hosts_request_ends_the_session(void)
{
    static sim s;
    static rts_link link;
    uint8_t request[RTS_FRAME_MAX_PAYLOAD];
    sim_start(&s, &link, HOST_OTHER_SESSION);
    (void)rts_link_wait_request(&link, request);
    CHECK(rts_link_send(&link, RTS_FRAME_DATA, "chunk", 5) == -1 && link.lost, "lost");
    CHECK(link.resent == 0, "at once");
}

int main(void)
{
    test_crc32_is_zlibs();
    test_frames_are_found_among_noise();
    test_a_corrupted_frame_is_dropped_and_the_next_one_found();
    test_a_frame_longer_than_the_buffer_is_dropped();
    test_the_board_takes_a_request_and_its_frames_are_acknowledged();
    test_a_frame_is_sent_again_when_the_host_asks();
    test_a_silent_host_is_given_up_after_the_tries();
    test_another_hosts_request_ends_the_session();
    return check_report("test_frame");
}
