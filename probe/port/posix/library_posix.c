/*
 * Shared libraries of the POSIX port (rts_library_*: rtscope/port.h), through
 * the dynamic loader. A static probe has none: glibc's static dlopen would
 * bring in a second C library at run time (and its link warns), musl's
 * refuses; the Makefile's static links define RTS_STATIC_PROBE.
 */
#define _GNU_SOURCE /* RTLD_NODELETE */
#include "rtscope/port.h"

#include <dlfcn.h>
#include <stdio.h>

rts_status rts_library_open(rts_library **out, const char *name, char *why, size_t whysize)
{
    *out = NULL;
#ifdef RTS_STATIC_PROBE
    snprintf(why, whysize, "a static probe loads no shared library (%s)", name);
    return RTS_ENOTSUP;
#else
    /* NODELETE: it stays mapped (port.h), whatever exit handlers it registered. */
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(why, whysize, "cannot load %s: %s", name, reason ? reason : "unknown reason");
        return RTS_EFAIL;
    }
    *out = handle;
    return RTS_OK;
#endif
}

void *rts_library_symbol(rts_library *lib, const char *symbol)
{
#ifdef RTS_STATIC_PROBE
    (void)lib, (void)symbol;
    return NULL;
#else
    return dlsym(lib, symbol);
#endif
}

void rts_library_close(rts_library *lib)
{
#ifndef RTS_STATIC_PROBE
    if (lib)
        dlclose(lib);
#else
    (void)lib;
#endif
}
