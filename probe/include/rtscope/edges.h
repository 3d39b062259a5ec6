/*
 * Edge analysis of a square wave (docs/wave.md): whoever observed the
 * edges — the probe's observer polling a pin, a GPIO line, a logic
 * analyzer's capture — feeds them here, and the same periods, high times,
 * errors and checks come out.
 *
 * Edges come in time order with their level after the edge. Blind
 * intervals (when the observer was not looking) come in time order too,
 * before any edge later than their start. An edge stamped inside a blind
 * interval (the look that ended the gap found it) is uncertain, and so
 * are the periods it bounds; a blind interval of half the nominal period
 * or more could hide a whole pulse, so the period it falls in is not
 * judged either. A shorter gap that ends without an edge hid nothing: the
 * periods around it are exact. Memory is bounded: nothing is kept per edge.
 */
#ifndef RTSCOPE_EDGES_H
#define RTSCOPE_EDGES_H

#include <stdbool.h>
#include <stdint.h>

/* What the analysis judged and counted, beside the per-period samples. */
typedef struct {
    uint64_t edges_seen;        /* changes of level fed */
    uint64_t periods_judged;    /* rising-to-rising periods given to on_period */
    uint64_t periods_blind;     /* periods a blind interval made uncertain: not judged */
    uint64_t missed_periods;    /* judged periods longer than 1.5 × nominal */
    uint64_t repeated_levels;   /* an edge to the level already held (a glitch the observer missed) */
    uint64_t blind_ns;          /* total time blind */
    uint64_t first_ns, last_ns; /* first and last edge seen */
} rts_edge_counts;

/* One judged period: rising edge at start_ns, falling at start_ns + high_ns,
 * next rising at start_ns + period_ns. */
typedef struct {
    uint64_t start_ns, period_ns, high_ns;
} rts_period;

typedef struct {
    uint64_t nominal_period_ns;
    void (*on_period)(void *arg, const rts_period *p); /* each judged period */
    void *arg;
    /* state */
    int level;                   /* -1: unknown yet */
    uint64_t rise_ns, fall_ns;   /* last rising edge (0: none yet), falling edge after it (0: none) */
    uint64_t blind_until_ns;     /* end of the latest blind interval */
    bool rise_blind;             /* a blind interval started after the last rising edge */
    rts_edge_counts counts;
} rts_edges;

/* Start an analysis of a wave of the given nominal period. */
void rts_edges_init(rts_edges *e, uint64_t nominal_period_ns, void (*on_period)(void *arg, const rts_period *p),
                    void *arg);

/* The observer was blind from from_ns to to_ns (to_ns > from_ns). */
void rts_edges_blind(rts_edges *e, uint64_t from_ns, uint64_t to_ns);

/* Edges are known to be missing between from_ns and to_ns (a GPIO line's
 * events the kernel dropped): blind time, and the period they fall in is
 * not judged however short the interval (a short gap that ends with no edge
 * hides nothing, but this one hid edges for certain). */
void rts_edges_missing(rts_edges *e, uint64_t from_ns, uint64_t to_ns);

/* The level became level (0 or 1) at at_ns. */
void rts_edges_edge(rts_edges *e, uint64_t at_ns, int level);

/* What docs/wave.md records of a judged period p of a wave of nominal
 * period nominal_ns: its relative error |period - nominal| / nominal (a
 * ratio), and its duty cycle, high time / period x 100 (percent). */
double rts_period_rel_error(const rts_period *p, uint64_t nominal_ns);
double rts_period_duty(const rts_period *p);

#endif
