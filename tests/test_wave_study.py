"""The square-wave study's spec (examples/campaigns/wave-study.toml): its shape and its planned time."""

import re
import shutil

import pytest

from conftest import REPO
from rtscope.execution import campaign_spec
from support import builders

SPEC = REPO / "examples" / "campaigns" / "wave-study.toml"
MODELS = ["bash", "python", "node", "c-file", "c-mmap", "c-rt", "c-busy", "c-timerfd"]
PERIODS_US = ["100000", "31623", "10000", "3162", "1000", "316", "100", "10"]


def test_every_model_under_every_load_at_eight_periods_three_times():
    spec = campaign_spec.load(SPEC)
    assert spec.benches == ("wave.square",) and spec.repetitions == 3
    axes = [dict(cell.axes) for cell in spec.cells]
    assert len(axes) == 8 * 8 * 3
    assert list(dict.fromkeys(a["load"] for a in axes)) == ["idle", "cpu", "net"]
    assert list(dict.fromkeys(a["model"] for a in axes)) == MODELS
    assert list(dict.fromkeys(a["period_us"] for a in axes)) == PERIODS_US


@pytest.mark.skipif(
    not (shutil.which("stress-ng") and shutil.which("iperf3")),
    reason="the loads' tools are not installed (setup.sh installs stress-ng and iperf3)",
)
def test_the_plan_fits_in_half_an_hour(rtscope, tmp_path):
    recorded = tmp_path / "recorded"
    recorded.mkdir()
    builders.write(recorded / "wave.json", builders.wave_doc("c-mmap", 1000))
    outcome = rtscope("--target", f"fake:{recorded}", "campaign", SPEC, "--dry-run")
    assert outcome.status == 0, outcome.err
    planned = re.search(r"= 576 runs of wave.square, about (\d+) min (\d+) s", outcome.out)
    assert planned and int(planned[1]) * 60 + int(planned[2]) <= 30 * 60
