"""The crypto.* benches on the real probe, briefly: each algorithm's throughput through the library the
probe was built with (recorded), shown in MB/s; a build without a library says so; bad input is one line."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, make_probe, process_env
from rtscope.model import result

ALGORITHMS = ("crypto.aes128_cbc", "crypto.aes128_gcm", "crypto.sha256", "crypto.chacha20_poly1305")
# A few samples of 1 KiB messages each: enough to check, far less than a second.
BRIEF = [
    "--param",
    "size=1024",
    "--param",
    "count=20",
    "--param",
    "warmup=1",
    "--duration",
    "2",
    "--policy",
    "other",
    "--no-mlock",
]
# A run of the probe alone that is refused or skipped at once.
QUICK = ["--duration", "0.1", "--policy", "other", "--no-mlock"]


def probe_run(probe: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The probe alone: ``run ARGS``, quietly, its result in out."""
    return subprocess.run([probe, "run", *args, "--quiet", "--json", out], capture_output=True, text=True, check=False)


def assert_checked_through(metric: dict, library: str, least_version: int) -> None:
    """The metric is valid, its known answer and last message verified, through library at least_version."""
    assert metric["valid"], metric["invalid_reason"]
    assert metric["labels"] == {"size": 1024, "library": library}
    checks = metric["checks"]
    assert checks["known_answer"] is True and checks["last_message_verified"] is True
    assert checks["library_version"] >= least_version


@pytest.fixture(scope="module")
def measured(probe, tmp_path_factory):
    """One rtscope run of the crypto suite (the four benches): its outcome, its document and ``show last``."""
    db = tmp_path_factory.mktemp("crypto") / "results.sqlite"
    out = db.parent / "run.json"

    def rtscope(*args):
        return subprocess.run(
            [sys.executable, "-m", "rtscope", "--probe", probe, *map(str, args)],
            capture_output=True,
            text=True,
            env=process_env(db),
            timeout=60,
            check=False,
        )

    run = rtscope("run", "crypto", *BRIEF, "--json", out)
    if "not available in this build" in run.stdout:
        pytest.skip("this probe was built without a crypto library (make -C probe CRYPTO=none?)")
    assert run.returncode == 0, run.stderr
    return run, result.load(out).doc, rtscope("show", "last")


@pytest.mark.parametrize("bench", ALGORITHMS)
def test_each_algorithm_is_checked_timed_and_names_its_library(measured, bench):
    _, doc, _ = measured
    [metric] = [m for m in doc["metrics"] if m["id"] == bench]
    assert_checked_through(metric, "openssl", 30000)
    assert metric["unit"] == "bytes/s" and metric["stats"]["count"] == 20 and metric["stats"]["p50"] > 0
    checks = metric["checks"]
    assert checks["overall_bytes_per_s"] > 0
    assert checks["messages"] >= 21 * checks["batch"]  # the warm-up batch and the samples


def test_the_run_and_show_give_throughput_in_mb_per_s(measured):
    run, _, shown = measured
    assert shown.returncode == 0, shown.stderr
    for output in (run.stdout, shown.stdout):
        metrics = output.split("\nTails")[0]  # the metrics table; the tails' follows it
        rows = [line for line in metrics.splitlines() if line.strip().startswith("crypto.") and "MB/s" in line]
        assert len(rows) == len(ALGORITHMS), output
        assert all("library=openssl" in row and row.split()[-1] == "valid" for row in rows)


@pytest.mark.usefixtures("probe")
def test_a_probe_built_without_a_library_says_the_benches_are_not_available(tmp_path):
    # The probe with a small board's sizes is built without libcrypto, like the static and cross ones.
    built = make_probe("build/rtscope-probe-small")
    if built.returncode != 0:
        pytest.skip(f"the small probe cannot be built: {built.stderr.strip()[-300:]}")
    out = tmp_path / "run.json"
    listed = subprocess.run(
        [REPO / "probe/build/rtscope-probe-small", "list"], capture_output=True, text=True, check=True
    ).stdout
    assert all(bench in listed for bench in ALGORITHMS)
    ran = probe_run(REPO / "probe/build/rtscope-probe-small", out, "crypto.sha256", *QUICK)
    assert ran.returncode == 0
    [bench] = result.load(out).doc["benches"]
    assert bench["status"] == "skipped"
    assert bench["error"] == "SHA-256: not in this build of the probe (built without a crypto library)"


@pytest.mark.parametrize(
    "args, message",
    [
        (["crypto.aes256_xts"], "unknown bench or suite 'crypto.aes256_xts'"),
        (["crypto.aes128_gcm", "--param", "size=99999999"], "size must be at most 16777216, not 99999999"),
        (["crypto.sha256", "--param", "size=8"], "size must be at least 16, not 8"),
    ],
)
def test_bad_input_is_one_line_before_anything_runs(rtscope_process, probe, tmp_path, args, message):
    out = tmp_path / "run.json"
    outcome = rtscope_process("--probe", probe, "run", *args, "--json", out)
    assert outcome.status == 2
    assert outcome.err.strip().splitlines() == [outcome.err.strip()] and message in outcome.err
    assert not out.exists()


def test_cbc_refuses_a_size_that_is_not_whole_blocks(probe, tmp_path):
    out = tmp_path / "run.json"
    ran = probe_run(probe, out, "crypto.aes128_cbc", "--param", "size=1000", *QUICK)
    assert ran.returncode == 2
    assert ran.stderr == (
        "rtscope-probe: bench crypto.aes128_cbc: size 1000: AES-128-CBC takes whole 16-byte "
        "blocks (unpadded); give a multiple of 16\n"
    )
    assert not out.exists()


def test_each_algorithm_says_its_own_rule_for_size(probe):
    """Only AES-CBC takes whole blocks; the others any size from 16 up, and each bench's help says which."""
    listed = subprocess.run([probe, "list"], capture_output=True, text=True, check=True).stdout
    helps, bench = {}, None
    for line in listed.splitlines():
        if not line.startswith(" "):
            bench = line.split(" ", 1)[0]
        elif bench in ALGORITHMS and line.split()[0] == "size":
            helps[bench] = line
    assert set(helps) == set(ALGORITHMS), listed
    assert "a multiple of 16" in helps["crypto.aes128_cbc"]
    for bench in ALGORITHMS[1:]:
        assert "multiple" not in helps[bench] and "16 or more" in helps[bench], helps[bench]


@pytest.mark.usefixtures("probe")
def test_a_probe_built_with_wolfcrypt_checks_and_times_every_algorithm_through_it(tmp_path):
    build = tmp_path / "wolfcrypt"
    built = make_probe("CRYPTO=wolfcrypt", f"BUILD={build}", build / "rtscope-probe")
    if "pkg-config finds no wolfssl" in built.stderr:
        pytest.skip("wolfCrypt is not installed (apt-get install libwolfssl-dev; setup.sh does)")
    assert built.returncode == 0, built.stderr
    out = tmp_path / "run.json"
    ran = probe_run(build / "rtscope-probe", out, "crypto", *BRIEF)
    assert ran.returncode == 0, ran.stderr
    metrics = {m["id"]: m for m in result.load(out).doc["metrics"]}
    assert sorted(metrics) == sorted(ALGORITHMS)
    for metric in metrics.values():
        assert_checked_through(metric, "wolfcrypt", 50000)  # wolfSSL 5.x


def test_an_unknown_library_is_refused_by_the_build_in_one_line():
    built = make_probe("CRYPTO=gnutls")
    assert built.returncode != 0
    assert "CRYPTO=gnutls: one of libcrypto, wolfcrypt, none" in built.stderr
