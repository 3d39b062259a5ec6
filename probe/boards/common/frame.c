/*
 * rtscope's serial link (frame.h): the frame codec, and the board's end of
 * the exchange, stop-and-wait: one frame in flight, kept by the caller
 * until acknowledged, so that the board needs no more memory than its
 * largest frame.
 */
#include "frame.h"

#include <string.h>

/* ----------------------------------------------------------------- CRC */

/* Bitwise, reflected polynomial 0xEDB88320: no table, since a board's
 * flash is small and a frame's CRC costs nothing next to its bytes on the
 * line. */
uint32_t rts_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *bytes = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put_u16(uint8_t *at, uint16_t value)
{
    at[0] = (uint8_t)value;
    at[1] = (uint8_t)(value >> 8);
}

static uint16_t get_u16(const uint8_t *at) { return (uint16_t)(at[0] | at[1] << 8); }

static uint32_t get_u32(const uint8_t *at)
{
    return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}

void rts_frame_header(uint8_t out[RTS_FRAME_HEADER_BYTES], char type, uint16_t seq, uint16_t len)
{
    out[0] = RTS_FRAME_MARKER0;
    out[1] = RTS_FRAME_MARKER1;
    out[2] = (uint8_t)type;
    put_u16(out + 3, seq);
    put_u16(out + 5, len);
    put_u16(out + 7, (uint16_t)~len);
}

uint32_t rts_frame_crc(const uint8_t header[RTS_FRAME_HEADER_BYTES], const void *payload, size_t len)
{
    return rts_crc32(rts_crc32(0, header + 2, RTS_FRAME_HEADER_BYTES - 2), payload, len);
}

/* ------------------------------------------------------------- decoder */

void rts_frame_decoder_init(rts_frame_decoder *d, uint8_t *buf, size_t cap)
{
    *d = (rts_frame_decoder){ .buf = buf, .cap = cap };
}

void rts_frame_feed(rts_frame_decoder *d, uint8_t byte)
{
    d->start += d->consumed;
    d->consumed = 0;
    if (d->end == d->cap) {
        if (d->start == 0) {
            /* Full of one frame's beginning that never fits: it is bad. */
            d->bad++;
            d->start = 1;
        }
        memmove(d->buf, d->buf + d->start, d->end - d->start);
        d->end -= d->start;
        d->start = 0;
    }
    d->buf[d->end++] = byte;
}

/* Drop n bytes at the start: noise, or the first byte of a bad frame. */
static void skip(rts_frame_decoder *d, size_t n, bool bad_frame)
{
    d->start += n;
    if (bad_frame)
        d->bad++;
    else
        d->noise += (uint32_t)n;
}

bool rts_frame_next(rts_frame_decoder *d, rts_frame *out)
{
    d->start += d->consumed;
    d->consumed = 0;
    for (;;) {
        const uint8_t *at = d->buf + d->start;
        size_t have = d->end - d->start;
        if (have == 0)
            return false;
        if (at[0] != RTS_FRAME_MARKER0 || (have > 1 && at[1] != RTS_FRAME_MARKER1)) {
            skip(d, 1, false);
            continue;
        }
        if (have < RTS_FRAME_HEADER_BYTES)
            return false;
        uint16_t len = get_u16(at + 5);
        if ((uint32_t)len + get_u16(at + 7) != 0xFFFFu || len > RTS_FRAME_MAX_PAYLOAD ||
            RTS_FRAME_OVERHEAD + len > d->cap) {
            skip(d, 1, true);
            continue;
        }
        if (have < RTS_FRAME_OVERHEAD + len)
            return false;
        if (rts_frame_crc(at, at + RTS_FRAME_HEADER_BYTES, len) != get_u32(at + RTS_FRAME_HEADER_BYTES + len)) {
            skip(d, 1, true);
            continue;
        }
        *out = (rts_frame){ .type = (char)at[2], .seq = get_u16(at + 3), .len = len,
                            .payload = at + RTS_FRAME_HEADER_BYTES };
        d->consumed = RTS_FRAME_OVERHEAD + len;
        return true;
    }
}

bool rts_frame_pending(const rts_frame_decoder *d) { return d->end - d->start - d->consumed > 0; }

/* ---------------------------------------------------------------- link */

void rts_link_init(rts_link *l, const rts_link_io *io, const char *identity)
{
    *l = (rts_link){ .io = *io, .identity = identity };
    rts_frame_decoder_init(&l->rx, l->rx_buf, sizeof l->rx_buf);
}

static void write_frame(rts_link *l, char type, uint16_t seq, const void *payload, size_t n)
{
    uint8_t header[RTS_FRAME_HEADER_BYTES], crc[RTS_FRAME_CRC_BYTES];
    rts_frame_header(header, type, seq, (uint16_t)n);
    uint32_t sum = rts_frame_crc(header, payload, n);
    for (int i = 0; i < 4; i++)
        crc[i] = (uint8_t)(sum >> (8 * i));
    l->io.write(l->io.ctx, header, sizeof header);
    if (n)
        l->io.write(l->io.ctx, payload, n);
    l->io.write(l->io.ctx, crc, sizeof crc);
}

/* The next frame from the host, if a whole one has come. */
static bool receive(rts_link *l, rts_frame *frame)
{
    for (;;) {
        if (rts_frame_next(&l->rx, frame))
            return true;
        int byte = l->io.read(l->io.ctx);
        if (byte < 0)
            return false;
        rts_frame_feed(&l->rx, (uint8_t)byte);
    }
}

size_t rts_link_wait_request(rts_link *l, uint8_t *out)
{
    const char *identity = l->identity;
    write_frame(l, RTS_FRAME_HELLO, 0, identity, strlen(identity));
    rts_frame frame;
    for (;;) {
        if (!receive(l, &frame) || frame.type != RTS_FRAME_REQUEST)
            continue;
        memcpy(out, frame.payload, frame.len);
        l->session = frame.seq;
        l->seq = 0;
        l->serving = true;
        l->lost = false;
        write_frame(l, RTS_FRAME_ACCEPT, l->session, identity, strlen(identity));
        return frame.len;
    }
}

int rts_link_send(rts_link *l, char type, const void *payload, size_t n)
{
    if (l->lost || !l->serving || n > RTS_FRAME_MAX_PAYLOAD)
        return -1;
    for (unsigned tries = 0; tries < RTS_LINK_TRIES; tries++) {
        if (tries)
            l->resent++;
        write_frame(l, type, l->seq, payload, n);
        uint32_t sent = l->io.now_ms(l->io.ctx);
        rts_frame frame;
        while (l->io.now_ms(l->io.ctx) - sent < RTS_LINK_RESEND_MS) {
            if (!receive(l, &frame))
                continue;
            if (frame.type == RTS_FRAME_ACK && frame.seq == l->seq) {
                l->seq++;
                if (type == RTS_FRAME_STATUS)
                    l->serving = false;
                return 0;
            }
            if (frame.type == RTS_FRAME_RESEND && frame.seq == l->seq)
                break;
            if (frame.type == RTS_FRAME_REQUEST && frame.seq != l->session) {
                /* Another host asks: this one is gone. */
                l->lost = true;
                return -1;
            }
            if (frame.type == RTS_FRAME_REQUEST) /* our ACCEPT was lost */
                write_frame(l, RTS_FRAME_ACCEPT, l->session, l->identity, strlen(l->identity));
            /* Anything else is late or repeated: an acknowledgement of a
             * frame before. */
        }
    }
    l->lost = true;
    return -1;
}
