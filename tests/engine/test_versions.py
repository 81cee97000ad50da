"""Version awareness: which TensorFlow the rules are checked against, and what changes with it."""

from __future__ import annotations

import sys
from importlib import metadata

import pytest

import tapelsp
import tapelsp.versions as versions
from tapelsp import Settings, Targets
from tapelsp.settings import resolve_targets
from tapelsp.versions import DEFAULT_TENSORFLOW, Version, VersionRange, installed_version

VARIABLE_IN_FUNCTION = '''\
import tensorflow as tf

@tf.function
def scale(x):
    v = tf.Variable(2.0)
    return v * x
'''
NEW_WORDING = "tf.function only supports singleton tf.Variables created on the first call"
OLD_WORDING = "tf.function-decorated function tried to create variables on non-first call"


def func001(version: str | None = None, targets: Targets | None = None) -> list[str]:
    settings = Settings(tensorflow_version=version)
    return [v.message for v in tapelsp.check_source(VARIABLE_IN_FUNCTION, "v.py", settings, targets)
            if v.code == "FUNC001"]


# --- the same source under different TensorFlow versions ------------------------------------

def test_func001_is_silent_for_tensorflow_1() -> None:
    assert func001("1.15") == []
    assert func001("1.15.5") == []


@pytest.mark.parametrize("version", ["2.0", "2.6", "2.6.5"])
def test_func001_uses_the_pre_2_7_wording(version: str) -> None:
    messages = func001(version)
    assert len(messages) == 1 and OLD_WORDING in messages[0] and NEW_WORDING not in messages[0]


@pytest.mark.parametrize("version", ["2.7", "2.15", "2.21", "2.21.0", "3.0"])
def test_func001_uses_the_current_wording(version: str) -> None:
    messages = func001(version)
    assert len(messages) == 1 and NEW_WORDING in messages[0]


def test_explicit_targets_win_over_settings() -> None:
    assert func001("2.21", targets=Targets(tensorflow=Version.parse("1.15"))) == []


# --- where the target version comes from ----------------------------------------------------

@pytest.fixture
def fake_metadata(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """Pretend these distributions are installed: sys.path is one folder holding a
    `NAME-VERSION.dist-info` folder for each (metadata only, no TensorFlow)."""
    class Folder(dict):
        def __setitem__(self, name: str, version: str) -> None:
            super().__setitem__(name, version)
            (tmp_path / f"{name.replace('-', '_')}-{version}.dist-info").mkdir()
            (tmp_path / f"{name.replace('-', '_')}-{version}.dist-info" / "METADATA").write_text(
                f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")

        def update(self, other) -> None:
            for name, version in dict(other).items():
                self[name] = version

    installed = Folder()
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    _clear()
    yield installed
    _clear()


def _clear() -> None:
    installed_version.cache_clear()
    versions._metadata_directories.cache_clear()


def test_configuration_wins(fake_metadata: dict) -> None:
    fake_metadata["tensorflow"] = "2.6.0"
    targets = Settings(tensorflow_version="2.15").targets()
    assert targets.tensorflow == Version.parse("2.15") and targets.origin == "configuration"


def test_installed_metadata_comes_next(fake_metadata: dict) -> None:
    fake_metadata.update({"tensorflow-cpu": "2.6.2", "tf-keras": "2.6.0", "tensorflow-probability": "0.14.1"})
    targets = Settings().targets()
    assert targets.tensorflow == Version.parse("2.6.2") and targets.origin == "installed"
    assert targets.keras == Version.parse("2.6") and targets.tensorflow_probability == Version.parse("0.14.1")
    # ... and the rules follow it: the installed TF 2.6 gets the old wording
    messages = [v.message for v in tapelsp.check_source(VARIABLE_IN_FUNCTION, "v.py") if v.code == "FUNC001"]
    assert len(messages) == 1 and OLD_WORDING in messages[0]


def test_installed_tensorflow_1_silences_func001(fake_metadata: dict) -> None:
    fake_metadata["tensorflow-gpu"] = "1.15.5"
    assert [v for v in tapelsp.check_source(VARIABLE_IN_FUNCTION, "v.py") if v.code == "FUNC001"] == []


def test_default_when_nothing_is_installed(fake_metadata: dict) -> None:
    targets = Settings().targets()
    assert targets.tensorflow == Version.parse(DEFAULT_TENSORFLOW) and targets.origin == "default"
    assert targets.keras is None and targets.tensorflow_probability is None


def test_broken_metadata_falls_through(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    # An egg-info folder does not say its version: its metadata is asked, and here it is broken.
    (tmp_path / "tensorflow.egg-info").mkdir()
    (tmp_path / "tensorflow.egg-info" / "PKG-INFO").write_bytes(b"\xff\xfe not metadata")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    _clear()
    try:
        assert resolve_targets().origin == "default"
    finally:
        _clear()


def test_an_egg_info_folder_is_read_through_its_metadata(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    (tmp_path / "tensorflow_gpu.egg-info").mkdir()
    (tmp_path / "tensorflow_gpu.egg-info" / "PKG-INFO").write_text(
        "Metadata-Version: 1.1\nName: tensorflow-gpu\nVersion: 2.4.1\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    _clear()
    try:
        assert installed_version("tensorflow") == "2.4.1"
    finally:
        _clear()


def test_the_folder_names_say_what_importlib_metadata_says_here() -> None:
    """On this environment's real installs (the test extra installs TensorFlow, Keras, TFP)."""
    _clear()
    names = ["tensorflow-cpu", "tf-keras", "keras", "tensorflow-probability", "numpy", "jedi", "libcst",
             "pygls", "pytest", "no-such-distribution-here"]
    for name in names:
        try:
            expected = metadata.version(name)
        except metadata.PackageNotFoundError:
            expected = None
        assert installed_version(name) == expected, name
    assert installed_version("tensorflow-cpu") is not None
    _clear()


def test_resolving_targets_never_imports_tensorflow() -> None:
    import sys

    before = set(sys.modules)
    installed_version.cache_clear()
    resolve_targets()
    assert not {m for m in set(sys.modules) - before if m.split(".")[0] in ("tensorflow", "keras")}


# --- Version, VersionRange, Severity ------------------------------------------------------------

@pytest.mark.parametrize(("text", "parts"), [
    ("2", (2,)), ("2.0", (2,)), ("2.0.0", (2,)), ("2.21", (2, 21)), ("2.21.0", (2, 21)),
    ("v2.21.0", (2, 21)), (" 2.15 ", (2, 15)), ("1.15.5", (1, 15, 5)), ("2.21.0rc1", (2, 21)),
    ("2.16.0.dev20240101", (2, 16)),
])
def test_version_parse(text: str, parts: tuple[int, ...]) -> None:
    assert Version.parse(text).parts == parts


@pytest.mark.parametrize("text", ["", "abc", "x2.1", "."])
def test_version_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        Version.parse(text)


def test_version_order_is_numeric() -> None:
    assert Version.parse("2.10") > Version.parse("2.9")
    assert Version.parse("2.7") > Version.parse("2.6.5")
    assert Version.parse("2.0") == Version.parse("2") == Version.parse("2.0.0")
    assert str(Version.parse("2.21.0")) == "2.21"


@pytest.mark.parametrize(("spec", "inside", "outside"), [
    ("", ["1.0", "2.21", "99"], []),
    (">=2.0", ["2.0", "2.21"], ["1.15"]),
    (">=2.0,<2.7", ["2.0", "2.6.5"], ["1.15", "2.7", "2.21"]),
    ("== 2.6", ["2.6", "2.6.0"], ["2.6.1", "2.7"]),
    ("!=2.6", ["2.5", "2.7"], ["2.6"]),
    (">2.6, <=2.8", ["2.7", "2.8"], ["2.6", "2.9"]),
])
def test_version_range(spec: str, inside: list[str], outside: list[str]) -> None:
    r = VersionRange(spec)
    assert all(r.contains(Version.parse(v)) for v in inside), inside
    assert not any(r.contains(Version.parse(v)) for v in outside), outside
    assert str(r) == (spec or "any")


@pytest.mark.parametrize("spec", ["garbage", "~=2.0", ">=", "2.0"])
def test_version_range_rejects(spec: str) -> None:
    with pytest.raises(ValueError):
        VersionRange(spec)


@pytest.mark.parametrize(("text", "expected"), [
    ("error", tapelsp.Severity.ERROR), ("WARNING", tapelsp.Severity.WARNING), ("warn", tapelsp.Severity.WARNING),
    ("info", tapelsp.Severity.INFORMATION), ("information", tapelsp.Severity.INFORMATION),
    (" hint ", tapelsp.Severity.HINT),
])
def test_severity_parse(text: str, expected: tapelsp.Severity) -> None:
    assert tapelsp.Severity.parse(text) is expected


def test_severity_order_and_labels() -> None:
    s = tapelsp.Severity
    assert s.ERROR < s.WARNING < s.INFORMATION < s.HINT  # as LSP numbers them
    assert [int(x) for x in (s.ERROR, s.WARNING, s.INFORMATION, s.HINT)] == [1, 2, 3, 4]
    assert s.INFORMATION.label == "information"
    with pytest.raises(ValueError, match="unknown severity"):
        s.parse("fatal")
