"""The kernels are the user's (rtscope.targets.kernels, probe/port/common/kernel.mk): named by a variable or
by ``rtscope kernels add``, listed with their version, sources and whether the port was tested with them,
refused in one line when missing, too old or inside rtscope's own files; a version the port was not tested
with builds, and its results say so. Fake checkouts here are a marker file and a version header; the builds
take the user's real kernel, and skip without it."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, make_probe, probe_result, slow_fixture
from rtscope import paths
from rtscope.targets import kernels

# Builds, one CPU at a time, and runs on FreeRTOS's simulator, one host thread: nothing ALONE's tests judge.
pytestmark = pytest.mark.one_cpu


def fake_checkout(where: Path, os_name: str, version: str) -> Path:
    """A folder with what rtscope and make read of a checkout: the marker and the version header."""
    kernel = kernels.KERNELS[os_name]
    (where / kernel.marker).parent.mkdir(parents=True, exist_ok=True)
    (where / kernel.marker).write_text("/* a kernel's source */\n")
    if os_name == "freertos":
        (where / "include").mkdir(exist_ok=True)
        (where / "include" / "task.h").write_text(
            f'#define tskKERNEL_VERSION_NUMBER                      "{version}"\n'
        )
    else:
        major, minor, patch = version.split(".")
        (where / "common" / "inc").mkdir(parents=True, exist_ok=True)
        (where / "common" / "inc" / "tx_api.h").write_text(
            f"#define THREADX_MAJOR_VERSION           {major}\n#define THREADX_MINOR_VERSION           {minor}\n"
            f"#define THREADX_PATCH_VERSION           {patch}\n"
        )
    return where


@pytest.fixture
def no_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No kernel named: neither variable set, an empty config folder of the test's own (its path)."""
    for kernel in kernels.KERNELS.values():
        monkeypatch.delenv(kernel.env, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "rtscope" / "kernels"


def how_to_name(os_name: str) -> str:
    kernel = kernels.KERNELS[os_name]
    return f"set {kernel.env}=DIR or run: rtscope kernels add {os_name} DIR (DIR: {kernel.checkout}; docs/rtos.md)"


def test_a_kernel_is_added_listed_and_removed(rtscope, no_kernels: Path, tmp_path: Path):
    freertos = fake_checkout(tmp_path / "FreeRTOS-Kernel", "freertos", "V11.2.0")
    threadx = fake_checkout(tmp_path / "threadx", "threadx", "6.4.9")
    listed = rtscope("kernels")
    assert listed.status == 0
    assert f"freertos: no FreeRTOS kernel is named: {how_to_name('freertos')}" in listed.out
    assert f"threadx: no ThreadX kernel is named: {how_to_name('threadx')}" in listed.out

    added = rtscope("kernels", "add", "freertos", freertos)
    assert added.status == 0, added.err
    assert (no_kernels / "freertos").readlink() == freertos
    assert added.out.startswith(f"freertos: FreeRTOS-Kernel V11.2.0 at {freertos} (sha256 ")
    added = rtscope("kernels", "add", "threadx", threadx)
    assert added.status == 0, added.err
    tested = ", ".join(kernels.KERNELS["threadx"].tested)
    assert f"threadx: the port was tested with {tested}: 6.4.9 builds, and its results carry a warning" in added.out

    rows = {line.split()[0]: line.split() for line in rtscope("kernels").out.splitlines()[1:3]}
    assert rows["freertos"][1:5] == [f"{no_kernels / 'freertos'}", "(config)", str(freertos), "V11.2.0"]
    assert rows["freertos"][-1] == "yes" and rows["threadx"][-1] == "no"
    # Named again: the link is replaced in one step.
    other = fake_checkout(tmp_path / "FreeRTOS-Kernel-2", "freertos", "V11.3.0")
    assert rtscope("kernels", "add", "freertos", other).status == 0
    assert (no_kernels / "freertos").readlink() == other

    removed = rtscope("kernels", "remove", "threadx")
    assert (
        removed.status == 0
        and removed.out == f"threadx: removed the link {no_kernels / 'threadx'} (the checkout it named stays)\n"
    )
    assert threadx.is_dir() and not (no_kernels / "threadx").is_symlink()
    assert "threadx: no ThreadX kernel is named" in rtscope("kernels").out


def test_the_variable_wins_over_the_link(rtscope, no_kernels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    linked = fake_checkout(tmp_path / "linked", "freertos", "V11.2.0")
    chosen = fake_checkout(tmp_path / "chosen", "freertos", "V11.3.0")
    assert rtscope("kernels", "add", "freertos", linked).status == 0
    monkeypatch.setenv("FREERTOS_KERNEL", str(chosen))
    assert kernels.checkout("freertos").path == chosen
    # Added while the variable is set: the link is said as it is, and that the variable wins.
    added = rtscope("kernels", "add", "freertos", linked)
    sources = kernels.identity(kernels.KERNELS["freertos"], linked).text()
    assert added.out.splitlines() == [
        f"freertos: FreeRTOS-Kernel V11.2.0 at {linked} ({sources}), named by the link {no_kernels / 'freertos'}",
        f"freertos: FREERTOS_KERNEL={chosen} wins over the link while set",
    ]
    listed = rtscope("kernels").out
    assert f"freertos  FREERTOS_KERNEL (environment)  {chosen}" in listed
    assert f"freertos: FREERTOS_KERNEL wins over the link {no_kernels / 'freertos'} (-> {linked})" in listed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("add", "freertos", "{tmp}/empty"), "{tmp}/empty is not a FreeRTOS-Kernel checkout: it has no tasks.c"),
        (("add", "threadx", "{tmp}/nowhere"), "{tmp}/nowhere is not an Eclipse ThreadX checkout: it has no common/src"),
        (("add", "freertos", "{tmp}/unversioned"), "{tmp}/unversioned: no version in its headers"),
        (
            ("add", "freertos", "{tmp}/old-freertos"),
            (
                "FreeRTOS-Kernel V10.6.2 at {tmp}/old-freertos is too old for the port: it builds with V11.1.0+ and "
                "later (the port has the kernel provide its idle task's memory, with no timers: that compiles from "
                "commit fffed5e on"
            ),
        ),
        (
            ("add", "threadx", "{tmp}/old-threadx"),
            "Eclipse ThreadX 6.1.1 at {tmp}/old-threadx is too old for the port: it builds with 6.1.7 and later",
        ),
        (("add", "zephyr", "{tmp}"), "no kernel 'zephyr' (the kernels are: freertos, threadx)"),
        (("remove", "freertos"), "no FreeRTOS kernel is named in {tmp}/config/rtscope/kernels"),
        (("add", "freertos"), "the following arguments are required: DIR"),
    ],
)
def test_bad_input_is_one_line_and_names_nothing(rtscope, no_kernels: Path, tmp_path: Path, args, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "unversioned").mkdir()
    (tmp_path / "unversioned" / "tasks.c").write_text("")
    fake_checkout(tmp_path / "old-freertos", "freertos", "V10.6.2")
    fake_checkout(tmp_path / "old-threadx", "threadx", "6.1.1")
    outcome = rtscope("kernels", *(arg.format(tmp=tmp_path) for arg in args))
    assert outcome.status == 2 and outcome.out == ""
    assert outcome.err.startswith("rtscope: " + message.format(tmp=tmp_path)), outcome.err
    assert outcome.err.count("\n") == 1
    assert not no_kernels.exists() or not any(no_kernels.iterdir())


def test_a_checkout_inside_rtscopes_own_files_is_refused(
    rtscope, no_kernels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(paths, "REPO_DIR", tmp_path)
    fake_checkout(tmp_path / "vendor" / "FreeRTOS-Kernel", "freertos", "V11.2.0")
    outcome = rtscope("kernels", "add", "freertos", tmp_path / "vendor" / "FreeRTOS-Kernel")
    assert outcome.status == 2
    assert "is inside rtscope's own files" in outcome.err and "the kernels are the user's" in outcome.err


def test_a_git_checkout_is_its_commit_and_says_when_its_compiled_files_changed(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.skip("needs git")
    checkout = fake_checkout(tmp_path / "FreeRTOS-Kernel", "freertos", "V11.2.0")
    (checkout / "README.md").write_text("not compiled\n")
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "kernel"], check=True)
    kernel = kernels.KERNELS["freertos"]
    clean = kernels.identity(kernel, checkout)
    assert clean.commit and len(clean.commit) == 40 and not clean.modified
    (checkout / "README.md").write_text("edited, still not compiled\n")
    assert kernels.identity(kernel, checkout) == clean
    (checkout / "tasks.c").write_text("/* edited */\n")
    edited = kernels.identity(kernel, checkout)
    assert edited.modified and edited.commit == clean.commit and edited.sources_sha256 != clean.sources_sha256
    assert edited.text() == f"commit {clean.commit[:12]} modified"


def test_make_says_what_rtscope_says_of_a_missing_kernel_and_make_test_skips_saying_so(no_kernels: Path):
    for os_name in kernels.KERNELS:
        built = make_probe(f"PORT={os_name}", "BOARD=posix-sim")
        assert built.returncode == 2
        assert built.stderr.strip().endswith(f"*** {kernels.missing(os_name)}.  Stop.")
        assert kernels.missing(os_name) == f"no {kernels.KERNELS[os_name].name} kernel is named: {how_to_name(os_name)}"
    checked = make_probe("check-freertos-sim", "check-threadx-sim")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines() == [
        f"check-freertos-sim: skipped: no FreeRTOS kernel is named: {how_to_name('freertos')}",
        f"check-threadx-sim: skipped: no ThreadX kernel is named: {how_to_name('threadx')}",
    ]


def test_make_reads_the_kernel_the_link_names(no_kernels: Path, tmp_path: Path):
    fake_checkout(tmp_path / "old", "freertos", "V10.4.6")
    # add refuses a kernel too old, so the link is made by hand: make must follow it and refuse it itself.
    no_kernels.mkdir(parents=True, exist_ok=True)
    (no_kernels / "freertos").symlink_to(tmp_path / "old")
    built = make_probe("PORT=freertos", "BOARD=posix-sim")
    assert built.returncode == 2
    assert f"FreeRTOS-Kernel V10.4.6 at {tmp_path / 'old'} is too old for the port" in built.stderr


@pytest.mark.parametrize(
    ("os_name", "version"), [("freertos", "V10.6.2"), ("freertos", "V11.1.0"), ("threadx", "6.1.6")]
)
def test_make_refuses_a_kernel_too_old_in_one_line_naming_what_it_lacks(tmp_path: Path, os_name: str, version: str):
    kernel = kernels.KERNELS[os_name]
    checkout = fake_checkout(tmp_path / "kernel", os_name, version)
    built = make_probe(f"PORT={os_name}", "BOARD=posix-sim", f"{kernel.env}={checkout}")
    assert built.returncode == 2 and len(built.stderr.strip().splitlines()) == 1
    assert f"*** {kernels.too_old_text(kernel, version, checkout)}.  Stop." in built.stderr
    assert kernel.oldest_why in built.stderr


def test_make_refuses_a_kernel_inside_the_repository():
    inside = REPO / "probe" / "build" / "test-kernels-inside"
    try:
        fake_checkout(inside, "freertos", "V11.2.0")
        built = make_probe("PORT=freertos", "BOARD=posix-sim", f"FREERTOS_KERNEL={inside}")
        assert built.returncode == 2
        assert f"{inside} is inside rtscope's own files ({REPO}): the kernels are the user's" in built.stderr
    finally:
        shutil.rmtree(inside, ignore_errors=True)


@slow_fixture(scope="module")
def untested_freertos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the port compiles of the user's FreeRTOS checkout, copied, its version made V11.9.9: one
    the port was not tested with. Skips without a FreeRTOS kernel."""
    if kernels.missing("freertos"):
        pytest.skip(kernels.missing("freertos"))
    source = kernels.checkout("freertos").path
    copy = tmp_path_factory.mktemp("untested") / "FreeRTOS-Kernel"
    for name in kernels.KERNELS["freertos"].identity_files:
        if (source / name).is_dir():
            shutil.copytree(source / name, copy / name)
        elif (source / name).is_file():
            copy.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, copy / name)
    task_h = copy / "include" / "task.h"
    text = task_h.read_text()
    version = kernels.KERNELS["freertos"].version(source)
    task_h.write_text(text.replace(f'"{version}"', '"V11.9.9"'))
    return copy


def test_an_untested_version_builds_and_its_results_say_so(rtscope, untested_freertos: Path, tmp_path: Path):
    build = tmp_path / "build"
    built = make_probe("PORT=freertos", "BOARD=posix-sim", f"FREERTOS_KERNEL={untested_freertos}", f"BUILD={build}")
    assert built.returncode == 0, built.stderr
    doc = probe_result(build / "rtscope-probe", "clock.read", "--duration", "0.1")
    warning = (
        "FreeRTOS-Kernel V11.9.9 is not a version the port was tested with ("
        + ", ".join(kernels.KERNELS["freertos"].tested)
        + "): it built, but its figures and checks are untested (docs/rtos.md)"
    )
    assert warning in doc["config"]["warnings"]
    manifest = doc["system"]["os_config"]
    assert manifest["kernel_tested"] is False and manifest["kernel_path"] == str(untested_freertos)
    assert manifest["kernel_commit"] == "none: not a git checkout" and "kernel_modified" not in manifest
    identity = kernels.identity(kernels.KERNELS["freertos"], untested_freertos)
    assert manifest["kernel_sources_sha256"] == identity.sources_sha256
    assert f"sources sha256 {identity.sources_sha256}" in doc["system"]["kernel_version"]
    out = tmp_path / "untested.json"
    out.write_text(json.dumps(doc))
    shown = rtscope("show", out)
    assert shown.status == 0 and warning in shown.out.replace("\n  ", " ")
    # Built again in the same folder against the user's own checkout (older files than the copy's): the
    # kernel's change rebuilds everything, so nothing of the copy remains.
    named = kernels.checkout("freertos")
    built = make_probe("PORT=freertos", "BOARD=posix-sim", f"FREERTOS_KERNEL={named.path}", f"BUILD={build}")
    assert built.returncode == 0, built.stderr
    again = probe_result(build / "rtscope-probe", "clock.read", "--duration", "0.1")
    assert again["system"]["os_config"]["kernel_path"] == str(named.path)
    assert again["system"]["kernel_release"] == named.kernel.version(named.path)
