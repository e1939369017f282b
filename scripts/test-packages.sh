#!/usr/bin/env bash
# The packages users install, each built from this tree and installed the way a user installs it
# (docs/packaging.md):
#   wheel  `pip wheel .` offline with build isolation, installed with `pip install --no-index`
#          into a new venv and run from there; its tag checked against objdump's reading of the
#          binary, its RECORD against its files; then uninstalled;
#   .deb   cpack in build/release, `dpkg -i` (root only), its files checked, `dpkg -r`;
#   .zip   cpack in build/windows (built by scripts/test-windows.sh), unzipped and run under Wine.
# Silent when all is well. scripts/test.sh runs it after the Windows tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

fail() {
  echo "test-packages: $*" >&2
  exit 1
}
# Runs a command with its output in a log, shown only when it fails.
quiet() {
  local log=$work/step.log
  "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "failed: $*"; }
}

scripts/bootstrap.sh --tests
# Debian's Python, whatever comes first on PATH (a pyenv or conda python3 may lack pip or venv).
python=/usr/bin/python3
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
version=$(sed -nE 's/^project\(gpuvet VERSION ([0-9]+(\.[0-9]+)*)[ )].*/\1/p' CMakeLists.txt)
[[ -n $version ]] || fail "no version in CMakeLists.txt's project() line"

work=$(mktemp -d)
deb_installed=false
wine_started=false
wineserver=/usr/lib/wine/wineserver64
cleanup() {
  if $deb_installed; then dpkg -r gpuvet >/dev/null 2>&1 || true; fi
  # Stops only the server of build/windows's prefix (never anything by name).
  if $wine_started; then WINEPREFIX=$root/build/windows/wineprefix "$wineserver" -k 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# ---- the wheel --------------------------------------------------------------------------------
# Exactly what a user runs, with --no-index to prove that nothing is downloaded.
quiet "$python" -m pip wheel . --no-deps --no-index -w "$work/dist"
wheels=("$work/dist/gpuvet-$version-py3-none-"*.whl)
[[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] ||
  fail "expected one gpuvet-$version-py3-none-*.whl, found: $(ls "$work/dist")"
wheel=${wheels[0]}

# The tag, read independently of the backend: the highest GLIBC_2.x objdump sees in the binary.
binary=build/release/gpuvet
glibc_minor=$(objdump -T "$binary" | grep -oE 'GLIBC_2\.[0-9]+' | cut -d. -f2 | sort -n | tail -1)
[[ -n $glibc_minor ]] || fail "objdump -T $binary shows no GLIBC_2.x symbol version"
expected_tag=manylinux_2_${glibc_minor}_$(uname -m)
platforms=${wheel##*-py3-none-}
platforms=${platforms%.whl}
[[ ${platforms%%.*} == "$expected_tag" ]] ||
  fail "$(basename "$wheel"): platform tag ${platforms%%.*}, objdump says $expected_tag"
foreign=$(objdump -p "$binary" | awk '$1 == "NEEDED" {print $2}' |
  grep -vxE 'libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|ld-linux-(x86-64|aarch64)\.so\.[12]' || true)
[[ -z $foreign ]] || fail "$binary needs libraries outside glibc: $foreign"

# The archive itself: RECORD lists every file with its sha256 and size, WHEEL says platlib and
# the tags of the file name, METADATA names this version, the binary is executable.
"$python" - "$wheel" "$version" <<'PYTHON' || fail "$(basename "$wheel") is not a valid wheel"
import base64, csv, hashlib, io, sys, zipfile
wheel, version = sys.argv[1:]
dist_info = f"gpuvet-{version}.dist-info"
problems = []
with zipfile.ZipFile(wheel) as archive:
    names = archive.namelist()
    rows = list(csv.reader(io.StringIO(archive.read(f"{dist_info}/RECORD").decode("utf-8"))))
    listed = {row[0] for row in rows}
    if listed != set(names) or len(rows) != len(names):
        problems.append(f"RECORD lists {sorted(listed)}, the wheel holds {sorted(names)}")
    for name, digest, size in rows:
        if name == f"{dist_info}/RECORD":
            if digest or size:
                problems.append("RECORD hashes itself")
            continue
        content = archive.read(name)
        expected = "sha256=" + base64.urlsafe_b64encode(
            hashlib.sha256(content).digest()).rstrip(b"=").decode()
        if digest != expected or size != str(len(content)):
            problems.append(f"RECORD: {name}: {digest},{size}, the file: {expected},{len(content)}")
    fields = archive.read(f"{dist_info}/WHEEL").decode().splitlines()
    if "Root-Is-Purelib: false" not in fields:
        problems.append("WHEEL: not Root-Is-Purelib: false")
    tags = {field[len("Tag: "):] for field in fields if field.startswith("Tag: ")}
    platforms = wheel.rsplit("-", 1)[1][: -len(".whl")].split(".")
    if tags != {f"py3-none-{platform}" for platform in platforms}:
        problems.append(f"WHEEL tags {sorted(tags)} differ from the file name's")
    metadata = archive.read(f"{dist_info}/METADATA").decode().split("\n\n", 1)[0].splitlines()
    for field in ("Metadata-Version: 2.1", "Name: gpuvet", f"Version: {version}"):
        if field not in metadata:
            problems.append(f"METADATA has no {field!r}")
    script = archive.getinfo(f"gpuvet-{version}.data/scripts/gpuvet")
    if not (script.external_attr >> 16) & 0o100:
        problems.append("the binary is not executable in the archive")
for problem in problems:
    print(f"test-packages: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PYTHON

# Installed into a fresh venv from the file, offline, and run from there: the native binary
# itself (no Python wrapper), its man page beside it.
quiet "$python" -m venv "$work/venv"
quiet "$work/venv/bin/python" -m pip install --no-index "$wheel"
venv_gpuvet=$work/venv/bin/gpuvet
[[ $(head -c 4 "$venv_gpuvet") == $'\x7fELF' ]] || fail "the venv's gpuvet is not the native binary"
[[ -f $work/venv/share/man/man1/gpuvet.1 ]] || fail "the wheel installed no man page"
"$venv_gpuvet" --version >"$work/version" 2>&1 || { cat "$work/version" >&2; fail "gpuvet --version failed (wheel)"; }
grep -qF "$version" "$work/version" || fail "gpuvet --version (wheel) does not say $version: $(cat "$work/version")"
# check exits 0 (ready) or 1 (findings: this machine has no GPU); either way, valid JSON.
status=0
"$venv_gpuvet" check --json >"$work/check.json" 2>"$work/check.err" || status=$?
[[ $status -le 1 ]] || { cat "$work/check.err" >&2; fail "gpuvet check --json (wheel) exited $status"; }
"$python" -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$work/check.json" ||
  fail "gpuvet check --json (wheel) printed no valid JSON"
quiet "$work/venv/bin/python" -m pip uninstall --yes gpuvet
[[ ! -e $venv_gpuvet ]] || fail "pip uninstall left $venv_gpuvet behind"

# The sdist: the tree's files and PKG-INFO, no build output.
("$python" -B -c 'import sys; sys.path.insert(0, "packaging/python")
import gpuvet_build; print(gpuvet_build.build_sdist(sys.argv[1]))' "$work/sdist") >"$work/sdist.name" ||
  fail "build_sdist failed"
sdist=$work/sdist/$(cat "$work/sdist.name")
tar -tzf "$sdist" >"$work/sdist.list" || fail "$sdist is not a tar.gz"
for member in PKG-INFO pyproject.toml CMakeLists.txt packaging/python/gpuvet_build.py src/cli/main.cpp; do
  grep -qxF "gpuvet-$version/$member" "$work/sdist.list" || fail "the sdist lacks $member"
done
if grep -E "^gpuvet-$version/(build|\.git)/" "$work/sdist.list" >/dev/null; then
  fail "the sdist holds build/ or .git/"
fi

# ---- the .deb ---------------------------------------------------------------------------------
# build/release is the build the wheel was just made from.
(cd build/release && quiet cpack -G DEB)
deb=build/release/gpuvet_${version}_$(dpkg --print-architecture).deb
[[ -f $deb ]] || fail "cpack made no $deb"
[[ $(dpkg-deb -f "$deb" Section) == utils ]] || fail "$deb: section is not utils"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends =~ ^libc6\ \(\>=\ 2\.[0-9]+\)$ ]] || fail "$deb: Depends is not libc6 from dpkg-shlibdeps: $depends"
deb_files=(/usr/bin/gpuvet /usr/share/man/man1/gpuvet.1.gz
  /usr/share/bash-completion/completions/gpuvet /usr/share/zsh/vendor-completions/_gpuvet
  /usr/share/fish/vendor_completions.d/gpuvet.fish /usr/share/doc/gpuvet/README.md)
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\.||' >"$work/deb.list"
for file in "${deb_files[@]}"; do
  grep -qxF "$file" "$work/deb.list" || fail "$deb does not hold $file"
done
if [[ $(id -u) -ne 0 ]]; then
  echo "test-packages: not root, so $deb was built and read but not installed (dpkg -i)" >&2
elif [[ $(dpkg-query -W -f='${Status}' gpuvet 2>/dev/null || true) == *" installed" ]]; then
  echo "test-packages: a gpuvet package is installed on this machine; not replacing it with $deb" >&2
else
  quiet dpkg -i "$deb"
  deb_installed=true
  for file in "${deb_files[@]}"; do [[ -s $file ]] || fail "dpkg -i installed no $file"; done
  /usr/bin/gpuvet --version >"$work/version" 2>&1 || { cat "$work/version" >&2; fail "/usr/bin/gpuvet --version failed"; }
  grep -qF "$version" "$work/version" || fail "/usr/bin/gpuvet --version does not say $version"
  gzip -t /usr/share/man/man1/gpuvet.1.gz || fail "the installed man page is not gzip"
  gzip -dc /usr/share/man/man1/gpuvet.1.gz >"$work/gpuvet.1"
  [[ $(head -c 1 "$work/gpuvet.1") == [.\'] ]] || fail "the installed man page is not roff"
  bash -n /usr/share/bash-completion/completions/gpuvet || fail "the bash completion does not parse"
  if command -v zsh >/dev/null; then
    zsh -n /usr/share/zsh/vendor-completions/_gpuvet || fail "the zsh completion does not parse"
  fi
  if command -v fish >/dev/null; then
    fish -n /usr/share/fish/vendor_completions.d/gpuvet.fish || fail "the fish completion does not parse"
  fi
  quiet dpkg -r gpuvet
  deb_installed=false
  [[ ! -e /usr/bin/gpuvet ]] || fail "dpkg -r left /usr/bin/gpuvet behind"
fi

# ---- the Windows .zip -------------------------------------------------------------------------
[[ -f build/windows/CMakeCache.txt ]] || fail "build/windows is not built: run scripts/test-windows.sh first"
(cd build/windows && quiet cpack -G ZIP)
zip=build/windows/gpuvet-$version-windows-x86_64.zip
[[ -f $zip ]] || fail "cpack made no $zip"
expected=(gpuvet.exe README.md gpuvet-completion.ps1)
[[ -f README.zh-CN.md ]] && expected+=(README-zh.txt)
unzip -Z1 "$zip" | sort >"$work/zip.list"
printf '%s\n' "${expected[@]}" | sort | diff -u - "$work/zip.list" >&2 ||
  fail "$zip holds other files than expected (diff above: - expected, + found)"
quiet unzip -q "$zip" -d "$work/zip"
if [[ -f $work/zip/README-zh.txt ]]; then
  "$python" -c 'import sys; t = open(sys.argv[1], "rb").read()
sys.exit(not (t.startswith(b"\xef\xbb\xbf") and b"\r\n" in t and t.count(b"\n") == t.count(b"\r\n")))' \
    "$work/zip/README-zh.txt" || fail "README-zh.txt is not UTF-8 with a BOM and CRLF line ends"
fi
# Run as scripts/test-windows.sh runs the tests (its prefix), output to files: Wine's services,
# started by the first process, would hold a pipe open.
wine_started=true
env -u DISPLAY -u WAYLAND_DISPLAY LC_ALL=C.UTF-8 WINEPREFIX="$root/build/windows/wineprefix" \
  WINEARCH=win64 WINEDEBUG=-all,err+module WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d" \
  /usr/lib/wine/wine64 "$work/zip/gpuvet.exe" --version </dev/null >"$work/version" 2>"$work/wine.err" ||
  { cat "$work/version" "$work/wine.err" >&2; fail "gpuvet.exe --version from the zip failed under Wine"; }
grep -qF "$version" "$work/version" || fail "gpuvet.exe --version (zip) does not say $version: $(cat "$work/version")"
