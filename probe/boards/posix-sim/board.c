/*
 * The POSIX simulator board (board.h): a kernel's Linux port (FreeRTOS's
 * POSIX port, ThreadX's ports/linux/gnu), where each thread is a host
 * thread. The host gives the console (stdout, stderr), the clock and the
 * result file; the interrupts are the kernel simulator's, given by the
 * port (port/PORT/boards/posix-sim/). Everything
 * here measures the simulator, never an RTOS: the result says so
 * (virtualization "simulator").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "board.h"

/* ------------------------------------------------------------- startup */

static int saved_argc;
static char **saved_argv;

/* glibc calls the functions of .init_array with main's arguments, before
 * main: the port's main takes none. */
static void save_args(int argc, char **argv, char **envp)
{
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}
__attribute__((section(".init_array"), used)) static void (*const save_args_at_start)(int, char **,
                                                                                       char **) = save_args;

void board_init(void) {}

int board_args(char ***argv)
{
    *argv = saved_argv;
    return saved_argc;
}

const char *board_name(void) { return "posix-sim"; }

void board_sysinfo(rts_sysinfo *info)
{
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(info->hostname, sizeof info->hostname, "%s", u.nodename);
        snprintf(info->arch, sizeof info->arch, "%.*s", (int)sizeof info->arch - 1, u.machine);
    }
    snprintf(info->cpu_model, sizeof info->cpu_model, "an RTOS's POSIX simulator (host threads and signals)");
    snprintf(info->cpus_online, sizeof info->cpus_online, "0");
    snprintf(info->clocksource, sizeof info->clocksource, "host CLOCK_MONOTONIC");
    snprintf(info->virtualization, sizeof info->virtualization, "simulator");
}

const char *board_clock_name(void) { return "CLOCK_MONOTONIC (host of the RTOS simulator)"; }

uint64_t board_clock_resolution_ns(void) { return rts_posix_monotonic_resolution_ns(); }

/* ------------------------------------------------------------ console */

/* All of text to fd, across the simulator's signals (its tick interrupts
 * a blocked write). False when the host refuses it. */
static bool write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t done = write(fd, p, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return false;
        p += done;
        n -= (size_t)done;
    }
    return true;
}

void board_console_write(const char *text, size_t n) { write_all(STDOUT_FILENO, text, n); }

void board_diag_write(const char *text, size_t n) { write_all(STDERR_FILENO, text, n); }

/* ------------------------------------------------------------- result */

/* The result goes to a temporary file beside its destination, renamed
 * over it whole on commit; "-" is standard output, written as it comes. */
static int result_fd = -1;
static char result_dest[4096], result_temp[4096 + 32];

int board_result_open(const char *dest, char *why, size_t whysize)
{
    if (strcmp(dest, RTS_SINK_CONSOLE) == 0) {
        result_fd = STDOUT_FILENO;
        result_temp[0] = '\0';
        return 0;
    }
    if (snprintf(result_dest, sizeof result_dest, "%s", dest) >= (int)sizeof result_dest) {
        snprintf(why, whysize, "result path too long");
        return -1;
    }
    snprintf(result_temp, sizeof result_temp, "%s.tmp.%ld", dest, (long)getpid());
    result_fd = open(result_temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (result_fd < 0) {
        snprintf(why, whysize, "cannot write %s: %s", dest, strerror(errno));
        return -1;
    }
    return 0;
}

int board_result_write(const void *data, size_t n) { return write_all(result_fd, data, n) ? 0 : -1; }

int board_result_commit(char *why, size_t whysize)
{
    int fd = result_fd;
    result_fd = -1;
    if (!result_temp[0])
        return 0;
    bool written = fsync(fd) == 0;
    written = close(fd) == 0 && written;
    if (!written || rename(result_temp, result_dest) != 0) {
        snprintf(why, whysize, "cannot write %s: %s", result_dest, strerror(errno));
        unlink(result_temp);
        return -1;
    }
    return 0;
}

void board_result_abort(void)
{
    if (result_temp[0]) {
        close(result_fd);
        unlink(result_temp);
    }
    result_fd = -1;
}

/* The C tests print with stdio: flushed before the process ends. */
_Noreturn void board_exit(int status)
{
    fflush(NULL);
    _exit(status);
}

/* The status a broken kernel ends the simulator with (EX_SOFTWARE). */
#define BOARD_FATAL_STATUS 70

_Noreturn void board_fatal(const char *text)
{
    char line[192];
    int n = snprintf(line, sizeof line, "rtscope-probe: %s\n", text);
    board_diag_write(line, n > 0 && (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    board_exit(BOARD_FATAL_STATUS);
}

/* ------------------------------------------------------------- random */

void board_random_bytes(void *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, buf, n) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)n) /* no /dev/urandom: the clock, which differs between runs */
        for (size_t i = 0; i < n; i++)
            ((unsigned char *)buf)[i] = (unsigned char)(board_time_ns() >> (8 * (i % 4)));
}
