/* Parameters: defaults and --param assignments (see params.h). */
#include "params.h"

#include "context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rts_param_choices(const rts_param_decl *p)
{
    return p->kind == RTS_PARAM_KIND_CHOICE ? p->def + strlen(p->def) + 1 : NULL;
}

const char *rts_param_choice_next(const char **cursor, size_t *len)
{
    const char *word = *cursor;
    if (!word)
        return NULL;
    *len = strcspn(word, ",");
    *cursor = word[*len] ? word + *len + 1 : NULL;
    return word;
}

int rts_param_index(const rts_bench *b, const char *name)
{
    for (unsigned i = 0; i < b->nparams; i++)
        if (strcmp(b->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Parse text as numeric parameter p's value into *out; false with a reason. */
static bool parse_number(const rts_param_decl *p, const char *text, double *out, char *err, size_t errsize)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v)) {
        snprintf(err, errsize, "'%s' is not a number", text);
        return false;
    }
    if (p->kind == RTS_PARAM_KIND_INT && v != floor(v)) {
        snprintf(err, errsize, "'%s' is not a whole number", text);
        return false;
    }
    if (v < p->min || v > p->max) {
        snprintf(err, errsize, "must be between %.15g and %.15g, not %s", p->min, p->max, text);
        return false;
    }
    *out = v;
    return true;
}

/* True when text is one of the comma-separated words of choices. */
static bool is_choice(const char *choices, const char *text)
{
    size_t n;
    for (const char *word, *cursor = choices; (word = rts_param_choice_next(&cursor, &n));)
        if (n == strlen(text) && strncmp(word, text, n) == 0)
            return true;
    return false;
}

/* Check text as text parameter p's value; false with a reason. */
static bool check_text(const rts_param_decl *p, const char *text, char *err, size_t errsize)
{
    if (strlen(text) >= RTS_PARAM_TEXT_MAX) {
        snprintf(err, errsize, "'%.24s...' is longer than %d characters", text, RTS_PARAM_TEXT_MAX - 1);
        return false;
    }
    const char *choices = rts_param_choices(p);
    if (choices && !is_choice(choices, text)) {
        snprintf(err, errsize, "'%.40s' is not one of %s", text, choices);
        return false;
    }
    return true;
}

/* Set parameter i of result r to text, checked against its declaration;
 * false with a reason (r unchanged). A text value is text itself, which
 * outlives the run: a declared default or a request's assignment. */
static bool parse_param(rts_bench_result *r, unsigned i, const char *text, char *err, size_t errsize)
{
    const rts_param_decl *p = &r->bench->params[i];
    if (p->kind == RTS_PARAM_KIND_FLOAT || p->kind == RTS_PARAM_KIND_INT)
        return parse_number(p, text, &r->values[i], err, errsize);
    if (!check_text(p, text, err, errsize))
        return false;
    r->values[i] = NAN;
    r->texts[i] = text;
    return true;
}

/* Bind result r to bench b with b's default values; false (a bug in the
 * bench, not bad input) when a default is not acceptable. */
static bool apply_defaults(rts_bench_result *r, const rts_bench *b, char *err, size_t errsize)
{
    r->bench = b;
    /* A build with fewer parameter slots than a bench declares (a small
     * board's config.h) cannot run it: say so rather than overrun them. */
    if (b->nparams > RTS_MAX_PARAMS) {
        snprintf(err, errsize, "bench %s has %u parameters; this build holds %d (RTS_MAX_PARAMS)", b->id,
                 b->nparams, RTS_MAX_PARAMS);
        return false;
    }
    for (unsigned i = 0; i < b->nparams; i++) {
        char why[160];
        if (!parse_param(r, i, b->params[i].def, why, sizeof why)) {
            snprintf(err, errsize, "bench %s: bad default: %s", b->id, why);
            return false;
        }
    }
    return true;
}

/* Apply one assignment to bench result r if it concerns it; returns whether it did. */
static bool apply_assignment(rts_bench_result *r, const rts_assignment *a, char *err, size_t errsize, bool *bad)
{
    if (a->bench && strcmp(a->bench, r->bench->id) != 0)
        return false;
    int i = rts_param_index(r->bench, a->key);
    if (i < 0)
        return false;
    char why[160];
    if (!parse_param(r, (unsigned)i, a->value, why, sizeof why)) {
        snprintf(err, errsize, "bench %s: parameter %s: %s", r->bench->id, a->key, why);
        *bad = true;
    }
    return true;
}

/* Apply assignment a to every bench it concerns; false when it is bad or concerns none. */
static bool apply_everywhere(rts_run *run, const rts_assignment *a, char *err, size_t errsize)
{
    bool used = false, bad = false;
    for (unsigned b = 0; b < run->req->nbenches && !bad; b++)
        used |= apply_assignment(&run->results[b], a, err, errsize, &bad);
    if (bad)
        return false;
    if (used)
        return true;
    if (a->bench)
        snprintf(err, errsize, "bench %s is not selected or has no parameter '%s'", a->bench, a->key);
    else
        snprintf(err, errsize, "no selected bench has a parameter '%s' (rtscope-probe list shows them)", a->key);
    return false;
}

/* The bench's own check of its resolved parameters taken together. */
static bool params_agree(rts_run *run, rts_bench_result *r, char *err, size_t errsize)
{
    if (!r->bench->params_ok)
        return true;
    const rts_ctx ctx = { .run = run, .result = r };
    char why[RTS_MESSAGE_TEXT] = "";
    if (r->bench->params_ok(&ctx, why, sizeof why))
        return true;
    snprintf(err, errsize, "bench %s: %s", r->bench->id, why);
    return false;
}

bool rts_params_resolve(rts_run *run, char *err, size_t errsize)
{
    const rts_run_request *req = run->req;
    for (unsigned b = 0; b < req->nbenches; b++)
        if (!apply_defaults(&run->results[b], req->benches[b], err, errsize))
            return false;
    for (unsigned a = 0; a < req->nassignments; a++)
        if (!apply_everywhere(run, &req->assignments[a], err, errsize))
            return false;
    for (unsigned b = 0; b < req->nbenches; b++)
        if (!params_agree(run, &run->results[b], err, errsize))
            return false;
    return true;
}

/* Here, not in run.c, so that whatever writes a result (result.c) links it. */
uint64_t rts_run_phase_ns(uint32_t seed, unsigned index)
{
    /* splitmix64's finaliser: consecutive seeds and indices give unrelated phases. */
    uint64_t z = ((uint64_t)seed << 32 | index) + UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return (z ^ (z >> 31)) % RTS_PHASE_MAX_NS;
}
