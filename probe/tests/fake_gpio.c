/*
 * A wired pair of GPIO lines without a GPIO chip, for testing pin=gpio on
 * machines that have none: loaded with LD_PRELOAD into the probe (and so
 * into the generator it starts), it answers the GPIO character device's
 * uAPI v2 for the chip path FAKE_GPIO_CHIP, as the kernel would for an
 * output line wired to an input line:
 *   - an output line's request gets the write end of the FIFO FAKE_GPIO_WIRE;
 *     each GPIO_V2_LINE_SET_VALUES_IOCTL that changes its level writes one
 *     gpio_v2_line_event (stamped with CLOCK_MONOTONIC, numbered) into it;
 *   - an input line's request gets the FIFO's read end: the probe reads
 *     those events exactly as it reads the kernel's;
 *   - FAKE_GPIO_DROP_EVERY=N drops every Nth event while still numbering
 *     it, as the kernel does when its buffer is full.
 * Every other open and ioctl goes to the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 1024

typedef enum { NOT_OURS = 0, CHIP, OUTPUT, INPUT } fd_kind;

static fd_kind kinds[MAX_FDS];
static int levels[MAX_FDS];
static uint32_t seqno;

static int real_open(const char *path, int flags, mode_t mode)
{
    static int (*next)(const char *, int, ...);
    if (!next)
        next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    return next(path, flags, mode);
}

static int fake_chip(const char *path)
{
    const char *chip = getenv("FAKE_GPIO_CHIP");
    if (!chip || strcmp(path, chip) != 0)
        return -2;
    int fd = real_open("/dev/null", O_RDONLY | O_CLOEXEC, 0);
    if (fd >= 0 && fd < MAX_FDS)
        kinds[fd] = CHIP;
    return fd;
}

static int open_flags(const char *path, int flags, va_list ap)
{
    mode_t mode = flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
    int fd = fake_chip(path);
    return fd != -2 ? fd : real_open(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = open_flags(path, flags, ap);
    va_end(ap);
    return fd;
}

int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = open_flags(path, flags, ap);
    va_end(ap);
    return fd;
}

int close(int fd)
{
    static int (*next)(int);
    if (!next)
        next = (int (*)(int))dlsym(RTLD_NEXT, "close");
    if (fd >= 0 && fd < MAX_FDS)
        kinds[fd] = NOT_OURS;
    return next(fd);
}

static int request_line(struct gpio_v2_line_request *req)
{
    bool output = req->config.flags & GPIO_V2_LINE_FLAG_OUTPUT;
    const char *wire = getenv("FAKE_GPIO_WIRE");
    int fd = wire ? real_open(wire, O_RDWR | O_CLOEXEC, 0) : -1;
    if (fd < 0 || fd >= MAX_FDS)
        return -1;
    kinds[fd] = output ? OUTPUT : INPUT;
    levels[fd] = 0;
    req->fd = fd;
    return 0;
}

static int set_values(int fd, const struct gpio_v2_line_values *v)
{
    int level = (int)(v->bits & 1);
    if (level == levels[fd])
        return 0;
    levels[fd] = level;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct gpio_v2_line_event ev = {
        .timestamp_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
        .id = level ? GPIO_V2_LINE_EVENT_RISING_EDGE : GPIO_V2_LINE_EVENT_FALLING_EDGE,
        .seqno = ++seqno,
        .line_seqno = seqno,
    };
    const char *drop = getenv("FAKE_GPIO_DROP_EVERY");
    if (drop && atoi(drop) > 0 && seqno % (unsigned)atoi(drop) == 0)
        return 0;
    return write(fd, &ev, sizeof ev) == (ssize_t)sizeof ev ? 0 : -1;
}

int ioctl(int fd, unsigned long request, ...)
{
    static int (*next)(int, unsigned long, ...);
    if (!next)
        next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    fd_kind kind = fd >= 0 && fd < MAX_FDS ? kinds[fd] : NOT_OURS;
    if (kind == CHIP && request == GPIO_V2_GET_LINE_IOCTL)
        return request_line(arg);
    if (kind == OUTPUT && request == GPIO_V2_LINE_SET_VALUES_IOCTL)
        return set_values(fd, arg);
    if (kind == INPUT && request == GPIO_V2_LINE_GET_VALUES_IOCTL) {
        ((struct gpio_v2_line_values *)arg)->bits = 0;
        return 0;
    }
    return next(fd, request, arg);
}
