"""A real history: a monitor watching a QEMU guest whose kernel changes from Debian's PREEMPT_RT flavour to
the stock one half-way (the spec's board switched to another target under the same name, the monitor
restarted), and ``rtscope changes`` finding the change at the switch and naming the kernels. Marked
``kernels``: the first run downloads Debian's kernels into ~/.cache/rtscope/debian; each window boots one."""

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import process_env
from rtscope.store.database import Store

# Windows on each side of the switch: a change is confirmed by a rank test at p < 0.01, which 4 runs
# against 4 cannot reach (2/70 at best) and 5 against 5 just can; 6 leave a margin. 12 boots: ~5 min.
K = 6
SPEC = """\
    name = "switch"
    window = "200ms"
    windows = {windows}

    [[board]]
    name = "vm"
    target = "qemu:aarch64:{flavour}"

    [[step]]
    name = "idle"
    benches = ["lat.wakeup"]
"""


@pytest.mark.kernels
@pytest.mark.usefixtures("probe")
def test_a_kernel_switch_is_found_at_the_switch_and_named(tmp_path, db_path, rtscope_process):
    spec = tmp_path / "switch.toml"
    for flavour, windows in (("rt", K), ("stock", 2 * K)):
        spec.write_text(textwrap.dedent(SPEC.format(flavour=flavour, windows=windows)), encoding="utf-8")
        # A boot per window: longer than rtscope_process waits.
        ended = subprocess.run(
            [sys.executable, "-m", "rtscope", "monitor", str(spec)],
            capture_output=True,
            text=True,
            env=process_env(db_path),
            timeout=1200,
            check=False,
        )
        assert ended.returncode == 0, ended.stderr
        assert f"vm: stored windows {windows - K + 1}..{windows} ({K})" in ended.stdout
    assert "board vm's target was qemu:aarch64:rt, is qemu:aarch64:stock: its series goes on" in ended.stderr
    with Store.open(db_path) as store:
        windows = [run.doc for run in store.campaign_runs("switch")]
    assert [doc["monitor"]["window"] for doc in windows] == list(range(1, 2 * K + 1))
    assert [doc["system"]["realtime_kernel"] for doc in windows] == [True] * K + [False] * K
    found = rtscope_process("changes", "lat.wakeup", "--json")
    assert found.status == 0, found.err
    changes = json.loads(found.out)
    switch = windows[K]["run"]["id"]
    at_switch = [change for change in changes["changes"] if change["first_after"]["id"] == switch]
    assert at_switch, found.out
    assert all("kernel 6.1.0-56-rt-arm64 → 6.1.0-56-arm64" in change["changed"] for change in at_switch), at_switch
    printed = rtscope_process("changes", "lat.wakeup")
    assert "kernel 6.1.0-56-rt-arm64 → 6.1.0-56-arm64" in printed.out, printed.out
