"""Fills the `bundled/` folder of the VS Code extension for one or more VS Code targets.

    python client/vscode/bundle.py --stage-root .cache/vsix-stage universal linux-x64 ...

writes STAGE_ROOT/<target>/bundled/ for each target:

- `libs/`: tapelsp (a wheel built from this checkout) and its pure-Python dependencies, as
  pip resolves them from pyproject.toml for every supported Python (3.10 to 3.13), installed
  the way Microsoft's Python tool extensions do it (`pip install --target libs --implementation
  py --only-binary=:all: --no-deps ...`). The extension runs `python -m tapelsp` with this
  folder first on PYTHONPATH, in any Python >= 3.10 with nothing installed there.
- for a platform target (linux-x64, linux-arm64, darwin-arm64, darwin-x64, win32-x64), libcst's
  native wheels of that platform for each supported Python, unpacked into the same `libs/` (one
  version of libcst, one `native` extension module per Python: `native.cpython-311-...so`);
  `universal` has no libcst: its detection works without it, its fixes need libcst from the
  environment (the language server says so in the fix offer).
- `wheels/`: the tapelsp wheel itself, which `tapelsp.importStrategy: fromEnvironment` offers to
  install into the interpreter (tapelsp is not on PyPI).
- `manifest.json`: what is in there (read by the extension and the tests).

libcst's own dependency PyYAML is not bundled: libcst imports it only in its codemod command
line, which tapelsp never uses. Any other dependency without a pure-Python wheel stops the build
(it would have to be bundled per platform like libcst).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
# pip --platform tags per VS Code target. Linux: VS Code itself needs glibc 2.28; pip expands
# manylinux2014 to the older tags and a macOS tag to the older macOS versions.
PLATFORMS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux_2_28_x86_64", "manylinux2014_x86_64"),
    "linux-arm64": ("manylinux_2_28_aarch64", "manylinux2014_aarch64"),
    "darwin-arm64": ("macosx_11_0_arm64",),
    "darwin-x64": ("macosx_11_0_x86_64",),
    "win32-x64": ("win_amd64",),
}
TARGETS = ("universal", *PLATFORMS)
NATIVE = {"libcst"}  # bundled per platform
NOT_BUNDLED = {
    "pyyaml": "libcst imports it only for its codemod command line, which tapelsp does not use",
    "pyyaml-ft": "libcst imports it only for its codemod command line, which tapelsp does not use",
}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip(python: str, *args: str, quiet: bool = True) -> None:
    command = [python, "-m", "pip", *args, "--disable-pip-version-check"]
    if quiet:
        command.append("--quiet")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"bundle.py: pip failed: {' '.join(args[:3])} ...")


def build_wheel(python: str, cache: Path) -> Path:
    """tapelsp's wheel from this checkout (pip's build isolation: setuptools from PyPI)."""
    out = cache / "tapelsp-wheel"
    shutil.rmtree(out, ignore_errors=True)
    pip(python, "wheel", "--no-deps", "--wheel-dir", str(out), str(ROOT))
    wheels = list(out.glob("tapelsp-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"bundle.py: expected one tapelsp wheel in {out}, found {wheels}")
    return wheels[0]


def resolve(python: str, requirements: list[str], platforms: tuple[str, ...], scratch: Path,
            python_version: str = PYTHONS[0]) -> dict[str, dict]:
    """What pip installs for `requirements` on Python `python_version` and these platform tags:
    {normalized name: {"name", "version", "requires"}}."""
    report = scratch / "report.json"
    tag = "cp" + python_version.replace(".", "")
    args = ["install", "--dry-run", "--ignore-installed", "--report", str(report),
            "--python-version", python_version, "--implementation", "cp", "--abi", tag, "--abi", "abi3", "--abi", "none",
            "--only-binary=:all:", "--target", str(scratch / "unused")]
    for platform in platforms:
        args += ["--platform", platform]
    pip(python, *args, *requirements)
    out = {}
    for item in json.loads(report.read_text(encoding="utf-8"))["install"]:
        metadata = item["metadata"]
        out[normalize(metadata["name"])] = {"name": metadata["name"], "version": metadata["version"],
                                            "requires": metadata.get("requires_dist", [])}
    return out


def marker_environments(target: str) -> list[dict[str, str]]:
    """The environments a bundle runs in: every supported Python on the target's platform (on
    every platform for universal), as PEP 508 markers see them."""
    systems = {"linux-x64": ("linux", "Linux", "posix", "x86_64"), "linux-arm64": ("linux", "Linux", "posix", "aarch64"),
               "darwin-arm64": ("darwin", "Darwin", "posix", "arm64"), "darwin-x64": ("darwin", "Darwin", "posix", "x86_64"),
               "win32-x64": ("win32", "Windows", "nt", "AMD64")}
    out = []
    for key in (PLATFORMS if target == "universal" else (target,)):
        sys_platform, system, os_name, machine = systems[key]
        for version in PYTHONS:
            out.append({"python_version": version, "python_full_version": f"{version}.0", "implementation_name": "cpython",
                        "platform_python_implementation": "CPython", "sys_platform": sys_platform,
                        "platform_system": system, "os_name": os_name, "platform_machine": machine,
                        "implementation_version": f"{version}.0", "platform_release": "", "platform_version": "",
                        "extra": ""})
    return out


def plan(python: str, wheel: Path, target: str, scratch: Path) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(pure packages {name: version}, native packages {name: version}, left out {name: why}).

    pip resolves for the oldest supported Python only, and evaluates environment markers for the
    Python that runs it, whatever `--python-version` says; so every requirement's marker is
    evaluated here for each supported Python and platform of the target, and what some of them
    need but pip left out (exceptiongroup or tomli on 3.10, ...) is resolved and added, until
    nothing is missing."""
    try:
        from packaging.requirements import Requirement
    except ImportError:
        from pip._vendor.packaging.requirements import Requirement
    platforms = PLATFORMS.get(target, PLATFORMS["linux-x64"])  # universal: only its pure packages are used
    environments = marker_environments(target)
    items = resolve(python, [str(wheel)], platforms, scratch)
    while True:
        missing: dict[str, dict[str, str]] = {}  # oldest Python that needs it -> {name: requirement}
        for key, item in items.items():
            if key in NOT_BUNDLED:
                continue  # neither it nor what it needs
            for line in item["requires"]:
                requirement = Requirement(line)
                name = normalize(requirement.name)
                if name in items or any(name in group for group in missing.values()):
                    continue
                needed = [env["python_version"] for env in environments
                          if requirement.marker is None or requirement.marker.evaluate(env)]
                if needed:
                    requirement.marker = None
                    missing.setdefault(min(needed, key=lambda v: tuple(map(int, v.split(".")))), {})[name] = str(requirement)
        if not missing:
            break
        for version, group in sorted(missing.items()):
            todo = {name: line for name, line in group.items() if name not in NOT_BUNDLED}
            for name in set(group) - set(todo):
                items[name] = {"name": name, "version": "", "requires": []}
            if todo:
                found = resolve(python, sorted(todo.values()), platforms, scratch, version)
                items.update({key: item for key, item in found.items() if key not in items})
            unresolved = set(todo) - set(items)
            if unresolved:
                raise SystemExit(f"bundle.py: pip did not resolve {sorted(unresolved)}")
    pure_packages: dict[str, str] = {}
    native: dict[str, str] = {}
    skipped: dict[str, str] = {}
    for key, item in sorted(items.items()):
        if key == "tapelsp":
            continue
        if key in NOT_BUNDLED:
            skipped[item["name"]] = NOT_BUNDLED[key]
        elif key in NATIVE:
            native[item["name"]] = item["version"]
        else:  # installed from its pure-Python wheel (pip says so when it has none)
            pure_packages[item["name"]] = item["version"]
    return pure_packages, native, skipped


def install_pure(python: str, wheel: Path, packages: dict[str, str], libs: Path) -> None:
    """tapelsp and the pure-Python packages into `libs`, as Microsoft's tool extensions do."""
    pip(python, "install", "--target", str(libs), "--implementation", "py", "--only-binary=:all:", "--no-deps",
        "--no-compile", "--upgrade", str(wheel), *(f"{name}=={version}" for name, version in sorted(packages.items())))
    shutil.rmtree(libs / "bin", ignore_errors=True)  # console scripts with this machine's interpreter


def install_native(python: str, name: str, version: str, target: str, libs: Path, cache: Path) -> dict:
    """`name` `version` with the native module of each supported Python, unpacked into `libs`
    (the Python files of all those wheels must be the same)."""
    downloads = cache / "native" / target
    downloads.mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes] = {}
    pythons = []
    for python_version in PYTHONS:
        tag = "cp" + python_version.replace(".", "")
        args = ["download", "--no-deps", "--only-binary=:all:", "--dest", str(downloads),
                "--python-version", python_version, "--implementation", "cp", "--abi", tag, "--abi", "abi3"]
        for platform in PLATFORMS[target]:
            args += ["--platform", platform]
        pip(python, *args, f"{name}=={version}")
        fitting = [p for p in downloads.glob(f"{name}-{version}-*.whl")
                   if (f"-{tag}-" in p.name or "-abi3-" in p.name) and platform_matches(p.name, target)]
        if not fitting:
            raise SystemExit(f"bundle.py: no {name} {version} wheel for Python {python_version} on {target}")
        with zipfile.ZipFile(sorted(fitting)[0]) as archive:
            for member in archive.infolist():
                if member.is_dir():
                    continue
                path = member.filename
                data = archive.read(member)
                if ".dist-info/" in path:
                    if pythons:  # the first wheel's metadata stands for all
                        continue
                elif path in files and files[path] != data and not is_extension(path):
                    raise SystemExit(f"bundle.py: {path} differs between the {name} wheels of {target}")
                files[path] = data
        pythons.append(python_version)
    for path, data in files.items():
        destination = libs / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
    return {"version": version, "pythons": pythons}


def platform_matches(wheel_name: str, target: str) -> bool:
    platform_tag = wheel_name[:-len(".whl")].split("-")[-1]
    arch = {"linux-x64": "x86_64", "linux-arm64": "aarch64", "darwin-arm64": "arm64", "darwin-x64": "x86_64",
            "win32-x64": "amd64"}[target]
    system = {"linux": "linux", "darwin": "macosx", "win32": "win"}[target.split("-")[0]]
    return any(tag.startswith(system) or (system == "linux" and "linux" in tag) for tag in platform_tag.split(".")) \
        and arch in platform_tag


def is_extension(path: str) -> bool:
    return path.endswith((".so", ".pyd", ".dylib"))


# Stubs of third-party packages that jedi ships (typeshed's `stubs/`: 4,300 files, 25 MB, and
# django-stubs). tapelsp asks jedi only where a user's own module is (analysis/modules.py), and
# a stub or a library is never that answer; jedi skips the folders when they are missing. Its
# standard-library stubs (`typeshed/stdlib`) stay: jedi reads builtins there.
JEDI_UNUSED = ("jedi/third_party/typeshed/stubs", "jedi/third_party/django-stubs")


def strip(libs: Path) -> None:
    """Byte code, the test suites some packages ship inside themselves (libcst's is 4 MB), and
    jedi's stubs of third-party packages."""
    for directory in sorted(libs.rglob("*"), reverse=True):
        if directory.is_dir() and directory.name in ("__pycache__", "tests"):
            shutil.rmtree(directory)
    for unused in JEDI_UNUSED:
        shutil.rmtree(libs / unused, ignore_errors=True)


def tree_digest(libs: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in libs.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(libs)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="+", choices=TARGETS)
    parser.add_argument("--stage-root", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "vsix")
    parser.add_argument("--python", default=sys.executable, help="the Python whose pip does the work")
    options = parser.parse_args(argv)
    options.cache.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(options.python, options.cache)
    with tempfile.TemporaryDirectory(prefix="tapelsp-bundle-") as scratch_dir:
        scratch = Path(scratch_dir)
        for target in options.targets:
            bundled = options.stage_root / target / "bundled"
            shutil.rmtree(bundled, ignore_errors=True)
            libs = bundled / "libs"
            libs.mkdir(parents=True)
            packages, native, skipped = plan(options.python, wheel, target, scratch)
            install_pure(options.python, wheel, packages, libs)
            natives = {}
            if target != "universal":
                for name, version in native.items():
                    natives[name] = install_native(options.python, name, version, target, libs, options.cache)
            strip(libs)
            (bundled / "wheels").mkdir()
            shutil.copy2(wheel, bundled / "wheels" / wheel.name)
            tapelsp_version = wheel.name.split("-")[1]
            manifest = {
                "target": target,
                "tapelsp": tapelsp_version,
                "wheel": f"wheels/{wheel.name}",
                "pythons": list(PYTHONS),
                "packages": dict(sorted({"tapelsp": tapelsp_version, **packages}.items(), key=lambda kv: kv[0].lower())),
                "native": natives,
                "notBundled": skipped if target != "universal" else
                {**skipped, **{name: "universal .vsix: install it into the interpreter for fixes" for name in native}},
                "digest": tree_digest(libs),
            }
            (bundled / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
            size = sum(p.stat().st_size for p in bundled.rglob("*") if p.is_file())
            natives_text = "".join(f", {name} {info['version']} for Python {', '.join(info['pythons'])}"
                                   for name, info in natives.items())
            print(f"bundled {target}: {len(manifest['packages'])} packages{natives_text} ({size / 1e6:.1f} MB unpacked)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
