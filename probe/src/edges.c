/* Edge analysis of a square wave (see rtscope/edges.h and docs/wave.md). */
#include "rtscope/edges.h"

#include <string.h>

void rts_edges_init(rts_edges *e, uint64_t nominal_period_ns, void (*on_period)(void *arg, const rts_period *p),
                    void *arg)
{
    memset(e, 0, sizeof *e);
    e->nominal_period_ns = nominal_period_ns;
    e->on_period = on_period;
    e->arg = arg;
    e->level = -1;
}

void rts_edges_blind(rts_edges *e, uint64_t from_ns, uint64_t to_ns)
{
    /* Time already counted blind (an interval overlapping the last one) is not counted twice. */
    uint64_t from = from_ns > e->blind_until_ns ? from_ns : e->blind_until_ns;
    if (to_ns > from)
        e->counts.blind_ns += to_ns - from;
    if (to_ns > e->blind_until_ns)
        e->blind_until_ns = to_ns;
    /* An edge found by the look that ends a gap happened somewhere in it:
     * rts_edges_edge knows such an edge by its time. A gap of half a period
     * or more can also hide a whole pulse, two edges no look notices: the
     * period in progress cannot be judged. A shorter gap that ends with no
     * edge hid nothing — the periods around it are measured exactly. */
    if (2 * (to_ns - from_ns) >= e->nominal_period_ns)
        e->rise_blind = true;
}

void rts_edges_missing(rts_edges *e, uint64_t from_ns, uint64_t to_ns)
{
    rts_edges_blind(e, from_ns, to_ns);
    e->rise_blind = true;
}

/* The period from the last rising edge to one at at_ns is over: judge it,
 * unless a blind interval made one of its edges uncertain or could have
 * hidden a pulse in it. */
static void end_period(rts_edges *e, uint64_t at_ns)
{
    if (e->rise_blind) {
        e->counts.periods_blind++;
        return;
    }
    rts_period p = { .start_ns = e->rise_ns, .period_ns = at_ns - e->rise_ns, .high_ns = e->fall_ns - e->rise_ns };
    e->counts.periods_judged++;
    if (2 * p.period_ns > 3 * e->nominal_period_ns)
        e->counts.missed_periods++;
    e->on_period(e->arg, &p);
}

void rts_edges_edge(rts_edges *e, uint64_t at_ns, int level)
{
    /* Seen within a blind interval: it happened somewhere in the gap. */
    bool uncertain = at_ns < e->blind_until_ns;
    if (level == e->level) {
        /* The other level came and went between two looks: the edges were
         * missed, and the period in progress goes on as seen. */
        e->counts.repeated_levels++;
        return;
    }
    if (e->counts.edges_seen++ == 0)
        e->counts.first_ns = at_ns;
    e->counts.last_ns = at_ns;
    e->level = level;
    if (level == 0) {
        /* A falling edge before any rising one (the wave was high when
         * observing began) starts nothing. */
        if (e->rise_ns) {
            e->fall_ns = at_ns;
            e->rise_blind |= uncertain;
        }
        return;
    }
    if (e->rise_ns) {
        e->rise_blind |= uncertain;
        end_period(e, at_ns);
    }
    e->rise_ns = at_ns;
    e->fall_ns = 0;
    /* An uncertain rising edge ends one period and starts the next. */
    e->rise_blind = uncertain;
}

double rts_period_rel_error(const rts_period *p, uint64_t nominal_ns)
{
    uint64_t off = p->period_ns > nominal_ns ? p->period_ns - nominal_ns : nominal_ns - p->period_ns;
    return (double)off / (double)nominal_ns;
}

double rts_period_duty(const rts_period *p) { return (double)p->high_ns / (double)p->period_ns * 100.0; }
