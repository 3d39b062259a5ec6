/*
 * The kernel's tracefs, as the benches that use it (lat.timerlat, the
 * spike traces of bench/spike_trace.c) find and set it: through the port's
 * files (rts_file_*), so a port without files simply has no tracefs.
 */
#ifndef RTSCOPE_TRACEFS_H
#define RTSCOPE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

#include "rtscope/port.h"

/* Where tracefs is mounted (its own mount point, else under debugfs), or
 * NULL with one line in why. tracers receives its available_tracers. */
const char *tracefs_find(char *tracers, size_t size, char *why, size_t whysize);

/* Read the whole (small) file path into buf; false when it cannot be read. */
bool tracefs_read_small(const char *path, char *buf, size_t size);

/* Whether the space-separated list text holds the word. */
bool tracefs_has_word(const char *text, const char *word);

/* Write text to the file name under dir; false with one line in why. */
bool tracefs_write(const char *dir, const char *name, const char *text, char *why, size_t whysize);

#endif
