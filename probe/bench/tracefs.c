/* The kernel's tracefs: see tracefs.h. */
#include "tracefs.h"

#include <stdio.h>
#include <string.h>

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

bool tracefs_read_small(const char *path, char *buf, size_t size)
{
    rts_file *f;
    char why[160];
    size_t got = 0;
    if (rts_file_open(&f, path, why, sizeof why) != RTS_OK)
        return false;
    bool ok = rts_file_read(f, buf, size - 1, &got) == RTS_OK;
    rts_file_close(f);
    buf[got] = '\0';
    return ok;
}

const char *tracefs_find(char *tracers, size_t size, char *why, size_t whysize)
{
    for (size_t i = 0; i < sizeof tracefs_dirs / sizeof tracefs_dirs[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/available_tracers", tracefs_dirs[i]);
        if (tracefs_read_small(path, tracers, size))
            return tracefs_dirs[i];
    }
    snprintf(why, whysize, "no tracefs to use: cannot read available_tracers in %s or %s (not mounted, or not root)",
             tracefs_dirs[0], tracefs_dirs[1]);
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

bool tracefs_write(const char *dir, const char *name, const char *text, char *why, size_t whysize)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return rts_file_write_text(path, text, why, whysize) == RTS_OK;
}
