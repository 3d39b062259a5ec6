/* The kernel's tracefs: see tracefs.h. */
#include "tracefs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

rts_status tracefs_read_small(const char *path, char *buf, size_t size)
{
    rts_file *f;
    char why[160];
    size_t got = 0;
    rts_status opened = rts_file_open(&f, path, why, sizeof why);
    if (opened != RTS_OK)
        return opened;
    rts_status read = rts_file_read(f, buf, size - 1, &got);
    rts_file_close(f);
    buf[got] = '\0';
    return read;
}

const char *tracefs_find(char *tracers, size_t size, bool *denied, char *why, size_t whysize)
{
    *denied = false;
    for (size_t i = 0; i < sizeof tracefs_dirs / sizeof tracefs_dirs[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/available_tracers", tracefs_dirs[i]);
        rts_status read = tracefs_read_small(path, tracers, size);
        if (read == RTS_OK)
            return tracefs_dirs[i];
        *denied |= read == RTS_EPERM;
    }
    if (*denied)
        snprintf(why, whysize, "tracefs is not readable by this user: %s or %s (it needs root)", tracefs_dirs[0],
                 tracefs_dirs[1]);
    else
        snprintf(why, whysize, "no tracefs: no available_tracers in %s or %s", tracefs_dirs[0], tracefs_dirs[1]);
    return NULL;
}

bool tracefs_has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

bool tracefs_read_lines(const char *path, void (*each)(void *arg, const char *line, size_t n), void *arg, char *why,
                        size_t whysize)
{
    rts_file *f;
    if (rts_file_open(&f, path, why, whysize) != RTS_OK)
        return false;
    char chunk[4096], line[512];
    size_t used = 0, got;
    while (rts_file_read(f, chunk, sizeof chunk, &got) == RTS_OK && got > 0)
        for (size_t i = 0; i < got; i++) {
            if (chunk[i] != '\n') {
                if (used < sizeof line - 1)
                    line[used++] = chunk[i];
                continue;
            }
            line[used] = '\0';
            if (line[0] != '#')
                each(arg, line, used);
            used = 0;
        }
    rts_file_close(f);
    return true;
}

bool tracefs_write(const char *dir, const char *name, const char *text, char *why, size_t whysize)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return rts_file_write_text(path, text, why, whysize) == RTS_OK;
}

bool tracefs_line_time_ns(const char *line, uint64_t *ns)
{
    const char *p = strchr(line, ']');
    while (p && *p) {
        while (*p == ' ' || *p == ']')
            p++;
        char *end;
        unsigned long long secs = strtoull(p, &end, 10);
        if (end != p && *end == '.') {
            const char *frac = end + 1;
            unsigned long long part = strtoull(frac, &end, 10);
            if (*end == ':') {
                uint64_t scale = 1000000000u;
                for (const char *d = frac; d < end; d++)
                    scale /= 10u;
                *ns = (uint64_t)secs * 1000000000u + (uint64_t)part * scale;
                return true;
            }
        }
        p = strchr(p, ' ');
    }
    return false;
}

bool tracefs_set(const char *dir, const char *name, const char *text, char *why, size_t whysize)
{
    char path[192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return rts_setting_write(path, text, why, whysize) == RTS_OK;
}
