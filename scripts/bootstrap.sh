#!/usr/bin/env bash
# Installs, from Debian's packages, whatever the build needs and this machine lacks; with
# --tests, also what only the tests need; with --windows, what the MinGW-w64 cross build and its
# tests under Wine need. Idempotent, and silent when nothing is missing.
#   scripts/bootstrap.sh [--tests] [--windows]
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache
  libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev libre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format
)
for option in "$@"; do
  case "$option" in
    # chromium: the bench and fleet HTML tests open the pages in it, headless; slurm-wlm and
    # munge: the fleet test starts a single-node cluster; python3-yaml: the Kubernetes manifest
    # test reads the manifest; zsh, fish and groff-base: the completion scripts are loaded in
    # the real shells and the man page is checked by groff. scripts/test-packages.sh:
    # python3-pip and python3-venv build the wheel and install it; dpkg-dev gives cpack's .deb
    # its dependencies (dpkg-shlibdeps); binutils (objdump) reads the binary's glibc needs; unzip
    # opens the Windows .zip.
    --tests) packages+=(chromium slurm-wlm munge python3 python3-yaml zsh fish groff-base
                        python3-pip python3-venv dpkg-dev binutils unzip) ;;
    # The cross compilers (posix threads), Wine to run the tests, zlib for MinGW, GoogleTest's
    # sources, and what scripts/windows-deps.sh needs to build RE2 from Debian's source package.
    --windows) packages+=(g++-mingw-w64-x86-64-posix wine64 wine libz-mingw-w64-dev googletest
                          dpkg-dev xz-utils perl python3 python3-six unicode-data) ;;
    *) echo "bootstrap: unknown option $option" >&2; exit 2 ;;
  esac
done

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "bootstrap: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
# The maintainer scripts of munge and slurm-wlm start their daemons where no policy forbids it;
# the tests start their own, so apt is told not to for as long as it runs (Debian's
# policy-rc.d: exit 101 means "not allowed").
policy=/usr/sbin/policy-rc.d
own_policy=false
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# bootstrap.sh: no daemon starts while packages install\nexit 101\n' |
    "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  own_policy=true
fi
status=0
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
if $own_policy; then "${as_root[@]}" rm -f "$policy"; fi
exit $status
