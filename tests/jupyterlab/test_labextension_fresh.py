"""The committed labextension build (client/jupyterlab/tapelsp_jupyterlab/labextension) must be
built from the committed frontend sources: its stamp holds the sha256 of those sources
(written by client/jupyterlab/scripts/build-labextension.mjs), recomputed here the same way.
After changing src/, style/, package.json, package-lock.json or tsconfig.json, run
`npm run build` in client/jupyterlab and commit the labextension."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

EXT = Path(__file__).resolve().parents[2] / "client" / "jupyterlab"
OUTPUT = EXT / "tapelsp_jupyterlab" / "labextension"


def source_files() -> list[str]:
    files = ["package.json", "package-lock.json", "tsconfig.json", "scripts/build-labextension.mjs"]
    for folder in ("src", "style"):
        for path in (EXT / folder).rglob("*"):
            relative = path.relative_to(EXT)
            if path.is_file() and "__tests__" not in relative.parts:
                files.append(relative.as_posix())
    return sorted(files)


def source_hash(files: list[str], root: Path = EXT) -> str:
    digest = hashlib.sha256()
    for name in files:
        content = hashlib.sha256((root / name).read_bytes()).hexdigest()
        digest.update(f"{name}\0{content}\n".encode())
    return digest.hexdigest()


def test_committed_labextension_is_built_from_the_current_sources():
    stamp = json.loads((OUTPUT / "build-stamp.json").read_text(encoding="utf-8"))
    files = source_files()
    assert stamp["files"] == files, "the set of frontend source files changed since the build: npm run build"
    assert stamp["sources_sha256"] == source_hash(files), (
        "client/jupyterlab sources changed since the committed labextension was built: "
        "run `npm run build` in client/jupyterlab and commit tapelsp_jupyterlab/labextension"
    )


def test_build_output_is_a_loadable_prebuilt_extension():
    package = json.loads((OUTPUT / "package.json").read_text(encoding="utf-8"))
    assert package["name"] == "tapelsp-jupyterlab"
    entry = OUTPUT / package["jupyterlab"]["_build"]["load"]
    assert entry.is_file(), f"the remote entry {entry.name} named in package.json is missing"
    referenced = {p.name for p in (OUTPUT / "static").iterdir()}
    assert entry.name in referenced


def test_the_stamp_notices_a_changed_source(tmp_path):
    # The check above must be able to fail: the same computation over a changed copy differs.
    files = source_files()
    copy = tmp_path / "ext"
    for name in files:
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((EXT / name).read_bytes())
    assert source_hash(files, copy) == source_hash(files)
    index = copy / "src" / "index.ts"
    index.write_text(index.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    assert source_hash(files, copy) != source_hash(files)
