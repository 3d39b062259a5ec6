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

/* A setting's value as read, in the form it is written back: a choice list
 * ("[local] global mono") by its chosen word, a ring buffer's size
 * ("7 (expanded: 1408)") by its expanded size, else the first line. */
static void value_to_write(const char *read, char *value, size_t size)
{
    const char *open = strchr(read, '[');
    const char *expanded = strstr(read, "(expanded: ");
    size_t n;
    if (open && strchr(open, ']')) {
        read = open + 1;
        n = (size_t)(strchr(read, ']') - read);
    } else if (expanded) {
        read = expanded + strlen("(expanded: ");
        n = strcspn(read, ")");
    } else {
        n = strcspn(read, "\n");
    }
    if (n >= size)
        n = size - 1;
    memcpy(value, read, n);
    value[n] = '\0';
}

bool tracefs_set(tracefs_saved *saved, const char *dir, const char *name, const char *text, char *why,
                 size_t whysize)
{
    char path[192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bool known = false;
    for (int i = 0; i < saved->count && !known; i++)
        known = strcmp(saved->setting[i].path, path) == 0;
    if (!known) {
        if (saved->count == TRACEFS_SAVED_MAX) {
            snprintf(why, whysize, "%s: more tracefs settings than the %d a run can put back", path,
                     TRACEFS_SAVED_MAX);
            return false;
        }
        char read[256];
        rts_status got = tracefs_read_small(path, read, sizeof read);
        if (got != RTS_OK) {
            snprintf(why, whysize, "%s: cannot read it to put it back after: %s", path, rts_status_str(got));
            return false;
        }
        snprintf(saved->setting[saved->count].path, sizeof saved->setting[0].path, "%s", path);
        value_to_write(read, saved->setting[saved->count].before, sizeof saved->setting[0].before);
        saved->count++;
    }
    return rts_file_write_text(path, text, why, whysize) == RTS_OK;
}

bool tracefs_restore(tracefs_saved *saved, char *why, size_t whysize)
{
    bool all = true;
    for (int i = saved->count - 1; i >= 0; i--) {
        char failed[200];
        if (rts_file_write_text(saved->setting[i].path, saved->setting[i].before, failed, sizeof failed) != RTS_OK &&
            all) {
            snprintf(why, whysize, "%s not put back to %s: %s", saved->setting[i].path, saved->setting[i].before,
                     failed);
            all = false;
        }
    }
    saved->count = 0;
    return all;
}
