/*
 * POSIX port: GPIO lines through the Linux GPIO character device, uAPI v2
 * (linux/gpio.h, Linux 5.10 and later). Contracts in include/rtscope/port.h.
 *
 * The uAPI directly rather than libgpiod: the probe is built static for
 * boards that have no libgpiod (or an older one: its v1 and v2 APIs
 * differ), and the two requests it makes are a few ioctls. Edge events
 * carry the kernel's CLOCK_MONOTONIC stamp, taken in the line's interrupt
 * handler: the clock of rts_time_ns (port_time.h). Without the v2 uAPI
 * (other systems, old headers) every call says so and RTS_CAP_GPIO is
 * clear.
 */
#include "rtscope/port.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool rts_posix_gpio_supported(void); /* for rts_port_caps (port_posix.c) */

#if defined(__linux__) && __has_include(<linux/gpio.h>)
#include <linux/gpio.h>
#endif

#ifdef GPIO_V2_GET_LINE_IOCTL

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define EVENT_BUFFER 1024  /* edges the kernel keeps for the line before it drops some (its largest) */
#define READ_EVENTS 64     /* edges taken from the kernel per read */

struct rts_gpio {
    int fd;                   /* the line request */
    uint32_t last_seqno;      /* the line's sequence number of the last edge read */
    unsigned next, count;     /* events[next .. count) not handed out yet */
    struct gpio_v2_line_event events[READ_EVENTS];
};

bool rts_posix_gpio_supported(void) { return true; }

/* Request line of chip with flags into *out; why as the contract says. */
static rts_status request(rts_gpio **out, const char *chip, unsigned line, uint64_t flags, int level, char *why,
                          size_t whysize)
{
    *out = NULL;
    struct gpio_v2_line_request req = { .offsets = { line }, .num_lines = 1, .config.flags = flags };
    snprintf(req.consumer, sizeof req.consumer, "rtscope");
    if (flags & GPIO_V2_LINE_FLAG_OUTPUT) {
        req.config.num_attrs = 1;
        req.config.attrs[0] = (struct gpio_v2_line_config_attribute){
            .attr = { .id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES, .values = level ? 1 : 0 }, .mask = 1 };
    } else {
        req.event_buffer_size = EVENT_BUFFER;
    }
    int chip_fd = open(chip, O_RDONLY | O_CLOEXEC);
    if (chip_fd < 0) {
        int err = errno;
        snprintf(why, whysize, "cannot open %s: %s", chip, strerror(err));
        return err == EACCES || err == EPERM ? RTS_EPERM : RTS_EFAIL;
    }
    int rc = ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &req), err = errno;
    close(chip_fd);
    if (rc < 0) {
        if (err == ENOTTY)
            snprintf(why, whysize, "%s is not a GPIO chip (or its kernel predates the v2 uAPI, Linux 5.10)", chip);
        else
            snprintf(why, whysize, "cannot request line %u of %s: %s", line, chip, strerror(err));
        return err == EACCES || err == EPERM ? RTS_EPERM : err == EINVAL ? RTS_EINVAL : RTS_EFAIL;
    }
    rts_gpio *g = rts_heap_calloc(1, sizeof *g);
    if (!g) {
        close(req.fd);
        snprintf(why, whysize, "out of memory for a GPIO line");
        return RTS_ENOMEM;
    }
    g->fd = req.fd;
    *out = g;
    return RTS_OK;
}

rts_status rts_gpio_output(rts_gpio **out, const char *chip, unsigned line, int level, char *why, size_t whysize)
{
    return request(out, chip, line, GPIO_V2_LINE_FLAG_OUTPUT, level, why, whysize);
}

rts_status rts_gpio_set(rts_gpio *g, int level)
{
    struct gpio_v2_line_values v = { .bits = level ? 1 : 0, .mask = 1 };
    return ioctl(g->fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &v) == 0 ? RTS_OK : RTS_EFAIL;
}

rts_status rts_gpio_input(rts_gpio **out, const char *chip, unsigned line, int *level, char *why, size_t whysize)
{
    uint64_t flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING | GPIO_V2_LINE_FLAG_EDGE_FALLING;
    rts_status st = request(out, chip, line, flags, 0, why, whysize);
    if (st != RTS_OK)
        return st;
    struct gpio_v2_line_values v = { .mask = 1 };
    if (ioctl((*out)->fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &v) < 0) {
        snprintf(why, whysize, "cannot read line %u of %s: %s", line, chip, strerror(errno));
        rts_gpio_close(*out);
        *out = NULL;
        return RTS_EFAIL;
    }
    *level = (int)(v.bits & 1);
    return RTS_OK;
}

/* Fill g's events from the kernel, waiting at most timeout_ns. */
static rts_status refill(rts_gpio *g, uint64_t timeout_ns)
{
    uint64_t ms = timeout_ns / 1000000 + (timeout_ns % 1000000 != 0);
    struct pollfd pfd = { .fd = g->fd, .events = POLLIN };
    int ready = poll(&pfd, 1, timeout_ns == RTS_FOREVER ? -1 : ms > 60000 ? 60000 : (int)ms);
    if (ready == 0 || (ready < 0 && errno == EINTR))
        return RTS_ETIMEDOUT;
    ssize_t n = ready < 0 ? -1 : read(g->fd, g->events, sizeof g->events);
    if (n < (ssize_t)sizeof g->events[0])
        return n < 0 && (errno == EINTR || errno == EAGAIN) ? RTS_ETIMEDOUT : RTS_EFAIL;
    g->next = 0;
    g->count = (unsigned)((size_t)n / sizeof g->events[0]);
    return RTS_OK;
}

rts_status rts_gpio_next_edge(rts_gpio *g, uint64_t timeout_ns, rts_gpio_edge *edge)
{
    if (g->next == g->count) {
        rts_status st = refill(g, timeout_ns);
        if (st != RTS_OK)
            return st;
    }
    const struct gpio_v2_line_event *ev = &g->events[g->next++];
    /* The line's sequence number counts every edge the kernel took, kept or
     * dropped: a jump is how many it dropped. */
    edge->lost = g->last_seqno && ev->line_seqno > g->last_seqno + 1 ? ev->line_seqno - g->last_seqno - 1 : 0;
    g->last_seqno = ev->line_seqno;
    edge->at_ns = ev->timestamp_ns;
    edge->level = ev->id == GPIO_V2_LINE_EVENT_RISING_EDGE;
    return RTS_OK;
}

void rts_gpio_close(rts_gpio *g)
{
    if (!g)
        return;
    close(g->fd);
    rts_heap_free(g);
}

#else /* no GPIO v2 uAPI in this build */

struct rts_gpio {
    int unused;
};

bool rts_posix_gpio_supported(void) { return false; }

static rts_status unsupported(rts_gpio **out, char *why, size_t whysize)
{
    *out = NULL;
    snprintf(why, whysize, "this build of the probe has no GPIO character device (Linux uAPI v2, 5.10 and later)");
    return RTS_ENOTSUP;
}

rts_status rts_gpio_output(rts_gpio **out, const char *chip, unsigned line, int level, char *why, size_t whysize)
{
    (void)chip, (void)line, (void)level;
    return unsupported(out, why, whysize);
}

rts_status rts_gpio_set(rts_gpio *g, int level)
{
    (void)g, (void)level;
    return RTS_ENOTSUP;
}

rts_status rts_gpio_input(rts_gpio **out, const char *chip, unsigned line, int *level, char *why, size_t whysize)
{
    (void)chip, (void)line, (void)level;
    return unsupported(out, why, whysize);
}

rts_status rts_gpio_next_edge(rts_gpio *g, uint64_t timeout_ns, rts_gpio_edge *edge)
{
    (void)g, (void)timeout_ns, (void)edge;
    return RTS_ENOTSUP;
}

void rts_gpio_close(rts_gpio *g) { (void)g; }

#endif
