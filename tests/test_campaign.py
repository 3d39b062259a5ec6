"""Campaigns: spec parsing and its errors, the matrix run and stored cell by cell, resume after Ctrl-C
and kill -9 (nothing lost, nothing twice), readers while a campaign writes."""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import process_env
from rtscope.commands import campaign as campaign_command
from rtscope.commands.context import Context
from rtscope.errors import RtscopeError
from rtscope.execution import campaign, campaign_spec
from rtscope.store.database import Store
from rtscope.targets.fake import FakeTarget
from support.processes import probes_labelled
from support.waiting import until


def spec_file(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


MATRIX = """\
    name = "matrix"
    benches = ["ctxsw.sem", "lat.wakeup"]
    loads = ["idle", "cpu:cpus=0"]
    repetitions = 2
    duration = "500ms"

    [params]
    "lat.wakeup:interval_us" = [1000, 200]
    threshold_us = 50

    [[configs]]
    name = "fifo"
    priority = 90
    cpus = "1"

    [[configs]]
    name = "other"
    policy = "other"
    mlock = false
    rt_throttling = "off"
"""


def test_a_spec_expands_to_its_matrix(tmp_path):
    spec = campaign_spec.load(spec_file(tmp_path, MATRIX))
    assert (spec.name, spec.benches, spec.repetitions, spec.duration_s) == (
        "matrix",
        ("ctxsw.sem", "lat.wakeup"),
        2,
        0.5,
    )
    # Loads × configs × the parameter with several values; a single value is no axis.
    assert [cell.text for cell in spec.cells] == [
        "load=idle config=fifo lat.wakeup:interval_us=1000",
        "load=idle config=fifo lat.wakeup:interval_us=200",
        "load=idle config=other lat.wakeup:interval_us=1000",
        "load=idle config=other lat.wakeup:interval_us=200",
        "load=cpu:cpus=0 config=fifo lat.wakeup:interval_us=1000",
        "load=cpu:cpus=0 config=fifo lat.wakeup:interval_us=200",
        "load=cpu:cpus=0 config=other lat.wakeup:interval_us=1000",
        "load=cpu:cpus=0 config=other lat.wakeup:interval_us=200",
    ]
    first = spec.cells[0]
    assert (first.config.priority, first.config.cpus, spec.cells[2].config.mlock) == (90, (1,), False)
    assert (first.config.rt_throttling_off, spec.cells[2].config.rt_throttling_off) == (False, True)
    assert [str(p) for p in first.params] == ["lat.wakeup:interval_us=1000", "threshold_us=50"]
    assert [str(load) for load in spec.cells[-1].loads] == ["cpu:cpus=0"]


def test_targets_are_an_axis_of_the_matrix_and_each_has_its_share(tmp_path):
    spec = campaign_spec.load(
        spec_file(tmp_path, MATRIX.replace("repetitions = 2", 'repetitions = 2\ntargets = ["local", "ssh://board"]'))
    )
    assert len(spec.cells) == 16 and spec.cells[0].text.startswith("target=local load=idle config=fifo")
    share = spec.on("ssh://board")
    assert len(share.cells) == 8 and all(cell.text.startswith("target=ssh://board ") for cell in share.cells)
    assert spec.plan("ignored")["targets"] == ["local", "ssh://board"] and "target" not in spec.plan("x")
    one = campaign_spec.load(spec_file(tmp_path, 'name = "x"\nbenches = ["a.b"]\ntargets = ["ssh://b"]\n'))
    assert [cell.text for cell in one.cells] == ["load=idle"] and one.cells[0].target == "ssh://b"
    with pytest.raises(RtscopeError, match=r"spec.toml:3: targets: names a target twice"):
        campaign_spec.load(spec_file(tmp_path, 'name = "x"\nbenches = ["a.b"]\ntargets = ["b", "b"]\n'))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('duration = "500ms"', r"spec.toml:5: duration: bad duration '5 parsecs'"),
        ("repetitions = 2", r"spec.toml:4: repetitions: must be one or more, not 0"),
        ('loads = ["idle", "cpu:cpus=0"]', r"spec.toml:3: loads: --load disk: unknown load 'disk'"),
        ('name = "fifo"', r"spec.toml:17: configs\[1\].name: config 'other' is named twice"),
        ("priority = 90", r"spec.toml:13: configs\[0\].priority: priority must be 0..99, not 120"),
        ('policy = "other"', r"spec.toml:18: configs\[1\].policy: 'deadline' is not one of other, fifo, rr"),
        ("threshold_us = 50", r"spec.toml:9: params.threshold_us: must be a number, a string or a non-empty list"),
        ('benches = ["ctxsw.sem", "lat.wakeup"]', r"spec.toml:2: benches: must be a list of strings"),
        ("mlock = false", r"spec.toml:19: configs\[1\].mlock: must be a true or false, not 'no'"),
        ('rt_throttling = "off"', r"spec.toml:20: configs\[1\].rt_throttling: 'lifted' is not on or off"),
        ("repetitions = 2", r"spec.toml:4: repetitoins: unknown key \(known: name, benches,"),
        ('duration = "500ms"', r"spec.toml:5: not TOML: "),
    ],
)
def test_a_bad_spec_names_the_line_and_the_key(tmp_path, change, message):
    replacement = {
        'duration = "500ms"': 'duration = "5 parsecs"' if "parsecs" in message else "duration = 500ms",
        "repetitions = 2": "repetitions = 0" if "one or more" in message else "repetitoins = 2",
        'loads = ["idle", "cpu:cpus=0"]': 'loads = ["idle", "disk"]',
        'name = "fifo"': 'name = "other"',
        "priority = 90": "priority = 120",
        'policy = "other"': 'policy = "deadline"',
        "threshold_us = 50": "threshold_us = []",
        'benches = ["ctxsw.sem", "lat.wakeup"]': 'benches = "ctxsw.sem"',
        "mlock = false": 'mlock = "no"',
        'rt_throttling = "off"': 'rt_throttling = "lifted"',
    }[change]
    with pytest.raises(RtscopeError, match=message):
        campaign_spec.load(spec_file(tmp_path, MATRIX.replace(change, replacement)))


def test_a_series_window_is_passed_to_every_run_and_kept_in_the_plan_when_given(tmp_path):
    plain = campaign_spec.load(spec_file(tmp_path, MATRIX))
    assert plain.series_window_s is None and "series_window_s" not in plain.plan("local")
    assert "--series-window" not in campaign.RequestFor(plain, plain.cells[0], plain.benches)(1).probe_args()
    spec = campaign_spec.load(spec_file(tmp_path, MATRIX.replace('"500ms"', '"500ms"\nseries_window = "250ms"')))
    assert spec.series_window_s == 0.25 and spec.plan("local")["series_window_s"] == 0.25
    args = campaign.RequestFor(spec, spec.cells[0], spec.benches)(1).probe_args()
    assert args[args.index("--series-window") + 1] == "0.25"
    # A resume that drops the key says what it was.
    assert campaign.plan_change(spec.plan("local"), plain.plan("local")) == "series_window_s was 0.25"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"1s"', r"spec.toml:6: series_window: 1 s is longer than duration \(0.5 s\)"),
        ('"0"', r"spec.toml:6: series_window: duration must be more than zero, not '0'"),
        ('"-1s"', r"spec.toml:6: series_window: duration must be more than zero"),
        ('"500us"', r"spec.toml:6: series_window: bad duration '500us'"),
        ('"0.5ms"', r"spec.toml:6: series_window: a series window is at least 1 ms, not '0.5ms'"),
        ("true", r"spec.toml:6: series_window: must be a number or a string, not 'true'"),
    ],
)
def test_a_bad_series_window_names_its_line(tmp_path, value, message):
    with pytest.raises(RtscopeError, match=message):
        campaign_spec.load(spec_file(tmp_path, MATRIX.replace('"500ms"', f'"500ms"\nseries_window = {value}')))


def test_a_spec_without_a_name_or_benches_or_file(tmp_path):
    with pytest.raises(RtscopeError, match=r"spec.toml:1: name: missing"):
        campaign_spec.load(spec_file(tmp_path, 'benches = ["ctxsw.sem"]\n'))
    with pytest.raises(RtscopeError, match=r"spec.toml:1: benches: missing"):
        campaign_spec.load(spec_file(tmp_path, 'name = "x"\n'))
    with pytest.raises(RtscopeError, match=r"spec.toml:5: configs\[1\].name: each of several configs needs a name"):
        campaign_spec.load(spec_file(tmp_path, 'name = "x"\nbenches = ["a.b"]\n[[configs]]\nname = "a"\n[[configs]]\n'))
    with pytest.raises(RtscopeError, match=r"missing.toml: no such campaign spec"):
        campaign_spec.load(tmp_path / "missing.toml")


FAKE_SPEC = """\
    name = "replayed"
    benches = ["ctxsw.sem", "lat.wakeup"]
    repetitions = 3
    settle = 1

    [params]
    "lat.wakeup:cpu" = [1, 0]
"""


def test_a_campaign_stores_every_cell_and_compares_them(fake, tmp_path, db_path):
    outcome = fake("campaign", spec_file(tmp_path, FAKE_SPEC))
    assert outcome.status == 0, outcome.err
    assert "[####################] 6/6" in outcome.err
    with Store.open(db_path) as store:
        runs = store.campaign_runs("replayed")
    cells = [(r.doc["campaign"]["cell"], r.doc["campaign"]["repetition"]) for r in runs]
    assert cells == [(f"load=idle lat.wakeup:cpu={cpu}", repetition) for cpu in (1, 0) for repetition in (1, 2, 3)]
    assert runs[0].doc["run"]["label"] == "replayed: load=idle lat.wakeup:cpu=1 #1"
    assert {b["params"]["cpu"] for r in runs[3:] for b in r.doc["benches"] if b["id"] == "lat.wakeup"} == {0}
    # The summary compares the two cells, three repetitions each.
    assert "A  load=idle lat.wakeup:cpu=1  3 runs" in outcome.out
    again = fake("compare", "campaign:replayed", "--format", "csv")
    assert again.status == 0 and again.out.count("\nlat.wakeup,p50,ns,") == 2


def test_resume_and_its_refusals(fake, tmp_path, db_path, recorded_dir):
    path = spec_file(tmp_path, FAKE_SPEC)
    assert fake("campaign", path, "--resume").err.startswith("rtscope: no campaign named 'replayed' to resume")
    assert fake("campaign", path).status == 0
    outcome = fake("campaign", path, "--resume")
    assert outcome.status == 0 and "is complete: nothing left to measure" in outcome.out
    # More repetitions extend the campaign in place: only the new repetition is measured.
    path.write_text(FAKE_SPEC.replace("repetitions = 3", "repetitions = 4"), encoding="utf-8")
    outcome = fake("campaign", path, "--resume")
    assert outcome.status == 0, outcome.err
    assert "resuming: 6 of 8 runs already measured" in outcome.err and "measured 2 runs" in outcome.err
    with Store.open(db_path) as store:
        assert len(store.campaign_runs("replayed")) == 8
        assert store.campaign("replayed").plan["repetitions"] == 4
    # Every other change is refused, naming it; fewer repetitions too.
    extended = FAKE_SPEC.replace("repetitions = 3", "repetitions = 4")
    for changed, named in (
        (FAKE_SPEC, "repetitions was 4"),
        ('duration = "1s"\n' + textwrap.dedent(extended), "duration_s was 5"),
    ):
        path.write_text(changed, encoding="utf-8")
        outcome = fake("campaign", path, "--resume")
        assert outcome.status == 2 and "changed since" in outcome.err and named in outcome.err, outcome.err
    # So is another target: two machines' runs never mix in one campaign.
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(recorded_dir, elsewhere)
    path.write_text(extended, encoding="utf-8")
    outcome = fake("--target", f"fake:{elsewhere}", "campaign", path, "--resume")
    assert outcome.status == 2 and "target was 'fake:" in outcome.err, outcome.err


def test_repetitions_on_a_deterministic_target_get_seeds_that_a_resume_draws_again(
    tmp_path, db_path, recorded_dir, monkeypatch
):
    """On a target that repeats to the bit, each repetition has a seed of its own, drawn from the campaign
    and the repetition: the cells of one repetition share it, a resumed campaign measures a missing run
    with the seed it would have had, and another campaign draws others. Elsewhere no seed is given."""
    spec = campaign_spec.load(spec_file(tmp_path, FAKE_SPEC))
    target = FakeTarget(recorded_dir)

    def measured(store: Store, *, resume: bool, repetitions: int) -> dict[tuple[str, int], int | None]:
        this, done = campaign.open_campaign(store, spec, target.name, resume=resume)
        # Measure only the first repetitions, as a campaign stopped early would have.
        todo = {(cell.text, r) for cell in spec.cells for r in range(1, repetitions + 1)}
        skipped = {(cell.text, r) for cell in spec.cells for r in range(1, spec.repetitions + 1)} - todo
        requests = campaign.requests_for(spec, target)
        progress = campaign.Progress(len(spec.cells) * spec.repetitions, len(done), 1.0)
        campaign.measure_all(spec, target, store, this, done | skipped, requests, progress)
        runs = store.campaign_runs(spec.name)
        return {(r.doc["campaign"]["cell"], r.doc["campaign"]["repetition"]): r.doc["run"].get("seed") for r in runs}

    with Store.open(db_path, create=True) as store:
        assert set(measured(store, resume=False, repetitions=3).values()) == {None}  # replayed: no seed
    monkeypatch.setattr(target, "record", lambda: {"name": target.name, "kind": "fake", "time_base": "instructions"})
    with Store.open(tmp_path / "first.sqlite", create=True) as store:
        partial = measured(store, resume=False, repetitions=2)
        resumed = measured(store, resume=True, repetitions=3)
        campaign_id = store.campaign(spec.name).id
    assert len(partial) == 4 and len(resumed) == 6 and partial.items() <= resumed.items()
    by_repetition = {r: {seed for (_, rep), seed in resumed.items() if rep == r} for r in (1, 2, 3)}
    assert all(len(seeds) == 1 for seeds in by_repetition.values())  # the cells of a repetition share it
    seeds = [next(iter(by_repetition[r])) for r in (1, 2, 3)]
    assert len(set(seeds)) == 3
    assert seeds == [campaign.repetition_seed(campaign_id, r) for r in (1, 2, 3)]
    with Store.open(tmp_path / "second.sqlite", create=True) as store:
        other = measured(store, resume=False, repetitions=3)
    assert not set(other.values()) & set(seeds)


def test_a_mistake_in_any_cell_stops_the_campaign_before_it_measures(fake, tmp_path, db_path):
    path = spec_file(tmp_path, FAKE_SPEC.replace('"lat.wakeup:cpu" = [1, 0]', '"lat.wakeup:cpu" = [1, "first"]'))
    outcome = fake("campaign", path)
    assert outcome.status == 2
    assert "replayed, cell 'load=idle lat.wakeup:cpu=first': --param lat.wakeup:cpu=first" in outcome.err
    assert not db_path.exists()


def test_readers_are_served_while_a_campaign_writes(tmp_path, db_path, recorded_dir):
    path = spec_file(tmp_path, FAKE_SPEC.replace("repetitions = 3", "repetitions = 15").replace("settle = 1", ""))
    writer = subprocess.Popen(
        [sys.executable, "-m", "rtscope", "--target", f"fake:{recorded_dir}", "campaign", str(path)],
        env=process_env(db_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen, errors = set(), []
    while writer.poll() is None:
        try:
            if db_path.exists():
                with Store.open(db_path) as store:
                    seen.add(len(store.runs()))
        except RtscopeError as error:  # a half-created database is the only excuse
            errors.append(str(error))
    assert writer.wait() == 0, writer.stderr.read()
    assert all("no schema version" in e or "not an rtscope" in e for e in errors)
    with Store.open(db_path) as store:
        assert len(store.campaign_runs("replayed")) == 30
    assert len(seen) > 2  # the reader saw the store grow


# A campaign of real runs to stop, kill and resume: of wake-ups, which sleep between them (ctxsw.sem's two
# threads kept the CPUs busy for every run).
REAL_SPEC = """\
    name = "killed"
    benches = ["lat.wakeup"]
    repetitions = 2
    duration = "{duration}"

    [[configs]]
    name = "fifo"

    [[configs]]
    name = "other"
    policy = "other"
"""


def _campaign_process(db_path: Path, spec: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rtscope", "campaign", str(spec), *args],
        env=process_env(db_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _stored(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    with Store.open(db_path) as store:
        return len(store.runs())


@pytest.mark.usefixtures("probe")
def test_a_campaign_killed_hard_resumes_with_nothing_lost_and_nothing_twice(tmp_path, db_path):
    spec = spec_file(tmp_path, REAL_SPEC.format(duration="1s"))
    killed = _campaign_process(db_path, spec)
    until("a run stored", lambda: _stored(db_path) >= 1)
    os.kill(killed.pid, signal.SIGKILL)
    killed.communicate()
    # The probe of the run in progress finishes by itself; nothing of it is stored.
    until("the probe ended", lambda: not probes_labelled("killed"), timeout_s=30)
    before = _stored(db_path)
    assert 1 <= before < 4
    resumed = _campaign_process(db_path, spec, "--resume")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert f"resuming: {before} of 4 runs already measured" in err
    with Store.open(db_path) as store:
        runs = store.campaign_runs("killed")
    assert sorted((r.doc["campaign"]["cell"], r.doc["campaign"]["repetition"]) for r in runs) == [
        ("load=idle config=fifo", 1),
        ("load=idle config=fifo", 2),
        ("load=idle config=other", 1),
        ("load=idle config=other", 2),
    ]
    assert _stored(db_path) == 4  # no run twice, none lost


@pytest.mark.usefixtures("probe")
def test_ctrl_c_keeps_the_interrupted_run_and_resume_measures_it_again(tmp_path, db_path):
    # A name with a space: the command echoed to resume is pasted back as it reads.
    spec = spec_file(tmp_path, REAL_SPEC.format(duration="3s"), "my spec.toml")
    interrupted = _campaign_process(db_path, spec)
    until("a probe started", lambda: bool(probes_labelled("killed")))
    time.sleep(0.5)  # the probe is measuring
    os.killpg(interrupted.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    _, err = interrupted.communicate(timeout=60)
    assert interrupted.returncode == 130, err
    assert "does not count" in err and f"rtscope campaign '{spec}' --resume measures the runs left" in err
    with Store.open(db_path) as store:
        assert [r.status for r in store.runs()] == ["interrupted"]
    spec.write_text(textwrap.dedent(REAL_SPEC.format(duration="3s")), encoding="utf-8")
    resumed = _campaign_process(db_path, spec, "--resume")
    resumed.communicate(timeout=120)
    assert resumed.returncode == 0
    with Store.open(db_path) as store:
        assert len(store.campaign_runs("killed")) == 4
        assert sorted(r.status for r in store.runs()) == ["complete"] * 4 + ["interrupted"]
    assert not probes_labelled("killed")


def test_the_resume_command_names_the_store_and_target_it_ran_against(tmp_path):
    spec = tmp_path / "my spec.toml"

    def resume(db: str | None, target: str) -> str:
        context = Context(db or str(tmp_path / "default.sqlite"), Path("probe"), target)
        return campaign_command._resume_command(argparse.Namespace(db=db, spec=spec), context)

    assert resume(None, "local") == f"rtscope campaign '{spec}' --resume"
    assert resume("/tmp/lab.sqlite", "ssh://root@board") == (
        f"rtscope --db /tmp/lab.sqlite --target ssh://root@board campaign '{spec}' --resume"
    )
    # A password stays off the terminal and out of logs.
    assert resume("postgresql://me:secret@lab/rt", "local").startswith("rtscope --db URL campaign")
