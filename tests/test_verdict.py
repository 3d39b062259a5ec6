"""The verdict per factor (rtscope.analysis.factors, rendered by render.sections.verdict): designs built here
as result documents — a 2×2 with an interaction, a factor that makes no real difference, a study of
8 × 8 × 3 = 192 cells, runs that are no campaign — and compare's and the report's use of it."""

import textwrap
from pathlib import Path
from typing import Any

import pytest

from rtscope.analysis import factors
from rtscope.model import result
from rtscope.render import text
from rtscope.render.fmt import Style
from rtscope.render.sections import verdict
from rtscope.store.database import Store
from support import builders
from support.studies import spread_metric, wave_study

# How repetitions of one cell move against each other: a few percent, as reruns on a real machine (or on an
# emulator whose runs vary their phase) do.
RERUNS = (1.0, 0.98, 1.02)


def rt_versus_stock(repetitions: int = 3) -> list[dict[str, Any]]:
    """The qemu-rt-vs-stock campaign's design, its figures shaped as a run of it measured them (instruction
    time, 500 samples a run, ``repetitions`` runs a cell a few percent apart): two targets × two loads. Under sched,io PREEMPT_RT cuts the worst wake-up
    from 109 µs to 17.6 µs; idle, the kernels are alike. The timer interrupt is faster on stock under
    either load; the tail of the wake-up's median flips with the load (stock ahead idle, rt under load)."""
    figures = {  # (target, load): {metric: (typical, worst)}
        ("stock", "idle"): {"lat.wakeup": (4590, 14700), "lat.irq": (7860, 19700)},
        ("stock", "sched,io"): {"lat.wakeup": (6320, 109_000), "lat.irq": (9890, 469_000)},
        ("rt", "idle"): {"lat.wakeup": (5070, 15800), "lat.irq": (29500, 48000)},
        ("rt", "sched,io"): {"lat.wakeup": (5520, 17600), "lat.irq": (30400, 47500)},
    }
    return [
        builders.campaign_run(
            number * 10 + repetition,
            {"target": f"qemu:aarch64:{target}:cpus=1", "load": load},
            [
                spread_metric(metric_id, typical * moved, worst * moved, samples=500)
                for metric_id, (typical, worst) in each.items()
            ],
            name="qemu-rt-vs-stock",
            repetition=repetition + 1,
        )
        for number, ((target, load), each) in enumerate(figures.items())
        for repetition, moved in enumerate(RERUNS[:repetitions])
    ]


def lines(section: Any) -> list[str]:
    return text.render([section], Style(False))


def factors_line(shown: list[str]) -> str:
    """The verdict's line that names the factors (after its headline)."""
    return next(line for line in shown if line.startswith(("  Factors", "  No factor")))


def answer(result: factors.FactorVerdict, factor: str, metric: str, stat: str) -> factors.Answer:
    return next(a for a in result.answers if (a.factor.name, a.name, a.stat) == (factor, metric, stat))


def test_a_factor_is_answered_at_equal_levels_of_the_other_and_an_interaction_flagged():
    result = factors.verdict(rt_versus_stock())
    design = result.design
    assert design.from_axes and [(f.name, f.levels) for f in design.factors] == [
        ("target", ("stock", "rt")),  # named by what differs: not "qemu:aarch64:rt:cpus=1"
        ("load", ("idle", "sched,io")),
    ]
    worst = answer(result, "target", "lat.wakeup", "max")
    assert [(d.context, d.best, d.runner_up, d.winner) for d in worst.duels] == [
        (("idle",), "stock", "rt", "stock"),  # 7 % over runs 2 % apart
        (("sched,io",), "rt", "stock", "rt"),
    ]
    assert verdict.sentence(worst).text == (
        "lat.wakeup max: stock beats rt under idle (15.8 µs → 14.7 µs (max of 499 samples a run), 1.07× lower "
        "(1.03–1.12)), real; rt beats stock under sched,io (109 µs → 17.6 µs (max of 499 samples a run), 6.19× lower "
        "(5.92–6.48)), real — interaction: the winner changes with load"
    )
    # The load matters to stock's interrupt, not to rt's: an interaction, though not a change of winner.
    irq_worst = answer(result, "load", "lat.irq", "max")
    assert [(d.context, d.winner) for d in irq_worst.duels] == [(("stock",), "idle"), (("rt",), None)]
    assert irq_worst.changes_with() == ("target",) and irq_worst.changes_with(crossing=True) == ()
    assert verdict.sentence(irq_worst).text == (
        "lat.irq max: idle beats sched,io under stock (469 µs → 19.7 µs (max of 499 samples a run), 23.8× lower "
        "(22.8–24.9)), real; rt: no "
        f"real difference (sched,io 47.5 µs, idle 48.0 µs: {irq_worst.duels[1].difference}) — interaction: the "
        "difference depends on target"
    )
    assert str(irq_worst.duels[1].difference).endswith("(Holm 1.000 of 24), 3 and 3 runs")
    assert verdict.sentence(irq_worst).emphasis == ""  # stressed only where the winner changes
    # The median wake-up: stock ahead idle, rt under load — the winner changes.
    median = answer(result, "target", "lat.wakeup", "p50")
    assert [d.winner for d in median.duels] == ["stock", "rt"] and median.changes_with(crossing=True) == ("load",)
    assert verdict.sentence(median).text.endswith("— interaction: the winner changes with load")
    assert verdict.sentence(median).emphasis == "warn"
    # The timer interrupt: stock ahead under both loads, no interaction.
    irq = answer(result, "target", "lat.irq", "p50")
    assert verdict.sentence(irq).text == (
        "lat.irq p50: stock beats rt under idle (29.5 µs → 7.86 µs, 3.75× lower (3.59–3.93)) and sched,io "
        "(30.4 µs → 9.89 µs, 3.07× lower (2.94–3.22)), real"
    )
    assert verdict.sentence(irq).emphasis == ""


def test_the_section_names_the_factors_and_answers_each_in_its_own_part():
    shown = lines(verdict.section(rt_versus_stock(), ("p50", "p99", "max")))
    assert shown[0] == "Verdict: each factor at equal levels of the others"
    assert (
        factors_line(shown)
        == "  Factors, the campaign's axes: target (stock or rt); load (idle or sched,io). 4 cells, 3 runs each."
    )
    assert shown[1] == (
        "  21 of 24 comparisons real (Holm's adjustment, 95 %); 3 no real difference. Largest: idle beats sched,io in "
        "lat.irq max under stock, 23.8× (22.8–24.9) better; idle beats sched,io in lat.irq p99 under stock, 13.2× "
        "(12.6–13.8) better."
    )
    assert "  target  lat.wakeup  max   sched,io  rt                  6.19× (5.92–6.48)     <0.001" in shown
    assert "  [plot: Effects with their 95 % intervals]" in shown
    assert "  target: stock or rt, at equal load" in shown and "  load: idle or sched,io, at equal target" in shown
    assert (
        "    Of 12 comparisons: stock better in 7, rt in 5; the winner changes with another factor's level in 5 of 6 "
        "lines."
    ) in shown
    assert "  Holm's adjustment over the 24 comparisons of this verdict that runs could tell, and an effect of" in shown
    # A line per metric and statistic and factor: 2 metrics × 3 statistics × 2 factors.
    assert sum(line.startswith("    lat.") for line in shown) == 12


def test_the_verdict_says_what_repetitions_in_instruction_time_varied_or_that_they_tell_nothing():
    runs = rt_versus_stock(repetitions=1)
    assert result.repetitions_note(runs) is None  # hardware time: the machine varies by itself
    for doc in runs:
        doc["target"] = {"name": doc["campaign"]["axes"]["target"], "kind": "qemu", "time_base": "instructions"}
    shown = lines(verdict.section(runs, ("p50", "p99", "max")))
    assert (
        "  These runs are in instruction time without a seed: a rerun repeats such a run to the bit, so its "
        "repetitions are identical and their spread tells nothing."
    ) in shown
    for number, doc in enumerate(runs):
        doc["run"]["seed"] = 1234 + number % 2
    assert (
        result.varied(runs[0])
        == "the phase of each bench's start against the tick, the timers and any loads (seed 1234)"
    )
    shown = lines(verdict.section(runs, ("p50", "p99", "max")))
    assert (
        "  In instruction time a rerun repeats to the bit; these runs' repetitions varied the phase of each bench's "
        "start against the tick, the timers and any loads (seeds 1234, 1235), so their spread is that of the phase "
        "alone."
    ) in shown
    del runs[0]["run"]["seed"]
    assert result.repetitions_note(runs) == (
        "1 of the 4 runs is in instruction time without a seed: a rerun repeats such a run to the bit, so its "
        "repetitions are identical and their spread tells nothing (the others varied the phase of each bench's "
        "start against the tick, the timers and any loads: seeds 1234, 1235)."
    )


def test_a_factor_that_makes_no_real_difference():
    runs = [
        builders.campaign_run(
            number * 10 + repetition,
            {"config": config},
            [spread_metric("lat.wakeup", 15000 * moved, 15000 * moved * 1.1**3)],
            repetition=repetition,
        )
        for number, config in enumerate(("fifo80", "fifo90"))
        for repetition, moved in enumerate(RERUNS, start=1)
    ]
    result = factors.verdict(runs)
    assert [a.stat for a in result.answers] == ["p50", "p99", "max"]
    assert all(duel.winner is None and duel.difference is not None for a in result.answers for duel in a.duels)
    worst = result.answers[2]
    assert worst.alone and not worst.changes_with()
    assert verdict.sentence(worst).text == (
        "lat.wakeup max: no real difference (fifo80 20.0 µs, fifo90 20.0 µs: p=1.000 t (Holm 1.000 of 3), 3 and 3 runs)"
    )


def test_cells_of_one_run_are_not_told_apart_whatever_their_samples_say():
    runs = rt_versus_stock(repetitions=1)
    result = factors.verdict(runs)
    assert all(duel.winner is None for a in result.answers for duel in a.duels)
    worst = answer(result, "target", "lat.wakeup", "max")
    assert verdict.sentence(worst).text == (
        "lat.wakeup max: idle: not told (stock 14.7 µs, rt 15.8 µs: these runs do not differ, p=0.250 tail, one run "
        "each; one run per cell: repeat each to tell); sched,io: not told (rt 17.6 µs, stock 109 µs: these runs "
        "differ, p<0.001 tail, one run each; one run per cell: repeat each to tell)"
    )
    shown = lines(verdict.section(runs, ("max",)))
    assert (
        "  Each cell has one run: how far a rerun moves is unknown, so no difference is told real. Repeat each cell "
        "(a campaign's repetitions: 5 by default) for a verdict."
    ) in shown


def test_a_study_of_192_cells_is_answered_per_factor_in_a_bounded_number_of_lines():
    runs = wave_study()
    result = factors.verdict(runs, ("max",))
    assert len(result.design.cells) == 192 and [f.name for f in result.design.factors] == ["load", "model", "period_us"]
    model = answer(result, "model", "wave.rel_error", "max")
    assert len(model.duels) == 24  # every period × load
    winners = [duel.winner for duel in model.duels]
    # Under CPU load c-rt is best, but at 10 µs, where every model misses periods (its error ~ bash's 2).
    assert winners.count("c-busy") == 16 and winners.count("c-rt") == 7 and winners.count(None) == 1
    assert {duel.context[0] for duel in model.duels if duel.winner != "c-busy"} == {"cpu"}
    assert model.changes_with(crossing=True) == ("load",)
    assert verdict.sentence(model).text == (
        "wave.rel_error max: c-busy best, ahead of c-rt in 16 of 24 load × period_us combinations compared "
        f"({verdict._margins(model, [d for d in model.duels if d.winner == 'c-busy'])}), real; c-rt in 7 (all under "
        "cpu: cpu · period_us=100000, cpu · period_us=31623, cpu · period_us=10000 and 4 more); no real difference "
        "in 1 (cpu · period_us=10) — interaction: the winner changes with load"
    )
    shown = lines(verdict.section(runs, ("p50", "p99", "max")))
    # Three factors, a line per statistic each (one metric), whatever the 192 cells: bounded.
    assert sum(line.startswith("    wave.rel_error ") for line in shown) == 9
    assert max(len(line) for line in shown) < 450  # a win, no real difference and not told: three outcomes
    assert "192 cells, 3 runs each." in factors_line(shown)
    assert "period_us (period_us=100000, period_us=31623," in factors_line(shown)


def test_runs_of_no_campaign_have_the_factors_they_differ_in():
    runs = []
    for kernel, typical in (("stock", 5000), ("rt", 4000)):
        for load, moved in ((load, moved) for load in ("idle", "cpu") for moved in RERUNS):
            doc = builders.result_doc(run_id=f"{len(runs):016x}", label=kernel, benches={})
            doc["system"]["kernel_release"] = f"6.1.0-{kernel}"
            doc["loads"] = [{"name": load}] if load != "idle" else []
            doc["benches"] = [
                {"id": "lat.wakeup", "params": {"cpu": 1}, "status": "ok", "elapsed_s": 1.0, "error": None}
            ]
            doc["metrics"] = [
                spread_metric("lat.wakeup", typical * moved * (2 if load == "cpu" else 1), typical * moved * 4)
            ]
            runs.append(doc)
    result = factors.verdict(runs)
    design = result.design
    assert not design.from_axes
    assert [(f.name, f.levels, f.aliases) for f in design.factors] == [
        # The label and the kernel change together: one factor, named by the setting, not the label.
        ("kernel", ("6.1.0-stock", "6.1.0-rt"), ("label",)),
        ("load", ("(none given)", "cpu"), ()),
    ]
    assert [d.winner for d in answer(result, "kernel", "lat.wakeup", "p50").duels] == ["6.1.0-rt", "6.1.0-rt"]
    shown = lines(verdict.section(runs, ("p50",)))
    assert factors_line(shown).startswith(
        "  Factors, from what differs between the runs (target, time base, kernel, host, preemption, CPU, governor, "
        "clocksource, isolated CPUs, RT throttling, virtualization, load, policy, priority, cpus, mlockall, cycle "
        "counter, the parameters of the benches they all ran, label and campaign): kernel (6.1.0-stock or "
        "6.1.0-rt; label changes with it); load ("
    )
    # compare --by load names the factor by the load.
    assert [f.name for f in factors.design(runs, prefer="kernel").factors] == ["kernel", "load"]


def _pinning_runs(labels: tuple[str, str]) -> list[dict]:
    """Two runs each pinned to CPU 0 and free, labelled by ``labels``; the pinned ones wake sooner."""
    runs = []
    for cpus, label, typical in (([0], labels[0], 4000), ([], labels[1], 6000)):
        for moved in RERUNS[:2]:
            doc = builders.result_doc(run_id=f"{len(runs) + 10:x}" * 16, label=label, benches={})
            doc["config"]["requested"]["cpus"] = doc["config"]["granted"]["cpus"] = cpus
            doc["benches"] = [{"id": "lat.wakeup", "params": {}, "status": "ok", "elapsed_s": 1.0, "error": None}]
            doc["metrics"] = [spread_metric("lat.wakeup", typical * moved, typical * moved * 4)]
            runs.append(doc)
    return runs


def test_pinning_is_a_factor_and_names_what_a_label_changes_with():
    """--cpus 0 against no --cpus: cpus is the factor, whether or not the labels differ with it (they are
    its alias then, never its name); runs that differ in nothing recorded are still runs."""
    for labels in (("same", "same"), ("fast", "slow")):
        result = factors.verdict(_pinning_runs(labels))
        aliases = ("label",) if labels[0] != labels[1] else ()
        assert [(f.name, f.levels, f.aliases) for f in result.design.factors] == [
            ("cpus", ("cpus=0", "cpus=any"), aliases)
        ]
        assert [d.winner for d in answer(result, "cpus", "lat.wakeup", "p50").duels] == ["cpus=0"]
    unpinned = [doc for doc in _pinning_runs(("same", "same")) if not doc["config"]["granted"]["cpus"]]
    assert [f.name for f in factors.design(unpinned).factors] == ["run"]


def test_runs_of_several_campaigns_have_the_campaign_for_a_factor():
    runs = [
        builders.campaign_run(
            kernel * 20 + n * 5 + repetition,
            {"load": load},
            [spread_metric("lat.wakeup", typical * moved, typical * moved * 3)],
            name=name,
            repetition=repetition,
        )
        for kernel, (name, typical) in enumerate((("stock", 5000), ("rt", 4000)))
        for n, load in enumerate(("idle", "cpu"))
        for repetition, moved in enumerate(RERUNS, start=1)
    ]
    result = factors.verdict(runs, ("p50",))
    assert [(f.name, f.levels) for f in result.design.factors] == [
        ("load", ("idle", "cpu")),
        ("campaign", ("stock", "rt")),
    ]
    assert [d.winner for d in answer(result, "campaign", "lat.wakeup", "p50").duels] == ["rt", "rt"]


def test_levels_are_named_by_what_differs_between_them():
    names = factors._names
    assert names("target", ["qemu:aarch64:stock:cpus=1", "qemu:aarch64:rt:cpus=1"]) == {
        "qemu:aarch64:stock:cpus=1": "stock",
        "qemu:aarch64:rt:cpus=1": "rt",
    }
    assert names("target", ["ssh://board-a", "ssh://board-b"]) == {
        "ssh://board-a": "board-a",
        "ssh://board-b": "board-b",
    }
    assert names("target", ["local", "ssh://board"]) == {"local": "local", "ssh://board": "ssh://board"}
    assert names("period_us", ["10", "100"]) == {"10": "period_us=10", "100": "period_us=100"}
    # Contexts are the other factors' levels, joined: "rt · sched,io", never a whole cell's text.
    result = factors.verdict(rt_versus_stock())
    assert {d.context for a in result.answers if a.factor.name == "load" for d in a.duels} == {("stock",), ("rt",)}
    assert factors.level_names(("rt", "sched,io")) == "rt · sched,io"


def test_nothing_to_answer_when_runs_differ_in_everything_or_in_nothing():
    one = builders.campaign_run(0, {"load": "idle"}, [spread_metric("lat.wakeup", 15000, 30000)])
    again = builders.campaign_run(1, {"load": "idle"}, [spread_metric("lat.wakeup", 15000, 30000)], repetition=2)
    shown = lines(verdict.section([one, again], ("p50",)))
    assert shown[1] == "  No factor: the campaign's axes have one level each among these runs, which repeat one cell."
    crossed = [
        builders.campaign_run(n, {"load": load, "config": config}, [spread_metric("lat.wakeup", 15000, 30000)])
        for n, (load, config) in enumerate((("idle", "fifo80"), ("cpu", "fifo90")))
    ]
    # Two runs that differ in load and config at once: one factor, both its names.
    assert [(f.name, f.aliases) for f in factors.design(crossed).factors] == [("load", ("config",))]


def test_compare_answers_a_study_too_large_for_its_table(rtscope, tmp_path: Path):
    paths = [builders.write(tmp_path / f"{n:03d}.json", doc) for n, doc in enumerate(wave_study())]
    outcome = rtscope("compare", *paths, "--stat", "max")
    assert outcome.status == 0, outcome.err
    assert "Verdict: each factor at equal levels of the others" in outcome.out
    assert "wave.rel_error max: c-busy best, ahead of c-rt in 16 of 24" in outcome.out
    assert "Square waves: operating envelopes" in outcome.out  # the study's own tables follow
    assert outcome.out.rstrip().endswith(
        "No comparison table: compare takes at most 26 groups, not 192 (by cell); --by load, or fewer runs, gives one."
    )
    markdown = rtscope("compare", *paths, "--stat", "max", "--format", "markdown")
    assert markdown.status == 0, markdown.err
    assert "## Verdict: each factor at equal levels of the others" in markdown.out
    assert (
        "- wave.rel_error max: c-busy best" in markdown.out and "## Square waves: operating envelopes" in markdown.out
    )
    refused = rtscope("compare", *paths, "--format", "csv")
    assert refused.status != 0 and "compare takes at most 26 groups" in refused.err


KNOWN_CAMPAIGN = """\
    name = "{name}"
    benches = ["app.workload"]
    repetitions = 5
    duration = "30s"
    settle = "0.1s"

    [params]
    op = ["selection", "quick"]
    size = 2000
    iterations = 5

    [[configs]]
    name = "a"

    [[configs]]
    name = "b"
"""


@pytest.mark.usefixtures("probe")
def test_a_real_campaign_finds_the_factor_that_matters_and_not_the_one_that_cannot(rtscope, db_path, tmp_path):
    """Sorting by selection or by quicksort matters many times over; configs a and b are the same settings,
    the same code. Holm's method keeps calling b "real" anywhere below 5 % of campaigns: once may happen,
    so a campaign that does is run again, and twice in a row (1 in 400) fails. So is one whose runs of a
    config were all invalid (a busy machine: the execution's duel in that config has no figure)."""

    def campaign(name: str) -> list[dict[str, Any]]:
        spec = tmp_path / f"{name}.toml"
        spec.write_text(textwrap.dedent(KNOWN_CAMPAIGN.format(name=name)), encoding="utf-8")
        ran = rtscope("campaign", spec)
        assert ran.status == 0, ran.err
        with Store.open(db_path) as store:
            return [run.doc for run in store.campaign_runs(name)]

    def real(result: factors.FactorVerdict, factor: str) -> list[factors.Duel]:
        return [d for a in result.answers if a.factor.name == factor for d in a.duels if d.winner is not None]

    def execution(result: factors.FactorVerdict) -> factors.Answer:
        return answer(result, "op", "app.exec{threads=2,processes=1}", "p50")

    docs = campaign("known")
    result = factors.verdict(docs)
    if real(result, "config") or len(execution(result).duels) < 2:
        docs = campaign("known-again")
        result = factors.verdict(docs)
    assert not real(result, "config")
    invalid = sorted({f"{m['id']}: {m['invalid_reason']}" for doc in docs for m in doc["metrics"] if not m["valid"]})
    assert [d.winner for d in execution(result).duels] == ["quick", "quick"], invalid
