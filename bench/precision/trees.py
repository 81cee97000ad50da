"""The pinned trees of the precision benchmark: where they come from, which are present.

    python bench/precision/trees.py            # extract what can be had, list present/absent
    python bench/precision/trees.py --list     # list only

Each `[[repo]]` of repos.toml names a public repository at a commit. It is obtained in one of
two ways, written in its `source`:

- `github:owner/name`: a bare git snapshot under /work/.mirror/owner+name/ (the `fetch` tool of
  the developers' sessions brings it; a machine without it cannot get these trees, and the
  benchmark says so). The pinned commit's `.py` and `.ipynb` blobs are copied out with
  `git cat-file`; blobs the snapshot lacks (files of 4 MiB and more) are skipped and counted.
- `pypi:package==version`: the wheel, downloaded with pip (`pip download --no-deps`), and the
  wheel's files under `subdir` unpacked.

Trees go to .cache/bench/precision/trees/<name>/ (gitignored). Nothing of them is committed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = REPO / ".cache" / "bench" / "precision"
TREES = CACHE / "trees"
MIRROR = Path(os.environ.get("TAPELSP_MIRROR", "/work/.mirror"))
SUFFIXES = (".py", ".ipynb")


@dataclass
class Repo:
    name: str
    source: str
    commit: str = ""
    subdir: str = ""
    kind: str = ""
    notes: str = ""
    exclude: list[str] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return self.name.replace("/", "+")

    @property
    def root(self) -> Path:
        return TREES / self.slug

    @property
    def stamp(self) -> Path:
        return self.root / ".tapelsp-tree.json"

    def present(self) -> bool:
        if not self.stamp.is_file():
            return False
        try:
            return json.loads(self.stamp.read_text()).get("commit") == self.commit
        except ValueError:
            return False


def load(path: Path = HERE / "repos.toml") -> list[Repo]:
    data = tomllib.loads(path.read_text())
    repos = [Repo(**entry) for entry in data["repo"]]
    names = [r.name for r in repos]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise SystemExit(f"repos.toml: repeated names {sorted(dupes)}")
    return repos


def _git_dir(slug: str) -> Path | None:
    for candidate in (MIRROR / slug / "repo", MIRROR / slug / "repo" / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _wanted(path: str, repo: Repo) -> bool:
    if not path.endswith(SUFFIXES):
        return False
    if repo.subdir and not (path == repo.subdir or path.startswith(repo.subdir.rstrip("/") + "/")):
        return False
    return not any(path.startswith(prefix) for prefix in repo.exclude)


def _extract_git(repo: Repo) -> str:
    git_dir = _git_dir(repo.slug)
    if git_dir is None:
        return f"absent: no snapshot at {MIRROR / repo.slug} (bring it with the fetch tool)"
    git = ["git", f"--git-dir={git_dir}"]
    if subprocess.run(git + ["cat-file", "-e", f"{repo.commit}^{{commit}}"], capture_output=True).returncode:
        return f"absent: the snapshot lacks commit {repo.commit}"
    listing = subprocess.run(git + ["ls-tree", "-r", "-z", repo.commit], capture_output=True, check=True).stdout
    blobs = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _mode, kind, sha = meta.split()
        path = path.decode("utf-8", "surrogateescape")
        if kind == b"blob" and _wanted(path, repo):
            blobs.append((sha.decode(), path))
    batch = subprocess.Popen(git + ["cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = written = 0
    for sha, path in blobs:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            missing += 1
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)
        target = repo.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    batch.stdin.close()
    batch.wait()
    return f"extracted {written} files" + (f", {missing} absent from the snapshot" if missing else "")


def _extract_wheel(repo: Repo) -> str:
    spec = repo.source.split(":", 1)[1]
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    name, _, version = spec.partition("==")
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"
    found = sorted(wheels.glob(pattern))
    if not found:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels), spec],
                              capture_output=True, text=True)
        found = sorted(wheels.glob(pattern))
        if not found:
            return f"absent: pip download {spec} failed: {proc.stderr.strip()[-300:]}"
    written = 0
    with zipfile.ZipFile(found[-1]) as wheel:
        for info in wheel.infolist():
            if _wanted(info.filename, repo):
                target = repo.root / info.filename
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(wheel.read(info))
                written += 1
    return f"extracted {written} files from {found[-1].name}"


def ensure(repo: Repo) -> str:
    if repo.present():
        return "present"
    if repo.root.exists():
        subprocess.run(["rm", "-rf", str(repo.root)], check=True)
    if repo.source.startswith("github:"):
        status = _extract_git(repo)
    elif repo.source.startswith("pypi:"):
        status = _extract_wheel(repo)
    else:
        return f"absent: unknown source {repo.source!r}"
    if not status.startswith("absent"):
        repo.stamp.write_text(json.dumps({"name": repo.name, "commit": repo.commit, "source": repo.source}))
    return status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="only say which trees are present")
    args = parser.parse_args()
    for repo in load():
        status = ("present" if repo.present() else "absent") if args.list else ensure(repo)
        print(f"{repo.name:60s} {repo.commit[:12]:12s} {status}")


if __name__ == "__main__":
    main()
