/*
 * The kernel's tracefs, as the benches that use it (lat.timerlat, the
 * spike traces of bench/spike_trace.c) find and set it: through the port's
 * files (rts_file_*), so a port without files simply has no tracefs.
 */
#ifndef RTSCOPE_TRACEFS_H
#define RTSCOPE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtscope/port.h"

/* Where tracefs is mounted (its own mount point, else under debugfs), its
 * available_tracers in tracers; or NULL with one line in why, and *denied
 * telling whether tracefs is there but not for this user (not root): a
 * missing privilege rather than something the target lacks. */
const char *tracefs_find(char *tracers, size_t size, bool *denied, char *why, size_t whysize);

/* Read the whole (small) file path into buf: RTS_OK, RTS_EPERM when it is
 * there but not for this user, else another status. */
rts_status tracefs_read_small(const char *path, char *buf, size_t size);

/* Whether the space-separated list text holds the word. */
bool tracefs_has_word(const char *text, const char *word);

/* Read the file path line by line (lines longer than 511 bytes cut there),
 * calling each with every line but tracefs's "#" comments; false with one
 * line in why when it cannot be opened. */
bool tracefs_read_lines(const char *path, void (*each)(void *arg, const char *line, size_t n), void *arg, char *why,
                        size_t whysize);

/* The time of a trace line "TASK-PID [CPU] FLAGS SECONDS.FRACTION: EVENT…",
 * in ns of the trace clock; false for a line without one. */
bool tracefs_line_time_ns(const char *line, uint64_t *ns);

/* Write text to the file name under dir; false with one line in why. An
 * action (clearing the trace); a setting goes through tracefs_set. */
bool tracefs_write(const char *dir, const char *name, const char *text, char *why, size_t whysize);

/* Set the file name under dir to text, a system setting (rts_setting_write):
 * its value before the run is put back by rts_settings_restore, whatever
 * became of the run; false with one line in why. */
bool tracefs_set(const char *dir, const char *name, const char *text, char *why, size_t whysize);

#endif
