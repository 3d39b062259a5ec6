/* The probe as a square-wave generator: rtscope-probe generate MODEL (generate.c). */
#ifndef RTSCOPE_GENERATE_H
#define RTSCOPE_GENERATE_H

#include <stddef.h>

/* Run the generator of model argv[2] (c-file, c-mmap, c-rt, c-busy,
 * c-timerfd) on the pin named by RTSCOPE_PIN, following the generator
 * interface of docs/wave.md: start low, toggle every
 * RTSCOPE_HALF_PERIOD_NS, 2 × RTSCOPE_PERIODS times or until SIGTERM,
 * then print "toggles N". Returns the exit status: 0 after the wave (also
 * when stopped early), 1 when the model cannot run here, 2 for a bad model
 * or environment; why (whysize bytes) then holds one line saying why. */
int rts_generate_main(int argc, char **argv, char *why, size_t whysize);

#endif
