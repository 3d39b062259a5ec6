/*
 * rtscope's serial link: the request and the result of one run carried over
 * a board's UART in frames that survive a noisy line. Kernel-neutral (no OS
 * call, no allocation): a board gives it three functions of its UART and
 * clock (rts_link_io); the analyzer's twin is
 * src/rtscope/targets/mcu/framing.py, and docs/boards.md describes the protocol.
 *
 * A frame, all integers little-endian:
 *   0  0xA5 0x5A      start marker
 *   2  type           one ASCII letter (rts_frame_type)
 *   3  seq            u16: the frame's place in its stream
 *   5  len            u16: payload bytes, at most RTS_FRAME_MAX_PAYLOAD
 *   7  ~len           u16: len's complement, so that a corrupted length is
 *                     caught before its payload is waited for
 *   9  payload        len bytes
 *   9+len  crc        u32: CRC-32 (IEEE 802.3, zlib's) of type..payload
 * Bytes outside frames (a boot banner, a fault's last words) are noise to
 * the decoder, which finds the next marker; a frame that fails a check is
 * dropped and the search goes on from the byte after its marker.
 *
 * A run: the board says HELLO when it boots and waits for a REQUEST (seq:
 * the host's session number, payload: the probe's argv, each argument
 * ended by a NUL). It ACCEPTs it (seq: the session), then sends the
 * probe's console text (OUTPUT), the result document in chunks (DATA),
 * its end (COMMIT: the document's length and CRC-32; or ABORT: why), and
 * last the exit status (STATUS): these are numbered from 0, and each is
 * sent again until the host ACKs its number; the host may ask for one
 * again (RESEND) when what came was garbled.
 */
#ifndef RTSCOPE_FRAME_H
#define RTSCOPE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RTS_FRAME_MARKER0 0xA5u
#define RTS_FRAME_MARKER1 0x5Au
#define RTS_FRAME_HEADER_BYTES 9u
#define RTS_FRAME_CRC_BYTES 4u
#define RTS_FRAME_OVERHEAD (RTS_FRAME_HEADER_BYTES + RTS_FRAME_CRC_BYTES)
/* The longest payload: a request of the probe's whole command line. */
#define RTS_FRAME_MAX_PAYLOAD 2048u

typedef enum {
    RTS_FRAME_HELLO = 'H',   /* board: booted, waiting for a request */
    RTS_FRAME_REQUEST = 'R', /* host: the probe's argv */
    RTS_FRAME_ACCEPT = 'A',  /* board: the request of session seq taken */
    RTS_FRAME_OUTPUT = 'O',  /* board: console text */
    RTS_FRAME_DATA = 'D',    /* board: a chunk of the result document */
    RTS_FRAME_COMMIT = 'C',  /* board: the document is whole (u32 length, u32 CRC-32) */
    RTS_FRAME_ABORT = 'X',   /* board: the document was given up (why, in text) */
    RTS_FRAME_STATUS = 'S',  /* board: the run ended with this exit status (i32) */
    RTS_FRAME_ACK = 'K',     /* host: frame seq arrived whole */
    RTS_FRAME_RESEND = 'N'   /* host: send frame seq again */
} rts_frame_type;

/* CRC-32 of n bytes continuing crc (0 to start), as zlib's crc32. */
uint32_t rts_crc32(uint32_t crc, const void *data, size_t n);

/* The header of a frame of type and seq carrying len payload bytes into
 * out, and its CRC over the header's checked part and the payload. */
void rts_frame_header(uint8_t out[RTS_FRAME_HEADER_BYTES], char type, uint16_t seq, uint16_t len);
uint32_t rts_frame_crc(const uint8_t header[RTS_FRAME_HEADER_BYTES], const void *payload, size_t len);

/* A frame as decoded: payload points into the decoder's buffer and stays
 * valid until the decoder is fed again. */
typedef struct {
    char type;
    uint16_t seq;
    uint16_t len;
    const uint8_t *payload;
} rts_frame;

/* A decoder of a byte stream into frames, over a buffer of the caller's
 * (frames longer than it holds are dropped as bad). */
typedef struct {
    uint8_t *buf;
    size_t cap;
    size_t start, end;   /* the bytes not yet decoded: buf[start..end) */
    size_t consumed;     /* the frame last returned, dropped at the next call */
    uint32_t noise;      /* bytes outside frames */
    uint32_t bad;        /* frames dropped for a failed check */
} rts_frame_decoder;

void rts_frame_decoder_init(rts_frame_decoder *d, uint8_t *buf, size_t cap);

/* Add one byte of the line; then rts_frame_next until it returns false. */
void rts_frame_feed(rts_frame_decoder *d, uint8_t byte);

/* The next whole frame among the bytes fed, into out: true; false when
 * more bytes are needed. */
bool rts_frame_next(rts_frame_decoder *d, rts_frame *out);

/* Whether a frame has begun but not yet arrived whole. */
bool rts_frame_pending(const rts_frame_decoder *d);

/* What the link needs of a board: write bytes to the UART (blocking until
 * they are sent or queued), read a received byte (-1 when none is waiting;
 * never blocks), and a millisecond clock (wrapping). */
typedef struct {
    void (*write)(void *ctx, const void *data, size_t n);
    int (*read)(void *ctx);
    uint32_t (*now_ms)(void *ctx);
    void *ctx;
} rts_link_io;

/* How long the board waits for an acknowledgement before sending a frame
 * again, and how many times it sends one before it takes the host as gone. */
#define RTS_LINK_RESEND_MS 1000u
#define RTS_LINK_TRIES 30u
/* What the receiver needs beyond the longest payload. */
#define RTS_LINK_RX_BYTES (RTS_FRAME_OVERHEAD + RTS_FRAME_MAX_PAYLOAD)

/* The board's end of the link. */
typedef struct {
    rts_link_io io;
    rts_frame_decoder rx;
    uint8_t rx_buf[RTS_LINK_RX_BYTES];
    const char *identity; /* said in HELLO and ACCEPT: "rtscope-link/1 board=NAME" */
    uint16_t session;     /* the request being served */
    uint16_t seq;         /* the next sequenced frame's number */
    bool serving;         /* a request was accepted and its STATUS not yet sent */
    bool lost;            /* the host stopped acknowledging, or another host asked */
    uint32_t resent;      /* frames sent more than once */
} rts_link;

void rts_link_init(rts_link *l, const rts_link_io *io, const char *identity);

/* Say HELLO, then wait (without end) for a request; accept it and copy its
 * payload (argv, each argument ended by a NUL) into out, which holds
 * RTS_FRAME_MAX_PAYLOAD bytes. Returns the payload's length. */
size_t rts_link_wait_request(rts_link *l, uint8_t *out);

/* Send a sequenced frame of type with n payload bytes (at most
 * RTS_FRAME_MAX_PAYLOAD) and wait until the host acknowledges it, sending
 * it again when asked or after RTS_LINK_RESEND_MS. 0, or -1 when the link
 * is lost (nothing more is sent until the next request). */
int rts_link_send(rts_link *l, char type, const void *payload, size_t n);

#endif
