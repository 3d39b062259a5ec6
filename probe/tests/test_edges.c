/*
 * Edge analysis (rtscope/edges.h) on edge lists made by hand, whose
 * periods, high times, errors and counts are known.
 */
#include <string.h>

#include "check.h"
#include "rtscope/edges.h"

#define NOMINAL 1000u

/* The periods the analysis judged. */
typedef struct {
    rts_period p[32];
    unsigned n;
} judged;

static void collect(void *arg, const rts_period *p)
{
    judged *j = arg;
    if (j->n < sizeof j->p / sizeof j->p[0])
        j->p[j->n++] = *p;
}

/* One fed event: an edge to level at at_ns, or (level -1) a blind interval from at_ns to until_ns. */
typedef struct {
    uint64_t at_ns;
    int level;
    uint64_t until_ns;
} event;

#define RISE(t) { t, 1, 0 }
#define FALL(t) { t, 0, 0 }
#define BLIND(from, to) { from, -1, to }

/* Feed n events to a fresh analysis e collecting into j. */
static void feed(rts_edges *e, judged *j, const event *ev, unsigned n)
{
    memset(j, 0, sizeof *j);
    rts_edges_init(e, NOMINAL, collect, j);
    for (unsigned i = 0; i < n; i++) {
        if (ev[i].level < 0)
            rts_edges_blind(e, ev[i].at_ns, ev[i].until_ns);
        else
            rts_edges_edge(e, ev[i].at_ns, ev[i].level);
    }
}

/* j holds exactly the n periods of want. */
static void check_judged(const judged *j, const rts_period *want, unsigned n)
{
    CHECK(j->n == n, "%u periods judged, not %u", j->n, n);
    for (unsigned k = 0; k < n && k < j->n; k++) {
        const rts_period *p = &j->p[k];
        CHECK(p->start_ns == want[k].start_ns && p->period_ns == want[k].period_ns && p->high_ns == want[k].high_ns,
              "period %u: start %llu period %llu high %llu", k, (unsigned long long)p->start_ns,
              (unsigned long long)p->period_ns, (unsigned long long)p->high_ns);
    }
}

static void test_exact_wave(void)
{
    static const event ev[] = { RISE(1000), FALL(1500), RISE(2000), FALL(2500), RISE(3000), FALL(3500), RISE(4000) };
    rts_edges e;
    judged j;
    feed(&e, &j, ev, sizeof ev / sizeof ev[0]);
    static const rts_period want[] = { { 1000, 1000, 500 }, { 2000, 1000, 500 }, { 3000, 1000, 500 } };
    check_judged(&j, want, 3);
    for (unsigned k = 0; k < j.n; k++) {
        CHECK(rts_period_rel_error(&j.p[k], NOMINAL) == 0.0, "no error");
        CHECK(rts_period_duty(&j.p[k]) == 50.0, "50 %%");
    }
    const rts_edge_counts *c = &e.counts;
    CHECK(c->edges_seen == 7 && c->periods_judged == 3 && c->periods_blind == 0 && c->missed_periods == 0 &&
              c->repeated_levels == 0 && c->blind_ns == 0,
          "counts");
    CHECK(c->first_ns == 1000 && c->last_ns == 4000, "first %llu last %llu", (unsigned long long)c->first_ns,
          (unsigned long long)c->last_ns);
}

static void test_errors_and_duty(void)
{
    /* Periods 1010, 990, 1030 and 970: the largest error is 30 ns of 1000, both ways. */
    static const event ev[] = { RISE(1000), FALL(1250), RISE(2010), FALL(2505), RISE(3000),
                                FALL(3750), RISE(4030), FALL(4530), RISE(5000) };
    rts_edges e;
    judged j;
    feed(&e, &j, ev, sizeof ev / sizeof ev[0]);
    static const rts_period want[] = { { 1000, 1010, 250 }, { 2010, 990, 495 }, { 3000, 1030, 750 },
                                       { 4030, 970, 500 } };
    check_judged(&j, want, 4);
    double max = 0;
    for (unsigned k = 0; k < j.n; k++)
        max = rts_period_rel_error(&j.p[k], NOMINAL) > max ? rts_period_rel_error(&j.p[k], NOMINAL) : max;
    CHECK(max == 0.03, "max relative error %.17g", max);
    CHECK(rts_period_rel_error(&j.p[3], NOMINAL) == 0.03, "an early period's error is a magnitude");
    CHECK(rts_period_duty(&j.p[0]) == 250.0 / 1010.0 * 100.0, "duty %.17g", rts_period_duty(&j.p[0]));
    CHECK(rts_period_duty(&j.p[1]) == 50.0 && rts_period_duty(&j.p[2]) == 75.0 / 1.03, "duty");
    CHECK(e.counts.missed_periods == 0, "none missed");
}

static void test_missed_period(void)
{
    /* 1500 is 1.5 x nominal: kept; 1501 is longer: a missed period. */
    static const event ev[] = { RISE(1000), FALL(1500), RISE(2500), FALL(3000), RISE(4001), FALL(4500), RISE(5500) };
    rts_edges e;
    judged j;
    feed(&e, &j, ev, sizeof ev / sizeof ev[0]);
    static const rts_period want[] = { { 1000, 1500, 500 }, { 2500, 1501, 500 }, { 4001, 1499, 499 } };
    check_judged(&j, want, 3);
    CHECK(e.counts.periods_judged == 3 && e.counts.missed_periods == 1, "judged %llu missed %llu",
          (unsigned long long)e.counts.periods_judged, (unsigned long long)e.counts.missed_periods);
}

static void test_glitch(void)
{
    /* A second fall at 1700 and a second rise at 2300: the levels between were missed. */
    static const event ev[] = { RISE(1000), FALL(1500), FALL(1700), RISE(2000), RISE(2300), FALL(2500), RISE(3000) };
    rts_edges e;
    judged j;
    feed(&e, &j, ev, sizeof ev / sizeof ev[0]);
    CHECK(e.counts.repeated_levels == 2 && e.counts.edges_seen == 5, "repeated %llu seen %llu",
          (unsigned long long)e.counts.repeated_levels, (unsigned long long)e.counts.edges_seen);
    static const rts_period want[] = { { 1000, 1000, 500 }, { 2000, 1000, 500 } };
    check_judged(&j, want, 2);
}

/* The observer stamps an edge found by the look that ends a gap at the
 * gap's end, inside the interval it reports (hence the + 1 below). */
static void test_blind_intervals(void)
{
    static const event ev[] = {
        BLIND(100, 900),                                 /* before any edge: no period overlaps it */
        RISE(1000), FALL(1500), RISE(2000),              /* judged */
        BLIND(2200, 2300), FALL(2500), RISE(3000),       /* a short gap with no edge at its end: judged */
        FALL(3500), RISE(4000), FALL(4400),              /* 3000..4000 judged */
        BLIND(4450, 5600), RISE(5000), FALL(5400),       /* long enough to hide a pulse, and spans the rise at */
        RISE(6000), FALL(6500), RISE(7000),              /* 5000: 4000..5000 and 5000..6000 not judged; then judged */
        BLIND(7100, 7501), FALL(7500), RISE(8000),       /* a falling edge found after a gap: 7000..8000 not judged */
        FALL(8500), RISE(9000), FALL(9500),              /* 8000..9000 judged */
        BLIND(9900, 10001), RISE(10000), FALL(10500),    /* a rising edge found after a gap: the periods on */
        RISE(11000), FALL(11500), RISE(12000),           /* either side not judged; 11000..12000 judged */
    };
    rts_edges e;
    judged j;
    feed(&e, &j, ev, sizeof ev / sizeof ev[0]);
    static const rts_period want[] = { { 1000, 1000, 500 }, { 2000, 1000, 500 }, { 3000, 1000, 500 },
                                       { 6000, 1000, 500 }, { 8000, 1000, 500 }, { 11000, 1000, 500 } };
    check_judged(&j, want, 6);
    CHECK(e.counts.periods_judged == 6 && e.counts.periods_blind == 5, "judged %llu blind %llu",
          (unsigned long long)e.counts.periods_judged, (unsigned long long)e.counts.periods_blind);
    CHECK(e.counts.blind_ns == 800 + 100 + 1150 + 401 + 101, "blind %llu ns", (unsigned long long)e.counts.blind_ns);
}

static void test_overlapping_blind_counted_once(void)
{
    static const event ev[] = { BLIND(100, 300), BLIND(200, 400), BLIND(250, 350) };
    rts_edges e;
    judged j;
    feed(&e, &j, ev, sizeof ev / sizeof ev[0]);
    CHECK(e.counts.blind_ns == 300, "blind %llu ns", (unsigned long long)e.counts.blind_ns);
}

static void test_first_edge_falling(void)
{
    static const event ev[] = { FALL(500), RISE(1000), FALL(1500), RISE(2000) };
    rts_edges e;
    judged j;
    feed(&e, &j, ev, sizeof ev / sizeof ev[0]);
    static const rts_period want[] = { { 1000, 1000, 500 } };
    check_judged(&j, want, 1);
    CHECK(e.counts.edges_seen == 4 && e.counts.first_ns == 500, "the falling edge was seen");
}

static void test_no_edges(void)
{
    rts_edges e;
    judged j;
    feed(&e, &j, NULL, 0);
    static const rts_edge_counts zero;
    CHECK(memcmp(&e.counts, &zero, sizeof zero) == 0 && j.n == 0, "nothing counted");
    static const event one_rise[] = { RISE(1000) };
    feed(&e, &j, one_rise, 1);
    CHECK(j.n == 0 && e.counts.edges_seen == 1 && e.counts.periods_judged == 0, "one edge: no period");
}

/* R1000 F1500 R2000, a falling edge dropped, R3000 F3500 R4000: the repeated rise at 3000 is ignored
 * (the period in progress goes on), so 2000..4000 is one period that hid an edge. */
static void feed_with_a_drop(rts_edges *e, judged *j, void (*mark)(rts_edges *, uint64_t, uint64_t))
{
    static const event before[] = { RISE(1000), FALL(1500), RISE(2000) };
    feed(e, j, before, 3);
    mark(e, 2000, 2101); /* shorter than half a period */
    rts_edges_edge(e, 3000, 1);
    rts_edges_edge(e, 3500, 0);
    rts_edges_edge(e, 4000, 1);
}

static void test_missing_edges(void)
{
    rts_edges e;
    judged j;
    static const rts_period first[] = { { 1000, 1000, 500 }, { 2000, 2000, 1500 } };
    /* A short blind gap hid nothing as far as the analysis knows: 2000..4000 is judged, a missed period. */
    feed_with_a_drop(&e, &j, rts_edges_blind);
    check_judged(&j, first, 2);
    CHECK(e.counts.missed_periods == 1, "%llu missed", (unsigned long long)e.counts.missed_periods);
    /* Known missing edges: that period is not judged, however short the gap. */
    feed_with_a_drop(&e, &j, rts_edges_missing);
    check_judged(&j, first, 1);
    CHECK(e.counts.periods_blind == 1 && e.counts.blind_ns == 101 && e.counts.missed_periods == 0,
          "blind %llu periods, %llu ns", (unsigned long long)e.counts.periods_blind,
          (unsigned long long)e.counts.blind_ns);
}

int main(void)
{
    test_exact_wave();
    test_errors_and_duty();
    test_missed_period();
    test_glitch();
    test_blind_intervals();
    test_overlapping_blind_counted_once();
    test_first_edge_falling();
    test_no_edges();
    test_missing_edges();
    return check_report("test_edges");
}
