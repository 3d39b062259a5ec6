"""rtscope.execution.profile tells each failure as it happened: a lost target, a missing GNU time, an
unreadable /proc/stat and a usage file it cannot read are four different lines."""

from collections.abc import Sequence

import pytest

from rtscope.errors import RtscopeError
from rtscope.execution import profile
from rtscope.targets.transport import Completed, LocalTransport


class ScriptedTransport(LocalTransport):
    """This machine, but for what a test scripts: missing tools, /proc/stat, the program's run."""

    name = "scripted"

    def __init__(
        self,
        *,
        missing: Sequence[str] = (),
        stat: bytes | OSError = b"cpu 1 2 3\nintr 1000 5 6\n",
        usage: bytes = b"12 3\n",
        run_error: RtscopeError | None = None,
    ):
        self.missing, self.stat, self.usage, self.run_error = missing, stat, usage, run_error

    def run(self, argv: Sequence[str], *, timeout_s: float | None = None) -> Completed:
        if argv[:2] == ["sh", "-c"] and argv[-1] in self.missing:  # has_command's question
            return Completed(1, b"", b"")
        return super().run(argv, timeout_s=timeout_s)

    def run_streaming(self, argv: Sequence[str]) -> tuple[int, str, bytes]:
        if self.run_error is not None:
            raise self.run_error
        usage_file = argv[list(argv).index("-o") + 1]
        with open(usage_file, "wb") as out:
            out.write(self.usage)
        return 0, "", b""

    def read_file(self, path: str) -> bytes:
        if path == "/proc/stat":
            if isinstance(self.stat, OSError):
                raise self.stat
            return self.stat
        return super().read_file(path)


def test_a_scripted_profile_counts_what_time_wrote():
    usage = profile.profile(ScriptedTransport(), ["true"])
    assert (usage.voluntary_switches, usage.involuntary_switches, usage.interrupts) == (12, 3, 0)


@pytest.mark.parametrize(
    ("transport", "message"),
    [
        (
            ScriptedTransport(run_error=RtscopeError("board: lost the connection during the run")),
            "board: lost the connection during the run",
        ),
        (ScriptedTransport(missing=["time"]), "profile needs GNU time on the target scripted"),
        (
            ScriptedTransport(stat=PermissionError(13, "Permission denied", "/proc/stat")),
            "cannot read /proc/stat on scripted: Permission denied",
        ),
        (ScriptedTransport(stat=b"cpu 1 2 3\n"), "/proc/stat on scripted has no intr line"),
        (ScriptedTransport(usage=b"Command terminated\n"), "time's usage file is not two counts"),
    ],
)
def test_each_failure_says_what_happened(transport, message):
    with pytest.raises(RtscopeError) as raised:
        profile.profile(transport, ["true"])
    assert message in str(raised.value)
