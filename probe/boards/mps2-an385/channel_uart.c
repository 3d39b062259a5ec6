/*
 * The mps2-an385's channel to the host over UART0 alone (LINK=uart in
 * board.mk), for a board with no semihosting host: the way a real board is
 * reached (--target serial: or gdb://). The request, the probe's console
 * text, its result and its exit status travel in frames
 * (boards/common/frame.h) that survive a noisy line; anything written
 * outside them (a fault's last words) is text the host shows. After the
 * run the board starts again and waits for the next request.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "channel.h"
#include "frame.h"

#define SCB_AIRCR (*(volatile uint32_t *)0xE000ED0Cu)
#define AIRCR_SYSTEM_RESET 0x05FA0004u /* VECTKEY | SYSRESETREQ */
/* Payload bytes of a console or result frame: the two buffers the channel
 * needs on the board, large enough that acknowledgements cost little (one
 * round trip a frame), short enough that a noisy line garbles few. */
#define LINK_CHUNK_BYTES 1024u
#define BOARD_MAX_ARGS 128

static void io_write(void *ctx, const void *data, size_t n)
{
    (void)ctx;
    board_uart_write(data, n);
}

static int io_read(void *ctx)
{
    (void)ctx;
    return board_uart_read();
}

static uint32_t io_now_ms(void *ctx)
{
    (void)ctx;
    return (uint32_t)(board_time_ns() / 1000000u);
}

static struct {
    rts_link link;
    uint8_t request[RTS_FRAME_MAX_PAYLOAD];
    char *args[BOARD_MAX_ARGS + 1];
    struct {
        char text[LINK_CHUNK_BYTES];
        size_t used;
    } console;
    struct {
        bool open, failed;
        uint8_t chunk[LINK_CHUNK_BYTES];
        size_t used;
        uint32_t length, crc;
    } doc;
} channel;

/* One frame at a time on the line: threads are held while one is sent and
 * acknowledged (interrupts still run: the link's clock needs them). */
static int send(char type, const void *payload, size_t n)
{
    port_sched_hold();
    int sent = rts_link_send(&channel.link, type, payload, n);
    port_sched_release();
    return sent;
}

/* ------------------------------------------------------------- console */

/* Console text is gathered into whole lines (or full chunks), so that the
 * probe's many small writes cost a frame a line, not a frame each. The
 * caller holds the line: the scheduler held, or interrupts off. */
static void console_flush(void)
{
    if (channel.console.used && channel.link.serving)
        (void)rts_link_send(&channel.link, RTS_FRAME_OUTPUT, channel.console.text, channel.console.used);
    channel.console.used = 0;
}

void board_console_write(const char *text, size_t n)
{
    if (!channel.link.serving) {
        board_uart_write(text, n);
        return;
    }
    port_sched_hold();
    for (size_t i = 0; i < n; i++) {
        channel.console.text[channel.console.used++] = text[i];
        if (channel.console.used == sizeof channel.console.text)
            console_flush();
    }
    if (n && text[n - 1] == '\n')
        console_flush();
    port_sched_release();
}

void board_diag_write(const char *text, size_t n) { board_console_write(text, n); }

/* -------------------------------------------------------- command line */

static void fail_early(const char *line)
{
    board_console_write(line, strlen(line));
    board_exit(2);
}

int board_args(char ***argv)
{
    static const rts_link_io io = { io_write, io_read, io_now_ms, NULL };
    rts_link_init(&channel.link, &io, "rtscope-link/1 board=mps2-an385");
    size_t n = rts_link_wait_request(&channel.link, channel.request);
    if (n == 0 || channel.request[n - 1] != '\0')
        fail_early("rtscope-probe: a malformed request (each argument must end with a NUL byte)\n");
    int argc = 0;
    for (size_t at = 0; at < n; at += strlen((char *)channel.request + at) + 1) {
        if (argc == BOARD_MAX_ARGS)
            fail_early("rtscope-probe: the request has more arguments than the image holds (128)\n");
        channel.args[argc++] = (char *)channel.request + at;
    }
    channel.args[argc] = NULL;
    *argv = channel.args;
    return argc;
}

/* Run ids only: no host to draw from, so the request's session number and
 * the time it came (when the host sent it, in the board's time) seed a
 * xorshift. */
void board_random_bytes(void *buf, size_t n)
{
    static uint32_t state;
    if (state == 0)
        state = (uint32_t)board_time_ns() ^ ((uint32_t)channel.link.session << 16) ^ 0x2545F491u;
    board_xorshift_bytes(&state, buf, n);
}

/* --------------------------------------------------------------- result */

/* The document goes to the host in chunks as it is written, whatever its
 * destination's name (the host stores it); its end says its length and
 * CRC-32, so that the host knows it whole. */
int board_result_open(const char *dest, char *why, size_t whysize)
{
    (void)dest;
    if (!channel.link.serving) {
        snprintf(why, whysize, "no host on the serial line");
        return -1;
    }
    channel.doc.open = true;
    channel.doc.failed = false;
    channel.doc.used = 0;
    channel.doc.length = channel.doc.crc = 0;
    return 0;
}

static int flush_chunk(void)
{
    if (channel.doc.used && send(RTS_FRAME_DATA, channel.doc.chunk, channel.doc.used) != 0)
        channel.doc.failed = true;
    channel.doc.used = 0;
    return channel.doc.failed ? -1 : 0;
}

int board_result_write(const void *data, size_t n)
{
    if (!channel.doc.open || channel.doc.failed)
        return -1;
    const uint8_t *bytes = data;
    channel.doc.crc = rts_crc32(channel.doc.crc, data, n);
    channel.doc.length += (uint32_t)n;
    while (n) {
        size_t part = sizeof channel.doc.chunk - channel.doc.used;
        part = part < n ? part : n;
        memcpy(channel.doc.chunk + channel.doc.used, bytes, part);
        channel.doc.used += part;
        bytes += part;
        n -= part;
        if (channel.doc.used == sizeof channel.doc.chunk && flush_chunk() != 0)
            return -1;
    }
    return 0;
}

int board_result_commit(char *why, size_t whysize)
{
    if (!channel.doc.open) {
        snprintf(why, whysize, "no result open");
        return -1;
    }
    channel.doc.open = false;
    uint8_t end[8];
    for (int i = 0; i < 4; i++) {
        end[i] = (uint8_t)(channel.doc.length >> (8 * i));
        end[4 + i] = (uint8_t)(channel.doc.crc >> (8 * i));
    }
    if (flush_chunk() != 0 || send(RTS_FRAME_COMMIT, end, sizeof end) != 0) {
        snprintf(why, whysize, "the host stopped acknowledging the result on the serial line");
        return -1;
    }
    return 0;
}

void board_result_abort(void)
{
    static const char why[] = "the probe gave the result up";
    if (channel.doc.open)
        (void)send(RTS_FRAME_ABORT, why, sizeof why - 1);
    channel.doc.open = false;
}

/* ------------------------------------------------------------------ exit */

/* The status ends the run, in a frame; then the board starts again, ready
 * for the next request. Interrupts off, not the scheduler held: nothing
 * else runs from here, the caller may be a fault handler, and the link's
 * clock still counts. */
_Noreturn void board_exit(int status)
{
    __asm__ volatile("cpsid i" ::: "memory");
    console_flush();
    uint8_t code[4];
    for (int i = 0; i < 4; i++)
        code[i] = (uint8_t)((uint32_t)status >> (8 * i));
    (void)rts_link_send(&channel.link, RTS_FRAME_STATUS, code, sizeof code);
    board_uart_drain();
    __asm__ volatile("dsb" ::: "memory");
    SCB_AIRCR = AIRCR_SYSTEM_RESET;
    __asm__ volatile("dsb" ::: "memory");
    for (;;)
        ;
}
