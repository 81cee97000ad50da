"""The results cache of `tapelsp --check` (`.tapelsp_cache/`, `--no-cache` turns it off).

A file's findings depend on its bytes, its path (per-file ignores, notebook handling),
its effective settings and target versions, whether fixes are built, and the tapelsp
code that checked it. The cache key is a SHA-256 of all of these, so an entry can only
ever be found again for exactly the same question: nothing is invalidated by time or
modification dates, and a file edited and edited back hits again.

"The tapelsp code" is the version *and* a fingerprint of the installed package files
(name, size, modification time), so a development checkout never reads results a
different rule implementation produced. A file's findings may also depend on the other
modules of its project that the check read (a function imported from `models.py`): each
entry keeps those files' paths, sizes and modification times, and is found again only
while they are unchanged.

Storage: one pickle per code fingerprint, `results-<fingerprint>.pickle`, holding every
entry with the number of the run that last used it; it is written once per run (to a
temporary file, then renamed, so a killed run or two concurrent runs never leave a
broken file; concurrent runs can lose each other's new entries, nothing else). It is
read back with an unpickler that only builds tapelsp's own result values. A missing,
corrupt or unwritable cache is a cache miss, never an error.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import tempfile
import time
from dataclasses import dataclass, field

from .. import __version__
from ..model import FileResult

DIRECTORY = ".tapelsp_cache"
# At most this many entries are kept; the ones unused for the most runs go first.
MAX_ENTRIES = 50_000
# Result files of other tapelsp builds are removed once unused for this long, and
# beyond this many (the most recently used are kept).
STALE_SECONDS = 14 * 24 * 3600
KEEP_OTHER_BUILDS = 4
# Subpackages that never change what `--check` finds (the editor front end, the runtime probe
# whose findings are merged after the cache): edits there keep the cache valid.
NOT_ANALYSIS = ("lsp", "probe")
CACHEDIR_TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
                b"# This file is a cache directory tag created by tapelsp.\n"
                b"# For information about cache directory tags see https://bford.info/cachedir/\n")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ALLOWED = {
    ("tapelsp.model", name) for name in
    ("FileResult", "Violation", "Range", "Position", "Fix", "Edit", "Related", "Evidence",
     "Severity", "Applicability")
}


def code_fingerprint(package: str = _PACKAGE) -> str:
    """The tapelsp version, the Python version, and every .py file of the package that
    decides findings (name, size, mtime)."""
    digest = hashlib.sha256(f"{__version__}\0{sys.version}\0".encode())
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (root == package and d in NOT_ANALYSIS))
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                digest.update(f"{os.path.relpath(path, package)}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:24]


def salt(path: str, settings: object, targets: object, fixes: bool) -> str:
    """Everything but the bytes that decides a file's findings (with the code fingerprint added by the cache)."""
    return f"{path}\0{settings!r}\0{targets!r}\0{fixes}"


def key(code: str, job_salt: str, data: bytes) -> str:
    digest = hashlib.sha256(code.encode())
    digest.update(b"\0")
    digest.update(job_salt.encode())
    digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


class _ResultUnpickler(pickle.Unpickler):
    """Builds only tapelsp's result values (a planted pickle cannot run code)."""

    def find_class(self, module: str, name: str):  # noqa: ANN201
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not a tapelsp result value")


@dataclass
class ResultCache:
    directory: str
    code: str = field(default_factory=code_fingerprint)
    entries: dict[str, tuple[int, FileResult]] = field(default_factory=dict)
    run: int = 0
    added: int = 0
    hits: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def file(self) -> str:
        return os.path.join(self.directory, f"results-{self.code}.pickle")

    @classmethod
    def open(cls, directory: str) -> "ResultCache":
        cache = cls(os.path.abspath(directory))
        cache._load()
        return cache

    def _load(self) -> None:
        try:
            with open(self.file, "rb") as handle:
                stored = _ResultUnpickler(io.BytesIO(handle.read())).load()
            run, entries = stored
            if not (isinstance(run, int) and isinstance(entries, dict)):
                return
        except FileNotFoundError:
            return
        except Exception:  # corrupt, truncated, from an incompatible build: start afresh
            return
        self.run = run + 1
        self.entries = entries

    def key(self, job_salt: str, data: bytes) -> str:
        return key(self.code, job_salt, data)

    def get(self, entry_key: str) -> FileResult | None:
        found = self.entries.get(entry_key)
        if found is None or not isinstance(found, tuple) or not isinstance(found[1], FileResult):
            return None
        depends = found[2] if len(found) > 2 else ()
        if not _unchanged(depends):
            return None
        self.entries[entry_key] = (self.run, found[1], depends)
        self.hits += 1
        return found[1]

    def put(self, entry_key: str, result: FileResult, depends: tuple = ()) -> None:
        self.entries[entry_key] = (self.run, FileResult(None, result.violations, result.error), tuple(depends))
        self.added += 1

    def save(self) -> None:
        """Write the entries back if anything changed; a failure becomes a warning."""
        if not self.added and not self.hits:
            return
        entries = self.entries
        if len(entries) > MAX_ENTRIES:
            newest = sorted(entries.items(), key=lambda item: item[1][0], reverse=True)[:MAX_ENTRIES]
            entries = dict(newest)
        try:
            self._prepare_directory()
            handle = tempfile.NamedTemporaryFile(dir=self.directory, prefix=".results-", suffix=".tmp",
                                                 delete=False)
            try:
                with handle:
                    pickle.dump((self.run, entries), handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(handle.name, self.file)
            except BaseException:
                _remove(handle.name)
                raise
            self._remove_stale()
        except OSError as error:
            self.warnings.append(f"cannot write the cache in {self.directory} "
                                 f"({error.strerror or error}); use --no-cache to silence this")

    def _prepare_directory(self) -> None:
        os.makedirs(self.directory, exist_ok=True)
        for name, content in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", b"# Created by tapelsp.\n*\n")):
            path = os.path.join(self.directory, name)
            if not os.path.exists(path):
                with open(path, "wb") as handle:
                    handle.write(content)

    def _remove_stale(self) -> None:
        now = time.time()
        others = []
        for name in os.listdir(self.directory):
            path = os.path.join(self.directory, name)
            if name.startswith(("results-", ".results-")) and path != self.file:
                try:
                    others.append((os.stat(path).st_mtime, path))
                except OSError:
                    pass
        others.sort(reverse=True)
        for rank, (modified, path) in enumerate(others):
            if rank >= KEEP_OTHER_BUILDS or now - modified > STALE_SECONDS:
                _remove(path)


def _unchanged(depends) -> bool:
    """Are the other files a result was computed from as they were (size and mtime)?"""
    try:
        for path, size, mtime in depends:
            try:
                stat = os.stat(path)
            except OSError:
                return False
            if stat.st_size != size or stat.st_mtime_ns != mtime:
                return False
    except (TypeError, ValueError):
        return False
    return True


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
