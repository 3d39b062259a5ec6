/*
 * A live capture for wave.import: the bench runs sigrok-cli itself through
 * the port's processes (argv, no shell) into the port's temporary file
 * (gone with the probe, even after a SIGKILL), bounded by the run's
 * duration and stopped with it (or Ctrl-C); the file is then read as an
 * imported one (wave_capture.h).
 */
#ifndef RTSCOPE_WAVE_SIGROK_H
#define RTSCOPE_WAVE_SIGROK_H

#include "rtscope/bench.h"

/* What a live capture is asked for: the bench's parameters. */
typedef struct {
    const char *driver, *config, *group, *format;
    double samples;
} sigrok_plan;

typedef struct sigrok_live sigrok_live;

/* A live capture of plan, made in a temporary file; NULL after failing the
 * bench, with nothing left running or behind. Release with sigrok_live_close. */
sigrok_live *sigrok_live_capture(rts_ctx *ctx, const sigrok_plan *plan);

/* The capture's file, and what messages call it ("sigrok-cli --driver demo"). */
const char *sigrok_live_path(const sigrok_live *lv);
const char *sigrok_live_name(const sigrok_live *lv);

/* Remove the temporary file and release lv. */
void sigrok_live_close(sigrok_live *lv);

#endif
