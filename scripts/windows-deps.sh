#!/usr/bin/env bash
# Builds what the MinGW-w64 cross build needs and Debian has no Windows package of: RE2, from
# Debian's own source package (the same 20220601 release the Linux build links), as a static
# library under DEST/re2. Idempotent: a finished DEST/re2 is kept.
#   scripts/windows-deps.sh DEST
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dest=$(realpath -m "${1:?usage: windows-deps.sh DEST}")
[[ -f "$dest/re2/lib/libre2.a" ]] && exit 0

version=20220601+dfsg-1
work="$dest/re2-work"
rm -rf "$work" && mkdir -p "$work/lists/partial" "$work/parts" "$work/download"
# A private source list and package index, so that the machine's apt configuration is untouched.
cat >"$work/parts/debian-src.sources" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt_private=(-q -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/parts"
             -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)
apt-get "${apt_private[@]}" update >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
(cd "$work/download" && apt-get "${apt_private[@]}" source --download-only "re2=$version") \
  >>"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
# dpkg-source applies debian/patches in series order; one makes the generators below read
# /usr/share/unicode (package unicode-data).
# apt checked the files against the signed index; dpkg-source has no key to check the .dsc with.
dpkg-source -q -x "$work/download/re2_${version}.dsc" "$work/src" >>"$work/apt.log" 2>&1

# The +dfsg tarball leaves out three generated tables.
(cd "$work/src" &&
  perl re2/make_perl_groups.pl >re2/perl_groups.cc &&
  /usr/bin/python3 re2/make_unicode_groups.py >re2/unicode_groups.cc &&
  /usr/bin/python3 re2/make_unicode_casefold.py >re2/unicode_casefold.cc)

cmake -S "$work/src" -B "$work/build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-x86_64.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DRE2_BUILD_TESTING=OFF -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache || true)" \
  -DCMAKE_INSTALL_PREFIX="$dest/re2" >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" >>"$work/cmake.log" 2>&1 || { tail -40 "$work/cmake.log" >&2; exit 1; }
cmake --install "$work/build" >>"$work/cmake.log" 2>&1
rm -rf "$work"
