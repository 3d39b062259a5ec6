"""Square waves' envelopes (analysis.envelope) on made-up runs with exact answers."""

import itertools

from rtscope.analysis import envelope
from rtscope.analysis.envelope import EnvelopeCell, Reach
from rtscope.model import result
from support import builders

RUN_NUMBERS = itertools.count(1)  # every run made here has an id of its own


def sweep(model: str, worsts: dict[int, list[float]], *, load: str | None = None, valid: bool = True) -> list[dict]:
    """A run per period and repetition of ``model``: ``worsts`` maps a period to each repetition's max error."""
    return [
        builders.wave_doc(
            model,
            period,
            error=min(worst, 0.001),
            worst=worst,
            load=load,
            valid=valid,
            run_id=f"{next(RUN_NUMBERS):016x}",
        )
        for period, each in worsts.items()
        for worst in each
    ]


def test_the_builders_make_valid_format_4_runs():
    doc = builders.wave_doc("python", 1000, error=0.002, worst=0.04)
    result.from_doc(doc, "built")
    metrics = {m["id"]: m for m in doc["metrics"]}
    assert {m["id"]: m["unit"] for m in doc["metrics"]} == {
        "wave.period": "ns",
        "wave.high": "ns",
        "wave.rel_error": "ratio",
        "wave.duty": "percent",
    }
    assert all(m["labels"] == {"model": "python", "period_us": 1000} for m in doc["metrics"])
    assert metrics["wave.rel_error"]["stats"]["max"] == 0.04
    assert metrics["wave.period"]["stats"]["max"] == 1_040_000 and metrics["wave.period"]["stats"]["p50"] == 1e6
    assert metrics["wave.period"]["checks"]["periods_judged"] == 1000


def test_worst_and_median_over_repetitions_and_the_shortest_period_under_each_threshold():
    runs = sweep(
        "c-rt",
        {
            100_000: [0.0001, 0.0003, 0.0002],
            10_000: [0.001, 0.009, 0.002],
            1_000: [0.02, 0.05, 0.03],
            100: [0.2, 0.5, 0.3],
            10: [3.0, 2.0, 2.5],
        },
    )
    (panel,) = envelope.build(runs)
    assert panel.load is None and panel.periods_us == (100_000, 10_000, 1_000, 100, 10)
    (model,) = panel.models
    assert model.name == "c-rt"
    assert model.cells[1] == EnvelopeCell(worst=0.009, median=0.002, valid=3, invalid=0, failed=0)
    assert [cell.worst for cell in model.cells] == [0.0003, 0.009, 0.05, 0.5, 3.0]
    assert model.reaches == (Reach(0.01, 10_000, True), Reach(0.10, 1_000, True))


def test_a_model_that_meets_a_requirement_only_at_a_shorter_period_is_not_monotone():
    (panel,) = envelope.build(sweep("c-busy", {100_000: [0.02], 10_000: [0.005], 1_000: [0.2], 100: [0.004]}))
    assert panel.models[0].reaches == (Reach(0.01, 100, False), Reach(0.10, 100, False))


def test_a_model_that_never_meets_it_and_the_bound_itself_is_not_under():
    (panel,) = envelope.build(sweep("bash", {100_000: [0.01], 10_000: [0.5]}))
    assert panel.models[0].reaches == (Reach(0.01, None, True), Reach(0.10, 100_000, True))


def test_models_in_order_of_appearance_with_a_cell_only_where_measured():
    (panel,) = envelope.build([*sweep("python", {1_000: [0.02]}), *sweep("c-mmap", {1_000: [0.001], 10: [0.05]})])
    assert [model.name for model in panel.models] == ["python", "c-mmap"]
    assert panel.periods_us == (1_000, 10)
    assert panel.models[0].cells[1] is None and panel.models[1].cells[1].worst == 0.05


def test_invalid_runs_are_counted_but_take_no_part():
    runs = [*sweep("node", {1_000: [0.005]}), *sweep("node", {1_000: [0.9]}, valid=False)]
    (panel,) = envelope.build(runs)
    assert panel.models[0].cells == (EnvelopeCell(worst=0.005, median=0.005, valid=1, invalid=1, failed=0),)
    (alone,) = envelope.build(sweep("node", {1_000: [0.9]}, valid=False))
    assert (
        alone.models[0].cells == (EnvelopeCell(None, None, 0, 1, 0),) and alone.models[0].reaches[0].shortest_us is None
    )


def test_a_failed_bench_without_metrics_is_a_failed_cell():
    doc = builders.wave_doc("python", 10)
    doc["benches"][0].update(status="failed", error="the generator died: exit status 1 after 0 edges")
    doc["metrics"] = []
    (panel,) = envelope.build([doc, *sweep("python", {1_000: [0.003]})])
    assert panel.periods_us == (1_000, 10) and panel.models[0].cells[1] == EnvelopeCell(None, None, 0, 0, 1)


def test_runs_under_different_loads_are_panels():
    runs = [*sweep("c-rt", {1_000: [0.001]}, load="idle"), *sweep("c-rt", {1_000: [0.2]}, load="cpu")]
    panels = envelope.build(runs)
    assert [(p.load, p.models[0].cells[0].worst) for p in panels] == [("idle", 0.001), ("cpu", 0.2)]


def test_labels_in_the_id_and_a_period_of_a_fraction():
    doc = builders.wave_doc("c-file", 1000)
    for metric in doc["metrics"]:
        metric["labels"]["period_us"] = "2.5"
        metric["id"] += "{model=c-file,period_us=2.5}"
    result.from_doc(doc, "labelled")
    (panel,) = envelope.build([doc])
    assert panel.periods_us == (2.5,) and panel.models[0].cells[0].worst == 0.005


def test_no_wave_runs_no_panels():
    assert envelope.build([builders.result_doc()]) == ()
