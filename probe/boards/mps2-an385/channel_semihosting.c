/*
 * The mps2-an385's channel to the host through Arm semihosting (QEMU's
 * -semihosting-config): the request is the semihosting command line, the
 * console UART0, the result a file of the host, the exit status QEMU's.
 * LINK=semihosting in board.mk, the default.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "channel.h"

/* --------------------------------------------------------- semihosting */

/* Arm semihosting operations (Arm's "Semihosting for AArch32 and AArch64"). */
enum {
    SYS_OPEN = 0x01,
    SYS_CLOSE = 0x02,
    SYS_WRITE = 0x05,
    SYS_READ = 0x06,
    SYS_REMOVE = 0x0E,
    SYS_RENAME = 0x0F,
    SYS_ERRNO = 0x13,
    SYS_GET_CMDLINE = 0x15,
    SYS_EXIT_EXTENDED = 0x20
};
#define SH_MODE_READ_BINARY 1  /* fopen's "rb" */
#define SH_MODE_WRITE_BINARY 5 /* fopen's "wb" */
#define SH_APPLICATION_EXIT 0x20026u

/* One semihosting call: the host (QEMU) does op with the block at arg. */
static int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* What went wrong on the host, from SYS_ERRNO: the host's own errno, in its
 * numbering (Linux's under QEMU here), not newlib's, so newlib's strerror
 * would misname some (Linux's ENAMETOOLONG, 36, is newlib's EIDRM); its
 * 2.8 KiB of text would also not fit MCU=small's ThreadX image. Named: what
 * opening, writing and renaming a file can meet; every one with its number. */
typedef struct {
    const char *name;
    int code;
} host_failure;

static host_failure host_error(void)
{
    static const host_failure names[] = {
        { "operation not permitted", 1 },  { "no such file or directory", 2 }, { "input/output error", 5 },
        { "permission denied", 13 },       { "file exists", 17 },               { "invalid cross-device link", 18 },
        { "not a directory", 20 },         { "is a directory", 21 },            { "file too large", 27 },
        { "no space left on device", 28 }, { "read-only file system", 30 },     { "file name too long", 36 },
        { "disk quota exceeded", 122 },
    };
    host_failure failure = { "an error", semihost(SYS_ERRNO, NULL) };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == failure.code)
            failure.name = names[i].name;
    return failure;
}

/* ------------------------------------------------------------- console */

/* Console writes from threads are kept whole by holding the scheduler
 * (not a mutex: the probe may write before the scheduler runs, and from
 * the watchdog while another thread holds anything). */
void board_console_write(const char *text, size_t n)
{
    port_sched_hold();
    board_uart_write(text, n);
    port_sched_release();
}

void board_diag_write(const char *text, size_t n) { board_console_write(text, n); }

/* -------------------------------------------------------- command line */

/* The request as QEMU gives it: its -semihosting-config arg= values joined
 * by single spaces, each percent-encoded by rtscope (a space is %20, a
 * percent sign %25), so that an argument may hold any byte. */
#ifndef BOARD_CMDLINE_BYTES /* board.mk's MCU=small gives less */
#define BOARD_CMDLINE_BYTES 2048
#endif
#ifndef BOARD_MAX_ARGS
#define BOARD_MAX_ARGS 128
#endif
#define BOARD_TEXT_OF(x) #x
#define BOARD_TEXT(x) BOARD_TEXT_OF(x)

static char cmdline[BOARD_CMDLINE_BYTES];
static char *args[BOARD_MAX_ARGS + 1];
static char default_arg0[] = "rtscope-probe";

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode one percent-encoded word in place; false when malformed. */
static bool percent_decode(char *word)
{
    char *out = word;
    for (const char *in = word; *in; in++) {
        if (*in != '%') {
            *out++ = *in;
            continue;
        }
        int high = hex_digit(in[1]), low = high < 0 ? -1 : hex_digit(in[2]);
        if (low < 0)
            return false;
        *out++ = (char)(high << 4 | low);
        in += 2;
    }
    *out = '\0';
    return true;
}

static void fail_early(const char *line)
{
    board_uart_write(line, strlen(line));
    board_exit(2);
}

int board_args(char ***argv)
{
    struct { char *buf; int len; } block = { cmdline, (int)sizeof cmdline };
    if (semihost(SYS_GET_CMDLINE, &block) != 0)
        fail_early("rtscope-probe: the request is longer than the image holds (" BOARD_TEXT(
            BOARD_CMDLINE_BYTES) " bytes of command line)\n");
    int argc = 0;
    for (char *word = strtok(cmdline, " "); word; word = strtok(NULL, " ")) {
        if (argc == BOARD_MAX_ARGS)
            fail_early("rtscope-probe: the request has more arguments than the image holds (" BOARD_TEXT(
                BOARD_MAX_ARGS) ")\n");
        if (!percent_decode(word))
            fail_early("rtscope-probe: a malformed argument in the request (bad %-escape)\n");
        args[argc++] = word;
    }
    if (argc == 0)
        args[argc++] = default_arg0;
    args[argc] = NULL;
    *argv = args;
    return argc;
}

/* Run ids only. The host's /dev/urandom through semihosting, so that two
 * reruns, identical to the bit otherwise, can both be stored; reading it is
 * one instruction to the guest, so the figures do not move. A fixed
 * sequence where the host has none. */
void board_random_bytes(void *buf, size_t n)
{
    static const char source[] = "/dev/urandom";
    struct { const char *name; int mode; int len; } open_block = { source, SH_MODE_READ_BINARY, (int)sizeof source - 1 };
    int handle = semihost(SYS_OPEN, &open_block);
    if (handle >= 0) {
        struct { int handle; void *buf; int len; } read_block = { handle, buf, (int)n };
        int unread = semihost(SYS_READ, &read_block);
        (void)semihost(SYS_CLOSE, &handle);
        if (unread == 0)
            return;
    }
    static uint32_t state = 0x2545F491u;
    board_xorshift_bytes(&state, buf, n);
}

/* --------------------------------------------------------------- result */

/* The result is a file of the host, written through semihosting beside
 * dest as dest.part and renamed over dest on commit, so that a reader
 * never sees half a document; "-" is the console. */
#ifndef RESULT_PATH_BYTES /* board.mk's MCU=small gives less */
#define RESULT_PATH_BYTES 512
#endif

static struct {
    int handle;            /* semihosting handle; -1: console; -2: none open */
    bool failed;
    char failure[96];
    char dest[RESULT_PATH_BYTES];
    char part[RESULT_PATH_BYTES];
} result = { .handle = -2 };

static int sh_remove(const char *path)
{
    struct { const char *name; int len; } block = { path, (int)strlen(path) };
    return semihost(SYS_REMOVE, &block);
}

int board_result_open(const char *dest, char *why, size_t whysize)
{
    result.failed = false;
    if (strcmp(dest, RTS_SINK_CONSOLE) == 0) {
        result.handle = -1;
        return 0;
    }
    if ((size_t)snprintf(result.part, sizeof result.part, "%s.part", dest) >= sizeof result.part) {
        snprintf(why, whysize, "result path longer than %d bytes: %s", RESULT_PATH_BYTES - 6, dest);
        return -1;
    }
    snprintf(result.dest, sizeof result.dest, "%s", dest);
    struct { const char *name; int mode; int len; } block = { result.part, SH_MODE_WRITE_BINARY,
                                                              (int)strlen(result.part) };
    result.handle = semihost(SYS_OPEN, &block);
    if (result.handle < 0) {
        host_failure failure = host_error();
        snprintf(why, whysize, "cannot open %s on the host: %s (errno %d)", result.part, failure.name, failure.code);
        result.handle = -2;
        return -1;
    }
    return 0;
}

int board_result_write(const void *data, size_t n)
{
    if (result.failed || result.handle == -2)
        return -1;
    if (result.handle == -1) {
        board_console_write(data, n);
        return 0;
    }
    struct { int handle; const void *buf; int len; } block = { result.handle, data, (int)n };
    if (semihost(SYS_WRITE, &block) != 0) {
        result.failed = true;
        host_failure failure = host_error();
        snprintf(result.failure, sizeof result.failure, "cannot write the result on the host: %s (errno %d)",
                 failure.name, failure.code);
        return -1;
    }
    return 0;
}

static int close_part(void)
{
    int handle = result.handle;
    result.handle = -2;
    return handle >= 0 ? semihost(SYS_CLOSE, &handle) : 0;
}

int board_result_commit(char *why, size_t whysize)
{
    if (result.handle == -1) {
        result.handle = -2;
        return 0;
    }
    if (result.handle == -2) {
        snprintf(why, whysize, "no result open");
        return -1;
    }
    bool closed = close_part() == 0;
    if (result.failed || !closed) {
        snprintf(why, whysize, "%s", result.failed ? result.failure : "cannot close the result on the host");
        (void)sh_remove(result.part);
        return -1;
    }
    struct { const char *from; int from_len; const char *to; int to_len; } block = {
        result.part, (int)strlen(result.part), result.dest, (int)strlen(result.dest) };
    if (semihost(SYS_RENAME, &block) != 0) {
        host_failure failure = host_error();
        snprintf(why, whysize, "cannot rename %s to %s on the host: %s (errno %d)", result.part, result.dest,
                 failure.name, failure.code);
        (void)sh_remove(result.part);
        return -1;
    }
    return 0;
}

void board_result_abort(void)
{
    bool file = result.handle >= 0;
    (void)close_part();
    if (file)
        (void)sh_remove(result.part);
}

/* ------------------------------------------------------------------ exit */

_Noreturn void board_exit(int status)
{
    board_uart_drain();
    struct { uint32_t reason; uint32_t status; } block = { SH_APPLICATION_EXIT, (uint32_t)status };
    for (;;)
        (void)semihost(SYS_EXIT_EXTENDED, &block);
}
