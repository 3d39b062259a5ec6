/*
 * The run loop: set up, measure each requested bench in turn under the
 * watchdog, conclude and publish (see run.h).
 */

#include "context.h"
#include "metrics.h"
#include "rtsetup.h"
#include "text.h"

/* ------------------------------------------------------------ conclude */

/* The other of the main thread and the watchdog is ending the process. */
static void wait_for_process_end(void)
{
    for (;;)
        rts_sleep_ns(1000000000u);
}

/* Close the run and publish it, once: from whichever of the main thread and
 * the watchdog gets here first; the other waits for the process to end.
 * Returns the process exit status (see rts_run_execute). */
static int conclude(rts_run *run)
{
    if (atomic_exchange(&run->concluded, true))
        wait_for_process_end();
    bool failed = false;
    for (unsigned i = 0; i < run->req->nbenches; i++)
        failed |= run->results[i].status == RTS_BENCH_FAILED;
    rts_wallclock(&run->finished_sec, &run->finished_nsec);
    rts_rtsetup_release(); /* nothing measures any more */
    run->status = rts_stop_requested() ? RTS_RUN_INTERRUPTED : failed ? RTS_RUN_FAILED : RTS_RUN_COMPLETE;
    bool published = run->publish(run, run->output_arg);
    if (run->status == RTS_RUN_INTERRUPTED)
        return 130;
    return run->status == RTS_RUN_FAILED || !published ? 1 : 0;
}

/* The watchdog gave up on the bench of ctx (an rts_hang_fn): record it
 * failed and the benches after it skipped, publish, end the process. */
static void abandon_bench(void *arg, rts_ctx *ctx, double late_s, double held_s, uint64_t now_ns)
{
    rts_run *run = arg;
    rts_bench_result *r = ctx->result;
    char held[80] = "";
    if (held_s >= 0.1)
        rts_text_into(held, sizeof held, " (and %.1f s more when the process did not run at all)", held_s);
    r->status = RTS_BENCH_FAILED; /* overrides "failed" reasons given before: hanging is what matters */
    rts_text_into(r->error, sizeof r->error,
                  "stopped by the watchdog: still running %.1f s after it was asked to stop%s (hung, or not "
                  "checking the stop flag); its metrics hold what it measured until then",
                  late_s, held);
    r->elapsed_s = (double)(now_ns - ctx->started_ns) / 1e9;
    for (rts_bench_result *later = r + 1; later < run->results + run->req->nbenches; later++) {
        later->status = RTS_BENCH_SKIPPED;
        rts_text_into(later->error, sizeof later->error, "not run: the probe ended after %s hung", r->bench->id);
    }
    if (!run->req->quiet)
        rts_text_fmt(rts_diag_write, "rtscope-probe: %s failed: %s\n", r->bench->id, r->error);
    rts_process_end(conclude(run));
}

/* ----------------------------------------------------------------- run */

/* Wait phase_ns from now, to the clock's resolution: a sleep in whole ticks
 * (an RTOS) ends on a tick, whatever the phase asked, so the last tick of
 * it is spent reading the clock instead. */
static void wait_phase(uint64_t phase_ns)
{
    uint64_t until = rts_time_ns() + phase_ns;
    uint64_t tick = rts_sleep_granularity_ns();
    if (phase_ns > tick)
        rts_sleep_until_ns(until - tick);
    while (rts_time_ns() < until)
        ;
}

/* The bench's progress line: what it will take, never a figure it will not
 * (a bench whose length is its own gets its bound). */
static void announce(const rts_bench *b, const rts_ctx *ctx, double planned_s)
{
    double announced_s = b->announced_s ? b->announced_s(ctx) : planned_s;
    if (announced_s > 0.0)
        rts_text_fmt(rts_diag_write, "rtscope-probe: %s for %.*f s\n", b->id, announced_s < 1.0 ? 2 : 1,
                     announced_s);
    else
        rts_text_fmt(rts_diag_write, "rtscope-probe: %s until done, at most %.1f s\n", b->id, planned_s);
}

/* Measure bench result r's bench, unless the target cannot run it: then it
 * is skipped with the reason, before anything of it starts. */
static void run_bench(rts_run *run, rts_bench_result *r)
{
    const rts_bench *b = r->bench;
    rts_ctx ctx = { .run = run, .result = r };
    char why[RTS_MESSAGE_TEXT] = ""; /* the error only of a bench skipped */
    if (!rts_bench_can_run(b, &ctx, rts_port_caps(), why, sizeof why)) {
        r->status = RTS_BENCH_SKIPPED;
        rts_text_into(r->error, sizeof r->error, "%s", why);
        if (!run->req->quiet)
            rts_text_fmt(rts_diag_write, "rtscope-probe: %s skipped: %s\n", b->id, r->error);
        return;
    }
    if (rts_sem_create(&ctx.stopped, 0, 1) != RTS_OK)
        ctx.stopped = NULL; /* the supervisor then looks every tick */
    double planned_s = b->planned_s ? b->planned_s(&ctx) : 0.0;
    if (planned_s <= 0.0)
        planned_s = run->req->duration_s;
    if (!run->req->quiet)
        announce(b, &ctx, planned_s);
    /* A rerun on an emulator counting instructions repeats to the bit; a
     * real machine starts each bench at a phase of its own against the
     * tick, the timers and the loads. The seed gives that phase back. */
    if (run->req->has_seed)
        wait_phase(rts_run_phase_ns(run->req->seed, (unsigned)(r - run->results)));
    ctx.started_ns = ctx.window_ns = rts_time_ns();
    ctx.deadline_ns = ctx.started_ns + (uint64_t)(planned_s * 1e9);
    r->status = RTS_BENCH_OK;
    rts_watchdog_watch(&run->watchdog, &ctx, ctx.deadline_ns);
    b->run(&ctx);
    if (!rts_watchdog_release(&run->watchdog, &ctx))
        wait_for_process_end();
    r->elapsed_s = (double)(rts_time_ns() - ctx.started_ns) / 1e9;
    for (unsigned k = 0; k < r->nmetrics; k++)
        rts_metric_judge_throttling(r->metrics[k]);
    rts_sem_destroy(ctx.stopped);
    if (r->status == RTS_BENCH_OK && rts_stop_requested())
        r->status = RTS_BENCH_INTERRUPTED;
}

int rts_run_execute(rts_run *run)
{
    rts_wallclock(&run->started_sec, &run->started_nsec);
    rts_sysinfo_read(&run->sys);
    rts_image_read(&run->image);
    run->warnings.quiet = run->req->quiet;
    rts_rtsetup_apply(&run->req->requested, run->req->refuse_privilege, &run->sys, &run->granted, &run->warnings);
#ifdef RTS_BUILD_WARNING
    /* A fact of the build every result of it must carry (port/common/kernel.mk: a kernel version the
     * port was not tested with). */
    rts_warn(&run->warnings, "%s", RTS_BUILD_WARNING);
#endif
    rts_timing_calibrate(&run->timing, true);
    run->quiet_supervision = rts_cpu_count() == 1 && !run->stop_requests;
    if (!rts_watchdog_start(&run->watchdog, run->granted.policy, run->req->grace_s, run->quiet_supervision,
                            abandon_bench, run))
        rts_warn(&run->warnings, "the watchdog could not start: a hung bench would hang the probe");
    run->started(run, run->output_arg);
    for (unsigned i = 0; i < run->req->nbenches; i++) {
        rts_bench_result *r = &run->results[i];
        if (rts_stop_requested()) {
            r->status = RTS_BENCH_SKIPPED;
            rts_text_into(r->error, sizeof r->error, "not run: the run was interrupted");
        } else {
            run_bench(run, r);
            if (r->status == RTS_BENCH_FAILED && !run->req->quiet)
                rts_text_fmt(rts_diag_write, "rtscope-probe: %s failed: %s\n", r->bench->id, r->error);
        }
        run->measured(run, run->output_arg);
    }
    rts_watchdog_stop(&run->watchdog);
    return conclude(run);
}

void rts_run_release(rts_run *run)
{
    for (unsigned i = 0; i < run->req->nbenches; i++) {
        rts_bench_result *r = &run->results[i];
        for (unsigned k = 0; k < r->nmetrics; k++)
            rts_metric_free(r->metrics[k]);
        r->nmetrics = 0;
    }
}
