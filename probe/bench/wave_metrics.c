/* The metrics of a square wave (see wave_metrics.h and docs/wave.md). */
#include "wave_metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

const char *const wave_metric_ids[] = { "wave.period", "wave.high", "wave.rel_error", "wave.duty", NULL };

/* Label m {"model": model, "period_us": P}: P a whole number when it is one. */
static void label(rts_metric *m, const char *model, double period_us)
{
    rts_metric_label_text(m, "model", model);
    if (period_us == floor(period_us)) {
        rts_metric_label_int(m, "period_us", (long long)period_us);
    } else {
        char text[32];
        snprintf(text, sizeof text, "%g", period_us);
        rts_metric_label_text(m, "period_us", text);
    }
}

bool wave_metrics_make(rts_ctx *ctx, wave_metrics *w, const char *model, double period_us)
{
    w->period = rts_ctx_metric(ctx, "wave.period", "a period of the wave, rising edge to rising edge", false);
    w->high = rts_ctx_metric(ctx, "wave.high", "a high time of the wave, rising edge to falling edge", false);
    /* Steps of 1e-6 and 0.001 %: an error of 1 ns in a period of 1 ms still shows. */
    w->rel_error = rts_ctx_metric_unit(ctx, "wave.rel_error", "|period - nominal| / nominal", RTS_UNIT_RATIO, 1e-6);
    w->duty = rts_ctx_metric_unit(ctx, "wave.duty", "high time / period x 100", RTS_UNIT_PERCENT, 0.001);
    if (!w->period || !w->high || !w->rel_error || !w->duty)
        return false;
    /* The generator's lateness on a busy machine is what they measure. */
    rts_metric_ignore_throttling(w->period);
    rts_metric_ignore_throttling(w->high);
    rts_metric *all[] = { w->period, w->high, w->rel_error, w->duty };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        label(all[i], model, period_us);
    w->nominal_ns = (uint64_t)llround(period_us * 1000.0);
    return true;
}

void wave_metrics_add(void *arg, const rts_period *p)
{
    wave_metrics *w = arg;
    rts_metric_add(w->period, (double)p->period_ns);
    rts_metric_add(w->high, (double)p->high_ns);
    rts_metric_add(w->rel_error, rts_period_rel_error(p, w->nominal_ns));
    rts_metric_add(w->duty, rts_period_duty(p));
}

void wave_metrics_check(const wave_metrics *w, const rts_edge_counts *c, uint64_t resolution_ns,
                        double blind_fraction)
{
    rts_metric_check_int(w->period, "edges_seen", (long long)c->edges_seen);
    rts_metric_check_int(w->period, "periods_judged", (long long)c->periods_judged);
    rts_metric_check_int(w->period, "periods_blind", (long long)c->periods_blind);
    rts_metric_check_int(w->period, "missed_periods", (long long)c->missed_periods);
    rts_metric_check_int(w->period, "resolution_ns", (long long)resolution_ns);
    rts_metric_check_double(w->period, "blind_fraction", blind_fraction);
}

void wave_metrics_invalidate(const wave_metrics *w, const char *fmt, ...)
{
    char reason[RTS_MESSAGE_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    rts_metric *all[] = { w->period, w->high, w->rel_error, w->duty };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rts_metric_invalidate(all[i], "%s", reason);
}
