"""PEP 517 build backend for gpuvet's wheel: the native gpuvet binary built with CMake, shipped
the way native-tool wheels ship theirs (as a script in the wheel's .data folder), so that
`pip install gpuvet-*.whl` puts `gpuvet` on the environment's PATH and no Python code runs.

Standard library only, and pyproject.toml's [build-system] requires nothing, so
`python3 -m pip wheel . --no-deps -w dist` works offline, build isolation included.

build_wheel
  Linux (default): `cmake --preset release`, `cmake --build --preset release`,
  `cmake --install build/release --strip` into a staging folder; the wheel holds
  gpuvet-<v>.data/scripts/gpuvet and the man page (data/share/man/man1/gpuvet.1). The platform
  tag is what the binary really needs: manylinux_2_<minor>_<arch>, <minor> from the highest
  GLIBC_2.<minor> symbol version in its ELF .gnu.version_r section. A binary that needs any
  shared library outside glibc (libstdc++, libgcc_s, libz ...) is refused: the `release` preset
  links everything else statically (GPUVET_PORTABLE).
  Windows: GPUVET_WHEEL_TARGET=windows in the environment, or the config setting
  target=windows (`pip wheel . --config-settings target=windows`), builds the MinGW-w64 cross
  build (`windows-release` preset, after scripts/windows-deps.sh build/windows-deps) and ships
  gpuvet-<v>.data/scripts/gpuvet.exe in a py3-none-win_amd64 wheel.
build_sdist
  gpuvet-<v>.tar.gz: PKG-INFO and the files git does not ignore (tracked, or new and not
  ignored); from an unpacked sdist, its own files again.

The version is the one in CMakeLists.txt's project() line; the rest of the metadata is
pyproject.toml's [project] table. docs/packaging.md describes all of this.
"""

import base64
import gzip
import hashlib
import io
import json
import os
import platform
import re
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

__all__ = [
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_wheel",
]


class BuildError(Exception):
    """A failure with a message that says what to do; pip shows it as the build's error."""


# ---------------------------------------------------------------------------------------------
# The project: version, metadata


def _root():
    # PEP 517: hooks run in the source tree's root.
    root = Path.cwd()
    if not (root / "CMakeLists.txt").is_file() or not (root / "pyproject.toml").is_file():
        raise BuildError(f"gpuvet_build: {root} is not gpuvet's source tree (no CMakeLists.txt)")
    return root


def _version(root):
    text = (root / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"^\s*project\s*\(\s*gpuvet\b[^)]*?\bVERSION\s+([0-9]+(?:\.[0-9]+)*)", text,
                      re.MULTILINE | re.IGNORECASE)
    if not match:
        raise BuildError("gpuvet_build: no `project(gpuvet VERSION x.y.z ...)` line in CMakeLists.txt")
    return match.group(1)


def _parse_toml(text):
    try:
        import tomllib  # Python 3.11 and later
    except ImportError:
        return _MiniToml(text).parse()
    return tomllib.loads(text)


class _MiniToml:
    """The part of TOML that pyproject.toml uses, for Pythons before 3.11 (no tomllib): tables,
    dotted table names, strings, integers, booleans, arrays and inline tables."""

    _TOKEN = re.compile(r"""
        [ \t]+ | \#[^\n]* | (?P<nl>\r?\n)
      | (?P<basic>"(?:[^"\\\n]|\\.)*")
      | (?P<literal>'[^'\n]*')
      | (?P<punct>[\[\]{}=,.])
      | (?P<bare>[A-Za-z0-9_+-]+)
    """, re.VERBOSE)

    def __init__(self, text):
        self.tokens = []
        pos = 0
        while pos < len(text):
            match = self._TOKEN.match(text, pos)
            if not match:
                line = text.count("\n", 0, pos) + 1
                raise BuildError(f"gpuvet_build: pyproject.toml line {line}: cannot read this TOML "
                                 "without Python 3.11's tomllib")
            pos = match.end()
            kind = match.lastgroup
            if kind:
                self.tokens.append((kind, match.group(kind)))
        self.tokens.append(("end", ""))
        self.at = 0

    def _next(self):
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _peek(self):
        return self.tokens[self.at]

    def _expect(self, value):
        kind, text = self._next()
        if text != value:
            raise BuildError(f"gpuvet_build: pyproject.toml: expected {value!r}, found {text!r}")

    def _key(self):
        parts = []
        while True:
            kind, text = self._next()
            if kind == "bare":
                parts.append(text)
            elif kind in ("basic", "literal"):
                parts.append(self._string(kind, text))
            else:
                raise BuildError(f"gpuvet_build: pyproject.toml: expected a key, found {text!r}")
            if self._peek()[1] != ".":
                return parts
            self._next()

    @staticmethod
    def _string(kind, text):
        if kind == "literal":
            return text[1:-1]
        try:
            return json.loads(text)  # TOML's basic-string escapes are JSON's, less \U
        except ValueError:
            raise BuildError(f"gpuvet_build: pyproject.toml: cannot read the string {text} "
                             "without Python 3.11's tomllib") from None

    def _skip_newlines(self):
        while self._peek()[0] == "nl":
            self._next()

    def _value(self):
        kind, text = self._next()
        if kind in ("basic", "literal"):
            return self._string(kind, text)
        if kind == "bare":
            if text in ("true", "false"):
                return text == "true"
            if re.fullmatch(r"[+-]?[0-9]+", text):
                return int(text)
        if text == "[":
            items = []
            while True:
                self._skip_newlines()
                if self._peek()[1] == "]":
                    self._next()
                    return items
                items.append(self._value())
                self._skip_newlines()
                if self._peek()[1] == ",":
                    self._next()
        if text == "{":
            table = {}
            while self._peek()[1] != "}":
                key = self._key()
                self._expect("=")
                self._store(table, key, self._value())
                if self._peek()[1] == ",":
                    self._next()
            self._next()
            return table
        raise BuildError(f"gpuvet_build: pyproject.toml: cannot read the value {text!r} without "
                         "Python 3.11's tomllib")

    @staticmethod
    def _store(table, key, value):
        for part in key[:-1]:
            table = table.setdefault(part, {})
        table[key[-1]] = value

    def parse(self):
        document = {}
        table = document
        while self._peek()[0] != "end":
            kind, text = self._peek()
            if kind == "nl":
                self._next()
            elif text == "[":
                self._next()
                table = document
                for part in self._key():
                    table = table.setdefault(part, {})
                self._expect("]")
            else:
                key = self._key()
                self._expect("=")
                self._store(table, key, self._value())
        return document


_KNOWN_PROJECT_KEYS = {"name", "dynamic", "description", "readme", "requires-python", "license",
                       "keywords", "classifiers", "urls"}


def _metadata(root):
    """METADATA (core metadata 2.1) as text, and the version, from pyproject.toml [project] and
    CMakeLists.txt."""
    project = _parse_toml((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    unknown = sorted(set(project) - _KNOWN_PROJECT_KEYS)
    if unknown:
        raise BuildError("gpuvet_build: pyproject.toml [project] has keys this backend does not "
                         f"write into the metadata: {', '.join(unknown)} "
                         "(packaging/python/gpuvet_build.py)")
    if project.get("name") != "gpuvet" or project.get("dynamic") != ["version"]:
        raise BuildError('gpuvet_build: pyproject.toml [project] must have name = "gpuvet" and '
                         'dynamic = ["version"] (the version comes from CMakeLists.txt)')
    version = _version(root)
    lines = [
        "Metadata-Version: 2.1",
        "Name: gpuvet",
        f"Version: {version}",
    ]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if project.get("keywords"):
        lines.append("Keywords: " + ",".join(project["keywords"]))
    license_ = project.get("license")
    if isinstance(license_, dict) and "text" in license_:
        lines.append("License: " + license_["text"].replace("\n", "\n       "))
    elif license_ is not None:
        raise BuildError("gpuvet_build: pyproject.toml: only license = {text = \"...\"} is supported")
    for classifier in project.get("classifiers", []):
        lines.append(f"Classifier: {classifier}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    for label, url in project.get("urls", {}).items():
        lines.append(f"Project-URL: {label}, {url}")
    body = ""
    readme = project.get("readme")
    if readme is not None:
        if not isinstance(readme, str) or not readme.endswith(".md"):
            raise BuildError('gpuvet_build: pyproject.toml: readme must be a Markdown file name')
        lines.append("Description-Content-Type: text/markdown; charset=UTF-8")
        body = (root / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + body, version


# ---------------------------------------------------------------------------------------------
# What the binary needs: the honest platform tag


_GLIBC_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
_ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
_SHT_DYNAMIC = 6
_SHT_GNU_VERNEED = 0x6FFFFFFE
_DT_NEEDED = 1


def _elf_needs(path):
    """The ELF's machine, its DT_NEEDED libraries and the symbol versions it needs from each
    (.gnu.version_r), read from its section headers (strip keeps those)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF":
        raise BuildError(f"gpuvet_build: {path} is not an ELF file")
    if data[4] != 2:
        raise BuildError(f"gpuvet_build: {path} is not a 64-bit ELF file")
    order = {1: "<", 2: ">"}.get(data[5])
    if order is None:
        raise BuildError(f"gpuvet_build: {path}: unknown ELF byte order")
    (_, _, machine, _, _, _, shoff, _, _, _, _, shentsize, shnum, _) = struct.unpack_from(
        order + "16sHHIQQQIHHHHHH", data, 0)
    if shnum == 0 or shentsize < 64:
        raise BuildError(f"gpuvet_build: {path} has no section headers to read its needs from")
    sections = [struct.unpack_from(order + "IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]

    def string(section_index, offset):
        start = sections[section_index][4] + offset
        return data[start:data.index(b"\0", start)].decode("ascii", "replace")

    needed = []
    versions = {}
    for (_, kind, _, _, offset, size, link, info, _, _) in sections:
        if kind == _SHT_DYNAMIC:
            for at in range(offset, offset + size, 16):
                tag, value = struct.unpack_from(order + "qQ", data, at)
                if tag == 0:
                    break
                if tag == _DT_NEEDED:
                    needed.append(string(link, value))
        elif kind == _SHT_GNU_VERNEED:
            at = offset
            for _ in range(info):
                _, count, file_name, aux, next_need = struct.unpack_from(order + "HHIII", data, at)
                names = versions.setdefault(string(link, file_name), set())
                aux_at = at + aux
                for _ in range(count):
                    _, _, _, name, next_aux = struct.unpack_from(order + "IHHII", data, aux_at)
                    names.add(string(link, name))
                    aux_at += next_aux
                if next_need == 0:
                    break
                at += next_need
    return machine, needed, versions


def _machine():
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def _linux_tag(binary):
    """manylinux_2_<minor>_<arch> for the ELF binary, or a BuildError saying why it has none."""
    machine, needed, versions = _elf_needs(binary)
    arch = _ELF_MACHINES.get(machine)
    if arch is None:
        raise BuildError(f"gpuvet_build: {binary} is for ELF machine {machine}; wheels are made "
                         "for x86_64 and aarch64 only")
    if arch != _machine():
        raise BuildError(f"gpuvet_build: {binary} is an {arch} binary but this machine is "
                         f"{platform.machine()}; build the wheel on the machine it is for")
    if not needed:
        raise BuildError(f"gpuvet_build: {binary} needs no shared library (static?): expected a "
                         "binary linked against glibc, as the release preset builds it")
    foreign = sorted(set(needed) - _GLIBC_LIBRARIES)
    if foreign:
        raise BuildError(
            f"gpuvet_build: {binary} needs {', '.join(foreign)}, which is not part of glibc, so no "
            "manylinux tag is honest for it. Build with the release preset (GPUVET_PORTABLE=ON "
            "links libstdc++, libgcc, RE2 and zlib statically).")
    minors = []
    for library, names in sorted(versions.items()):
        for name in sorted(names):
            match = re.fullmatch(r"GLIBC_2\.([0-9]+)(?:\.[0-9]+)?", name)
            if match:
                minors.append(int(match.group(1)))
            else:
                raise BuildError(f"gpuvet_build: {binary} needs symbol version {name} of "
                                 f"{library}, which no manylinux platform promises")
    if not minors:
        raise BuildError(f"gpuvet_build: {binary} has no GLIBC_2.x symbol versions to tag it by")
    tags = [f"manylinux_2_{max(minors)}_{arch}"]
    legacy = {5: "manylinux1", 12: "manylinux2010", 17: "manylinux2014"}.get(max(minors))
    if legacy and (arch == "x86_64" or legacy == "manylinux2014"):
        tags.append(f"{legacy}_{arch}")  # the same platform under its old name, for old pips
    return tags


def _check_windows_binary(binary):
    data = binary.read_bytes()
    if data[:2] != b"MZ" or len(data) < 0x40:
        raise BuildError(f"gpuvet_build: {binary} is not a Windows executable")
    (pe_offset,) = struct.unpack_from("<I", data, 0x3C)
    if data[pe_offset:pe_offset + 4] != b"PE\0\0":
        raise BuildError(f"gpuvet_build: {binary} is not a Windows executable (no PE header)")
    (machine,) = struct.unpack_from("<H", data, pe_offset + 4)
    if machine != 0x8664:
        raise BuildError(f"gpuvet_build: {binary} is not an x86-64 executable (machine "
                         f"{machine:#06x}); only win_amd64 wheels are made")


# ---------------------------------------------------------------------------------------------
# Building


def _run(command, root):
    shown = " ".join(str(part) for part in command)
    print(f"gpuvet_build: {shown}", file=sys.stderr, flush=True)
    try:
        status = subprocess.run([str(part) for part in command], cwd=root).returncode
    except FileNotFoundError:
        raise BuildError(f"gpuvet_build: {command[0]} not found. On Debian 12, scripts/bootstrap.sh "
                         "installs what the build needs (--windows adds the cross build's)") from None
    if status != 0:
        raise BuildError(f"gpuvet_build: `{shown}` failed (exit {status}); its output is above")


def _target(config_settings):
    target = (config_settings or {}).get("target") or os.environ.get("GPUVET_WHEEL_TARGET") or ""
    if not isinstance(target, str):
        raise BuildError("gpuvet_build: give the config setting target once")
    target = target.strip().lower()
    if target in ("", "native"):
        if sys.platform.startswith("linux"):
            return "linux"
        raise BuildError(f"gpuvet_build: wheels are built on Linux (this is {sys.platform}); "
                         "for Windows set GPUVET_WHEEL_TARGET=windows on Linux (MinGW-w64)")
    if target in ("linux", "windows"):
        return target
    raise BuildError(f"gpuvet_build: unknown target {target!r} (GPUVET_WHEEL_TARGET or the "
                     "config setting target): linux or windows")


def _build_and_stage(root, target, staging):
    """Builds with the target's preset and installs (stripped) into staging; returns the binary."""
    preset = {"linux": "release", "windows": "windows-release"}[target]
    configure = ["cmake", "--preset", preset]
    if shutil.which("ccache") is None:
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=")  # the presets name ccache
    if target == "windows":
        _run(["bash", "scripts/windows-deps.sh", "build/windows-deps"], root)
    _run(configure, root)
    _run(["cmake", "--build", "--preset", preset], root)
    _run(["cmake", "--install", f"build/{preset}", "--prefix", staging, "--strip"], root)
    binary = staging / ("gpuvet.exe" if target == "windows" else "bin/gpuvet")
    if not binary.is_file():
        raise BuildError(f"gpuvet_build: the install put no {binary.relative_to(staging)} in "
                         f"{staging}")
    return binary


# ---------------------------------------------------------------------------------------------
# Writing archives


def _timestamp():
    # Reproducible: SOURCE_DATE_EPOCH when set, else a fixed date (zip cannot go before 1980).
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    seconds = int(epoch) if epoch and epoch.isdigit() else 315532800
    return max(seconds, 315532800)


def _record_hash(content):
    digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def _write_wheel(wheel_path, files):
    """files: [(archive name, bytes, executable)], dist-info last; adds the RECORD."""
    date_time = time.gmtime(_timestamp())[:6]
    record_name = next(name for name, _, _ in files if name.endswith(".dist-info/METADATA"))
    record_name = record_name.rsplit("/", 1)[0] + "/RECORD"
    record = []
    with zipfile.ZipFile(wheel_path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, content, executable in files:
            entry = zipfile.ZipInfo(name, date_time)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = ((0o100755 if executable else 0o100644) << 16)
            wheel.writestr(entry, content)
            record.append(f"{name},{_record_hash(content)},{len(content)}")
        record.append(f"{record_name},,")
        entry = zipfile.ZipInfo(record_name, date_time)
        entry.compress_type = zipfile.ZIP_DEFLATED
        entry.external_attr = 0o100644 << 16
        wheel.writestr(entry, ("\n".join(record) + "\n").encode("utf-8"))


def _dist_info_files(metadata, version, tags):
    dist_info = f"gpuvet-{version}.dist-info"
    wheel = ["Wheel-Version: 1.0", "Generator: gpuvet_build (packaging/python/gpuvet_build.py)",
             "Root-Is-Purelib: false"]
    wheel += [f"Tag: {tag}" for tag in tags]
    return [
        (f"{dist_info}/METADATA", metadata.encode("utf-8"), False),
        (f"{dist_info}/WHEEL", ("\n".join(wheel) + "\n").encode("utf-8"), False),
    ]


# ---------------------------------------------------------------------------------------------
# The PEP 517 hooks


def _clear_errors(hook):
    """A BuildError ends the hook with its message alone, not a traceback that buries it."""

    def run(*args, **kwargs):
        try:
            return hook(*args, **kwargs)
        except BuildError as error:
            print(f"\n{error}", file=sys.stderr, flush=True)
            raise SystemExit(1) from None

    run.__name__ = hook.__name__
    run.__doc__ = hook.__doc__
    return run


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


@_clear_errors
def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    metadata, version = _metadata(_root())
    dist_info = Path(metadata_directory) / f"gpuvet-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_bytes(metadata.encode("utf-8"))
    return dist_info.name


@_clear_errors
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    root = _root()
    metadata, version = _metadata(root)
    target = _target(config_settings)
    with tempfile.TemporaryDirectory(prefix="gpuvet-wheel-") as temporary:
        staging = Path(temporary) / "staging"
        binary = _build_and_stage(root, target, staging)
        data = f"gpuvet-{version}.data"
        if target == "windows":
            _check_windows_binary(binary)
            tags = ["py3-none-win_amd64"]
            files = [(f"{data}/scripts/gpuvet.exe", binary.read_bytes(), True)]
        else:
            tags = ["py3-none-" + tag for tag in _linux_tag(binary)]
            files = [(f"{data}/scripts/gpuvet", binary.read_bytes(), True)]
            man_page = staging / "share/man/man1/gpuvet.1"
            if man_page.is_file():
                files.append((f"{data}/data/share/man/man1/gpuvet.1", man_page.read_bytes(), False))
        # A compressed tag set: py3-none-A.B for the platform tags A and B.
        platforms = ".".join(tag.split("-", 2)[2] for tag in tags)
        name = f"gpuvet-{version}-py3-none-{platforms}.whl"
        files += _dist_info_files(metadata, version, tags)
        Path(wheel_directory).mkdir(parents=True, exist_ok=True)
        partial = Path(wheel_directory) / (name + ".partial")
        _write_wheel(partial, files)
        os.replace(partial, Path(wheel_directory) / name)
    return name


def _sdist_files(root):
    """The files of the source distribution, relative to root, sorted."""
    if (root / ".git").exists():
        try:
            listing = subprocess.run(
                ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                cwd=root, check=True, stdout=subprocess.PIPE).stdout
        except (OSError, subprocess.CalledProcessError) as error:
            raise BuildError(f"gpuvet_build: `git ls-files` failed in {root}: {error}") from None
        names = {name for name in listing.decode("utf-8").split("\0") if name}
        # Deleted in the working tree but still in the index: gone.
        return sorted(name for name in names if (root / name).is_file() or (root / name).is_symlink())
    if (root / "PKG-INFO").is_file():  # an unpacked sdist: all of it, less what builds wrote
        names = []
        for folder, subfolders, files in os.walk(root):
            relative = Path(folder).relative_to(root)
            if relative == Path("."):
                subfolders[:] = [name for name in subfolders if name not in ("build", "dist")]
            names += [(relative / name).as_posix() for name in files]
        return sorted(name for name in names if name != "PKG-INFO")
    raise BuildError(f"gpuvet_build: {root} is neither a git checkout nor an unpacked sdist, so "
                     "which files make the sdist is unknown")


@_clear_errors
def build_sdist(sdist_directory, config_settings=None):
    root = _root()
    metadata, version = _metadata(root)
    top = f"gpuvet-{version}"
    name = f"{top}.tar.gz"
    mtime = _timestamp()

    def normalised(info):
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = mtime
        if info.isfile():
            info.mode = 0o755 if info.mode & stat.S_IXUSR else 0o644
        return info

    Path(sdist_directory).mkdir(parents=True, exist_ok=True)
    partial = Path(sdist_directory) / (name + ".partial")
    with open(partial, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as compressed, \
            tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive:
        content = metadata.encode("utf-8")
        info = normalised(tarfile.TarInfo(f"{top}/PKG-INFO"))
        info.size = len(content)
        archive.addfile(info, io.BytesIO(content))
        for relative in _sdist_files(root):
            archive.add(root / relative, arcname=f"{top}/{relative}", recursive=False,
                        filter=normalised)
    os.replace(partial, Path(sdist_directory) / name)
    return name
