"""The QEMU guests' Debian packages, against an apt that logs each call (a script on PATH): a metapackage is
resolved to the package behind it, and a resolution is kept until the lists change, so that a guest's boot
does not ask apt-cache again."""

import os
from pathlib import Path

import pytest

from rtscope.errors import RtscopeError
from rtscope.targets.qemu import debian_packages

# Answers as Debian's apt-cache and apt-get give them, for a kernel metapackage and what it depends on.
FAKE_APT = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
for last; do :; done
state=$(printf '%s\\n' "$@" | sed -n 's/^Dir::State=//p')
case "$(basename "$0") $*" in
    *" update") mkdir -p "$state/lists" && : > "$state/lists/deb.debian.org_Packages" ;;
    *" policy linux-image-amd64") printf 'linux-image-amd64:\\n  Installed: (none)\\n  Candidate: 6.1.192-2\\n' ;;
    *" policy linux-image-6.1.0-56-amd64") printf 'x:\\n  Candidate: 6.1.192-2\\n' ;;
    *" policy "*) printf '%s:\\n  Candidate: (none)\\n' "$last" ;;
    *" show linux-image-amd64=6.1.192-2")
        printf 'Package: linux-image-amd64\\nDepends: linux-image-6.1.0-56-amd64 (= 6.1.192-2)\\n' ;;
    *" download "*) : > "$(echo "$last" | sed 's/=/_/').deb" ;;
esac
"""


@pytest.fixture
def apt_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake apt on PATH and a cache of this test's own; the file each call is logged to."""
    log = tmp_path / "apt.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("apt-cache", "apt-get"):
        (bin_dir / tool).write_text(FAKE_APT.format(log=log))
        (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return log


def _calls(log: Path) -> list[str]:
    """Each call logged, without the options that point apt at rtscope's own state."""
    if not log.exists():
        return []
    options = ("-o", "Dir::", "APT::", "Acquire::", "Debug::")
    return [
        " ".join(word for word in line.split() if not word.startswith(options)) for line in log.read_text().splitlines()
    ]


def test_a_metapackage_is_the_package_behind_it_downloaded_once(apt_log: Path) -> None:
    package = debian_packages.fetch("amd64", "linux-image-amd64")
    assert (package.name, package.version, package.record()) == (
        "linux-image-6.1.0-56-amd64",
        "6.1.192-2",
        "linux-image-6.1.0-56-amd64=6.1.192-2",
    )
    assert package.deb.is_file()
    assert _calls(apt_log) == [
        "apt-get -q update",
        "apt-cache policy linux-image-amd64",
        "apt-cache show linux-image-amd64=6.1.192-2",
        "apt-cache policy linux-image-6.1.0-56-amd64",
        "apt-get -q download linux-image-6.1.0-56-amd64=6.1.192-2",
    ]


def test_a_resolution_is_kept_until_the_lists_change(apt_log: Path) -> None:
    first = debian_packages.fetch("amd64", "linux-image-amd64")
    apt_log.unlink()
    assert debian_packages.fetch("amd64", "linux-image-amd64") == first
    assert debian_packages.fetch("amd64", "linux-image-6.1.0-56-amd64") == first
    assert _calls(apt_log) == []
    # An update replaces the lists: what they hold may have changed, so apt is asked again.
    lists = debian_packages.cache_dir() / "apt-amd64" / "lists"
    (lists / "deb.debian.org_Packages").rename(lists / "security.debian.org_Packages")
    assert debian_packages.fetch("amd64", "linux-image-amd64") == first
    assert _calls(apt_log)[0] == "apt-cache policy linux-image-amd64"


def test_a_damaged_record_of_resolutions_is_asked_again_not_an_error(apt_log: Path) -> None:
    first = debian_packages.fetch("amd64", "linux-image-amd64")
    (debian_packages.cache_dir() / "apt-amd64" / "resolved.json").write_text("{not json")
    apt_log.unlink()
    assert debian_packages.fetch("amd64", "linux-image-amd64") == first
    assert "apt-cache policy linux-image-amd64" in _calls(apt_log)


def test_a_package_apt_does_not_have_is_one_line_after_one_update(apt_log: Path) -> None:
    with pytest.raises(RtscopeError, match=r"^no Debian package nonesuch for amd64 in this machine's apt sources$"):
        debian_packages.fetch("amd64", "nonesuch")
    assert _calls(apt_log).count("apt-get -q update") == 1
    assert not (debian_packages.cache_dir() / "apt-amd64" / "resolved.json").exists()
