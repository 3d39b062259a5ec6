#!/usr/bin/env bash
# Prepare rtscope on a Debian (or Ubuntu) machine: the system packages it
# needs, its Python environment and the probe. Safe to run again: it only
# installs what is missing. Needs root (or sudo) the first time.
#   ./setup.sh --kernels DIR   also fetch the RTOS kernels the probe's ports build against, which are the
#                              user's and never fetched otherwise: each from its official repository at the
#                              release the port was tested with (probe/port/*/port.mk's _REPOSITORY and
#                              _RELEASE), into DIR/<repository> (kept when there), named with rtscope kernels add
#   ./setup.sh --only STEP     one step: packages (the system's), python (.venv/ and the test tools) or
#                              probe (its build); test.sh builds and checks the probe while pip runs
set -euo pipefail
repo=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
usage="setup.sh [--kernels DIR] [--only packages|python|probe]"
kernels_dir=
steps=" packages python probe "
while (($#)); do
    case $1 in
        --kernels)
            [[ $# -ge 2 && -n $2 ]] || { echo "setup: --kernels needs a folder ($usage)" >&2; exit 2; }
            kernels_dir=$2
            shift 2;;
        --only)
            [[ $# -ge 2 && " packages python probe " == *" $2 "* ]] ||
                { echo "setup: --only needs one of packages, python, probe ($usage)" >&2; exit 2; }
            steps=" $2 "
            shift 2;;
        *) echo "setup: unknown argument $1 ($usage)" >&2; exit 2;;
    esac
done
if [[ -n $kernels_dir ]]; then
    kernels_dir=$(realpath -m -- "$kernels_dir")
    # The kernels are the user's: none goes inside the repository, where it could be committed.
    if [[ $kernels_dir/ == "$repo"/* ]]; then
        echo "setup: --kernels $kernels_dir is inside rtscope's repository: the kernels are kept outside it" >&2
        exit 2
    fi
    mkdir -p -- "$kernels_dir"
    command -v git >/dev/null || { echo "setup: --kernels needs git (apt-get install git)" >&2; exit 1; }
fi

# What each package is for:
#   build-essential make  the probe's C build       musl-tools  small static probe
#   python3 python3-venv  the analyzer              sqlite3     looking into the store by hand
#   rt-tests linux-perf   reference tools beside rtscope's figures (cyclictest, perf bench)
#   time util-linux       peak memory and CPU pinning in bench/
#   systemd               systemd-analyze verify, which checks contrib/rtscope-monitor.service
#   stress-ng iperf3      disturbance loads (--load cpu/memory/io, net); rt-tests gives hackbench (sched)
#   chromium chromium-driver  the test that opens rtscope report's HTML in a headless browser
#   nodejs                the node square-wave model (probe/wave/wave.js; bash and python3 run the others)
#   sigrok-cli            logic-analyzer captures for wave.import (sigrok-cli -O csv or vcd)
#   qemu-user-static      the tests run the cross-built probes under qemu-ARCH-static
#   gcc-arm-none-eabi libnewlib-arm-none-eabi  make -C probe check-cross (a Cortex-M3 build) and the
#                         FreeRTOS image of --target qemu:mps2-an385:freertos
#   openssh-client        --target ssh://… (rtscope drives the system's ssh)
#   openssh-server        the SSH target's tests start their own sshd on 127.0.0.1 (not as a service)
#   libssl-dev pkg-config the crypto.* benches' library (OpenSSL's libcrypto, found by probe/Makefile with pkg-config)
#   libwolfssl-dev        wolfCrypt, the crypto benches' other library (make -C probe CRYPTO=wolfcrypt)
#   openssl               openssl speed beside the crypto benches (evaluation/crypto.sh)
#   qemu-system-arm       --target qemu:mps2-an385:freertos boots that image on QEMU's Cortex-M3 board
#   qemu-system-x86 qemu-system-arm  --target qemu:x86_64|aarch64:… (Debian's kernels in QEMU; their kernels
#                         and busybox-static are fetched by rtscope itself with apt-get download, per
#                         architecture, into ~/.cache/rtscope/debian: docs/targets.md)
#   gdb-multiarch         --target gdb://HOST:PORT loads the board's image through its GDB server (OpenOCD,
#                         pyOCD, J-Link, QEMU's gdbstub)
#   cpio                  the QEMU target's test lists the initramfs rtscope writes
#   postgresql            the store's tests start a throwaway PostgreSQL cluster of their own (not as a service)
#   linux-headers-amd64 linux-headers-rt-amd64  wave.square's kernel generators (probe/kmod) built for the
#                         QEMU guests' kernels: natively for x86_64, and their kbuild tools and common
#                         headers for the aarch64 cross build (rtscope fetches the arm64 headers itself)
packages=(build-essential make musl-tools python3 python3-venv sqlite3 rt-tests linux-perf time util-linux systemd
          stress-ng iperf3 chromium chromium-driver nodejs sigrok-cli qemu-user-static
          gcc-arm-none-eabi libnewlib-arm-none-eabi openssh-client openssh-server libssl-dev pkg-config
          openssl libwolfssl-dev qemu-system-x86 qemu-system-arm gdb-multiarch cpio postgresql linux-headers-amd64 linux-headers-rt-amd64)

# The static probes rtscope copies to boards (make -C probe cross) need Debian's cross compiler for each
# architecture, gcc-TRIPLET and libc6-dev-DEBARCH-cross (probe/Makefile's TRIPLET_ and DEBARCH_ lines);
# build-essential serves this machine's own. They are built on demand, when a board first needs one.
declare -A cross_triplets=([amd64]=x86-64-linux-gnu [arm64]=aarch64-linux-gnu [armhf]=arm-linux-gnueabihf
                           [riscv64]=riscv64-linux-gnu)
host_debarch=$(dpkg --print-architecture 2>/dev/null || true)
for debarch in "${!cross_triplets[@]}"; do
    [[ $debarch == "$host_debarch" ]] || packages+=("gcc-${cross_triplets[$debarch]}" "libc6-dev-$debarch-cross")
done

missing=()
[[ $steps == *" packages "* ]] || packages=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    if ! command -v apt-get >/dev/null; then
        echo "setup: install these packages with your package manager: ${missing[*]}" >&2
        exit 1
    fi
    sudo=()
    if ((EUID != 0)); then
        command -v sudo >/dev/null || { echo "setup: run as root to install: ${missing[*]}" >&2; exit 1; }
        sudo=(sudo)
    fi
    echo "setup: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Installing openssh-server starts a system sshd where systemd runs: rtscope's tests start their own,
    # so the machine is left as it was, with no new service listening.
    if [[ " ${missing[*]} " == *" openssh-server "* ]] && command -v systemctl >/dev/null &&
       systemctl is-active --quiet ssh 2>/dev/null; then
        "${sudo[@]}" systemctl disable --now ssh >/dev/null 2>&1 || true
    fi
    # The same for the cluster Debian's postgresql package makes and starts.
    if [[ " ${missing[*]} " == *" postgresql "* ]] && command -v systemctl >/dev/null &&
       systemctl is-active --quiet postgresql 2>/dev/null; then
        "${sudo[@]}" systemctl disable --now postgresql >/dev/null 2>&1 || true
    fi
fi

# The launcher prepares .venv/ (requirements.txt); the probe is built here, so that a fresh machine is
# ready (rtscope itself brings it up to date when a command runs it). The build needs nothing of .venv/:
# it takes one CPU while pip takes the other.
probe_build=
if [[ $steps == *" probe "* ]]; then
    make -s -C "$repo/probe" >&2 &
    probe_build=$!
    trap 'kill "$probe_build" 2>/dev/null || true' EXIT
fi
if [[ $steps == *" python "* ]]; then
    "$repo/rtscope" --version >/dev/null
    # What the tests need beside it, installed again when a requirements file changes: requirements-dev.txt
    # (pytest, selenium, the pinned lint and type gate) and labgrid (--target labgrid:ENV.yaml, optional
    # for rtscope's users), resolved together so that labgrid's own wish for pytest stays within the pins.
    # --no-compile, as the launcher: Python compiles what is imported when it is first imported.
    stamp=$repo/.venv/.dev.stamp
    for requirements in "$repo"/requirements*.txt; do
        if [[ $requirements -nt $stamp ]]; then
            echo "setup: installing the test tools and labgrid into .venv/" >&2
            "$repo/.venv/bin/python" -m pip install -q --disable-pip-version-check --no-compile \
                -r "$repo/requirements.txt" -r "$repo/requirements-dev.txt" -r "$repo/requirements-labgrid.txt" >&2
            touch "$stamp"
            break
        fi
    done
fi
if [[ -n $probe_build ]]; then
    wait "$probe_build" || { echo "setup: the probe did not build (make -C probe)" >&2; exit 1; }
    trap - EXIT
fi
if [[ -n $kernels_dir ]]; then
    for port in freertos threadx; do
        settings=$repo/probe/port/$port/port.mk
        url=$(sed -n "s/^${port^^}_REPOSITORY := //p" "$settings")
        tag=$(sed -n "s/^${port^^}_RELEASE := //p" "$settings")
        checkout=$kernels_dir/$(basename "$url")
        if [[ ! -d $checkout ]]; then
            echo "setup: fetching $url at $tag into $checkout" >&2
            git clone -q -c advice.detachedHead=false --depth 1 --branch "$tag" "$url" "$checkout"
        fi
        "$repo/rtscope" kernels add "$port" "$checkout" >&2
    done
fi
if [[ $steps == *" probe "* ]]; then
    echo "setup: ready ($("$repo/probe/build/rtscope-probe" version))" >&2
else
    echo "setup: ready (${steps// /} only)" >&2
fi
