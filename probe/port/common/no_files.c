/*
 * The file functions of rtscope/port.h (reading files, writing a setting, system settings
 * put back, temporary files, pins) for a port without files (RTS_CAP_FILES clear): every call says
 * "not supported", so wave.import and the pin-based benches are skipped. A
 * board with a file system (FatFs, littlefs) implements these itself; on a
 * board a pin is a GPIO line, observed by a bench of its own.
 */
#include <stdio.h> /* snprintf only */

#include "rtscope/port.h"

rts_status rts_file_open(rts_file **out, const char *path, char *why, size_t whysize)
{
    (void)path;
    *out = NULL;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

rts_status rts_file_read(rts_file *f, void *buf, size_t size, size_t *got)
{
    (void)f, (void)buf, (void)size;
    *got = 0;
    return RTS_ENOTSUP;
}

void rts_file_close(rts_file *f) { (void)f; }

rts_status rts_file_write_text(const char *path, const char *text, char *why, size_t whysize)
{
    (void)path;
    (void)text;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

rts_status rts_dir_make(const char *path, char *why, size_t whysize)
{
    (void)path;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

rts_status rts_dir_remove(const char *path, char *why, size_t whysize)
{
    (void)path;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

/* Nothing is ever changed, so nothing is put back. */
rts_status rts_setting_write(const char *path, const char *text, char *why, size_t whysize)
{
    return rts_file_write_text(path, text, why, whysize);
}

rts_status rts_setting_dir_make(const char *path, char *why, size_t whysize)
{
    return rts_dir_make(path, why, whysize);
}

unsigned rts_settings_mark(void) { return 0; }

bool rts_settings_restore(unsigned mark, char *why, size_t whysize)
{
    (void)mark, (void)why, (void)whysize;
    return true;
}

rts_status rts_tempfile_create(rts_tempfile **out, char *why, size_t whysize)
{
    *out = NULL;
    snprintf(why, whysize, "this port has no files");
    return RTS_ENOTSUP;
}

const char *rts_tempfile_path(const rts_tempfile *t)
{
    (void)t;
    return "";
}

void rts_tempfile_close(rts_tempfile *t) { (void)t; }

rts_status rts_pin_create(rts_pin **out, char *why, size_t whysize)
{
    *out = NULL;
    snprintf(why, whysize, "this port has no files for a pin");
    return RTS_ENOTSUP;
}

rts_status rts_pin_open(rts_pin **out, const char *path, char *why, size_t whysize)
{
    (void)path;
    return rts_pin_create(out, why, whysize);
}

const char *rts_pin_path(const rts_pin *p)
{
    (void)p;
    return "";
}

volatile unsigned char *rts_pin_byte(const rts_pin *p)
{
    (void)p;
    return NULL;
}

rts_status rts_pin_write(rts_pin *p, unsigned char byte)
{
    (void)p, (void)byte;
    return RTS_ENOTSUP;
}

void rts_pin_close(rts_pin *p) { (void)p; }
