/*
 * The probe's image sizes (rts_image_read in rtscope/port.h) from the
 * symbols GNU ld defines in its default scripts, and a board's linker
 * script alike: __executable_start .. etext is the code (on Linux the
 * read-only data comes after etext and is not counted; a board's script
 * puts its constants before etext), __data_start .. edata the initialised
 * data, __bss_start .. end the zeroed data. __data_start comes from the C
 * library's start files on glibc, from the script on a board; it is weak,
 * so that a link without it (musl) builds and says "unknown".
 */
#include "rtscope/port.h"

extern const char __executable_start[], etext[], edata[], __bss_start[], end[];
extern const char __data_start[] __attribute__((weak));

/* The distance from start to stop, -1 when the link gave no start. */
static long long span(const char *start, const char *stop)
{
    return start ? (long long)((uintptr_t)stop - (uintptr_t)start) : -1;
}

void rts_image_read(rts_image *image)
{
    image->text = span(__executable_start, etext);
    image->data = span(__data_start, edata);
    image->bss = span(__bss_start, end);
}
