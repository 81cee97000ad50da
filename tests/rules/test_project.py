"""The project index (tapelsp.project.Project) on small temporary project trees, and FUNC009
calls of tf.functions that live in another module of the project."""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tapelsp.project as project_module
import tapelsp
from tapelsp import Settings
from tapelsp.project import Project


def src(text: str) -> str:
    return inspect.cleandoc(text) + "\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(src(text), encoding="utf-8")


STEPS = """
    import tensorflow as tf

    @tf.function
    def step(x, lr):
        return x - lr * x

    @tf.function(reduce_retracing=True)
    def relaxed(x, lr):
        return x * lr

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)])
    def fixed(x, lr):
        return x * lr

    def plain(x, lr):
        return x * lr

    def _body(x, lr):
        return x + lr

    wrapped = tf.function(_body)

    class Agent(tf.Module):
        @tf.function
        def train(self, x, epsilon):
            return x * epsilon

        def act(self, x, epsilon):
            return x

    class Child(Agent):
        pass
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    write(tmp_path, {
        "train/__init__.py": "from .steps import step as exported_step\n",
        "train/steps.py": STEPS,
        "train/loops/__init__.py": "",
        "scripts/helpers.py": """
            import tensorflow as tf

            @tf.function
            def local_helper(x, i):
                return x * i
        """,
    })
    return tmp_path


# --- finding modules ---------------------------------------------------------------------


def test_absolute_module_and_package(project: Path) -> None:
    index = Project(str(project))
    assert index.module_file("train.steps") == str(project / "train" / "steps.py")
    assert index.module_file("train") == str(project / "train" / "__init__.py")
    assert index.module_file("train.missing") is None
    assert index.module_file("tensorflow") is None, "libraries are never looked up"
    assert index.module_file("os.path") is None


def test_relative_imports_use_the_importing_file(project: Path) -> None:
    index = Project(str(project))
    importer = str(project / "train" / "loops" / "run.py")
    assert index.module_file("steps", 2, importer) == str(project / "train" / "steps.py")
    assert index.module_file("", 2, importer) == str(project / "train" / "__init__.py")
    assert index.module_file("steps", 1, str(project / "train" / "other.py")) == str(project / "train" / "steps.py")
    assert index.module_file("steps", 1, None) is None, "a relative import needs the importing file"


def test_script_directory_comes_first(project: Path) -> None:
    index = Project(str(project))
    assert index.module_file("helpers", 0, str(project / "scripts" / "run.py")) == str(project / "scripts" / "helpers.py")
    assert index.module_file("helpers", 0, str(project / "train" / "x.py")) is None


def test_src_layout(tmp_path: Path) -> None:
    write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/mod.py": STEPS})
    index = Project(str(tmp_path))
    assert index.module_file("pkg.mod") == str(tmp_path / "src" / "pkg" / "mod.py")
    assert index.tf_function("pkg.mod.step") is not None


def test_nothing_outside_the_root(tmp_path: Path) -> None:
    write(tmp_path, {"outside.py": STEPS, "root/inner.py": "x = 1\n"})
    index = Project(str(tmp_path / "root"))
    assert index.module_file("outside", 0, str(tmp_path / "root" / "inner.py")) is None
    assert index.module_file("outside", 2, str(tmp_path / "root" / "inner.py")) is None


def imports_of(text: str):
    from tapelsp.facts.names import ImportTable

    table = ImportTable()
    for node in ast.walk(ast.parse(src(text))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            table.add_import(node)
    return table


def test_may_import_says_whether_any_import_can_name_a_project_file(project: Path) -> None:
    index = Project(str(project))
    run = str(project / "scripts" / "run.py")
    assert index.may_import(imports_of("from train.steps import step"), run)
    assert index.may_import(imports_of("import train"), run)
    assert index.may_import(imports_of("import helpers"), run), "a module next to the script"
    assert index.may_import(imports_of("from . import anything"), run), "relative imports are not looked up"
    assert index.may_import(imports_of("import os\ndef f():\n    import train.steps as s"), run), "imports inside functions count"
    assert not index.may_import(imports_of("import tensorflow as tf\nimport threading\nfrom absl import flags"), run)
    assert not index.may_import(imports_of("from keras.src import ops\nimport weakref"), run)
    assert not index.may_import(imports_of("import helpers"), str(project / "train" / "x.py"))


def test_may_import_sees_a_module_created_after_the_ttl(tmp_path: Path) -> None:
    write(tmp_path, {"run.py": "x = 1\n"})
    index = Project(str(tmp_path), index_ttl=0.0)
    table = imports_of("import models")
    assert not index.may_import(table, str(tmp_path / "run.py"))
    write(tmp_path, {"models.py": STEPS})
    assert index.may_import(table, str(tmp_path / "run.py"))


# --- answering about tf.functions --------------------------------------------------------


def test_tf_functions_and_their_options(project: Path) -> None:
    index = Project(str(project))
    step = index.tf_function("train.steps.step")
    assert step is not None and step.kind == "decorator" and step.line == 4
    assert not step.input_signature and not step.reduce_retracing
    relaxed = index.tf_function("train.steps.relaxed")
    assert relaxed is not None and relaxed.reduce_retracing and not relaxed.input_signature
    fixed = index.tf_function("train.steps.fixed")
    assert fixed is not None and fixed.input_signature
    wrapped = index.tf_function("train.steps.wrapped")
    assert wrapped is not None and wrapped.kind == "call"
    assert index.tf_function("train.steps.plain") is None
    assert index.tf_function("train.steps.nothing") is None
    assert step.location(str(project)) == "train/steps.py line 4"


def test_methods_including_inherited(project: Path) -> None:
    index = Project(str(project))
    assert index.method("train.steps.Agent", "train") is not None
    assert index.method("train.steps.Agent", "act") is None
    assert index.method("train.steps.Child", "train") is not None, "inherited from a class in the same module"
    assert index.tf_function("train.steps.Agent.train") is not None


def test_reexport_through_package_init(project: Path) -> None:
    index = Project(str(project))
    found = index.tf_function("train.exported_step")
    assert found is not None and found.path == str(project / "train" / "steps.py")
    assert index.imported_tf_function("train", "exported_step", 0, None) is not None


def test_cache_follows_file_changes(project: Path) -> None:
    index = Project(str(project))
    path = project / "train" / "steps.py"
    assert index.tf_function("train.steps.plain") is None
    path.write_text(src(STEPS).replace("def plain", "@tf.function\ndef plain"), encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert index.tf_function("train.steps.plain") is not None


def test_cache_is_bounded(tmp_path: Path) -> None:
    write(tmp_path, {f"m{i}.py": STEPS for i in range(6)})
    index = Project(str(tmp_path), max_entries=3)
    for i in range(6):
        assert index.tf_function(f"m{i}.step") is not None
    assert len(index._cache) <= 3


def test_large_files_and_spent_budget_mean_unknown(tmp_path: Path) -> None:
    write(tmp_path, {"big.py": STEPS + "\n" + "# padding\n" * 2000, "small.py": STEPS})
    assert Project(str(tmp_path), max_bytes=1000).tf_function("big.step") is None
    spent = Project(str(tmp_path), budget_seconds=0.0)
    assert spent.tf_function("small.step") is None, "once the time budget is spent, nothing is parsed"


def test_unparsable_module_is_unknown(tmp_path: Path) -> None:
    write(tmp_path, {"broken.py": "def f(:\n"})
    assert Project(str(tmp_path)).tf_function("broken.f") is None


def test_user_code_is_never_imported(tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    write(tmp_path, {"sideeffect.py": f"""
        open({str(marker)!r}, "w").write("ran")
        import tensorflow as tf

        @tf.function
        def step(x, i):
            return x * i
    """})
    found = Project(str(tmp_path)).tf_function("sideeffect.step")
    assert found is not None
    assert not marker.exists()
    assert "sideeffect" not in sys.modules


def test_project_module_does_not_import_tensorflow(project: Path) -> None:
    code = (f"import sys; sys.path.insert(0, {str(Path(tapelsp.__file__).parent.parent)!r}); "
            "from tapelsp.project import Project; "
            f"p = Project({str(project)!r}); assert p.tf_function('train.steps.step'); "
            "assert 'tensorflow' not in sys.modules, 'tensorflow imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_pickles_for_worker_processes(project: Path) -> None:
    import pickle

    index = Project(str(project), max_entries=7)
    assert index.tf_function("train.steps.step") is not None
    copy = pickle.loads(pickle.dumps(index))
    assert copy.root == index.root and copy.max_entries == 7 and len(copy._cache) == 0
    assert copy.tf_function("train.steps.step") is not None


def test_each_module_is_parsed_once_across_lookups(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path, {f"pkg/m{i}.py": STEPS for i in range(50)})
    write(tmp_path, {"pkg/__init__.py": ""})
    index = Project(str(tmp_path))
    parsed: list[str] = []
    real_parse = project_module.ast.parse

    def counting_parse(source, filename="<unknown>", *args, **kwargs):
        parsed.append(str(filename))
        return real_parse(source, filename, *args, **kwargs)

    monkeypatch.setattr(project_module.ast, "parse", counting_parse)
    for _ in range(3):
        for i in range(50):
            assert index.tf_function(f"pkg.m{i}.step") is not None
    steps = [name for name in parsed if name.endswith(".py") and "/pkg/m" in name]
    assert len(steps) == len(set(steps)) == 50, steps


# --- FUNC009 across modules ----------------------------------------------------------------


def func009(text: str, path: Path, project: Project | None) -> list[int]:
    settings = Settings(select=("FUNC009",))
    return sorted(v.range.start.line + 1 for v in tapelsp.check_source(text, str(path), settings, project=project)
                  if v.code == "FUNC009")


def test_imported_tf_function_called_with_a_loop_index(project: Path) -> None:
    path = project / "scripts" / "run.py"
    text = src("""
        import tensorflow as tf
        from train.steps import step, fixed, plain, relaxed
        import train.steps as steps

        x = tf.constant(1.0)
        for i in range(100):
            step(x, i)
            fixed(x, i)
            plain(x, i)
            relaxed(x, 0.1 * i)
            steps.step(x, i)
            step(x, tf.constant(i))
    """)
    index = Project(str(project))
    assert func009(text, path, index) == [7, 10, 11]
    assert func009(text, path, None) == [], "without a project, calls into other modules stay silent"
    messages = [v.message for v in tapelsp.check_source(text, str(path), Settings(select=("FUNC009",)), project=index)]
    assert any("train/steps.py line 4" in m for m in messages)
    assert any("reduce_retracing=True` does not help" in m for m in messages)
    asked = []
    unreachable = Project(str(project))
    unreachable.may_import = lambda imports, importer: asked.append(importer) or False  # type: ignore[method-assign]
    assert func009(text, path, unreachable) == [], "FUNC009 asks the project only when an import can reach it"
    assert asked == [str(path)]


def test_relative_import_and_reexport(project: Path) -> None:
    path = project / "train" / "loops" / "run.py"
    text = src("""
        from ..steps import step
        from .. import steps
        from train import exported_step

        epsilon = 1.0
        while epsilon > 0.01:
            step(1.0, epsilon)
            steps.step(1.0, epsilon)
            exported_step(1.0, epsilon)
            epsilon *= 0.9
    """)
    assert func009(text, path, Project(str(project))) == [7, 8, 9]


def test_method_of_an_imported_class(project: Path) -> None:
    path = project / "scripts" / "play.py"
    text = src("""
        from train.steps import Agent, Child

        class Runner:
            def __init__(self):
                self.agent = Agent()
                self.epsilon = 1.0

            def run(self, x):
                self.agent.train(x, self.epsilon)
                self.agent.act(x, self.epsilon)
                self.epsilon = max(0.1, self.epsilon * 0.99)

        agent = Child()
        for episode in range(500):
            agent.train(1.0, episode)
            agent.act(1.0, episode)
    """)
    assert func009(text, path, Project(str(project))) == [9, 15]


def test_module_next_to_the_script(project: Path) -> None:
    path = project / "scripts" / "run.py"
    text = src("""
        from helpers import local_helper

        for i in range(10):
            local_helper(1.0, i)
    """)
    assert func009(text, path, Project(str(project))) == [4]


def test_the_import_index_skips_what_is_not_a_regular_file(tmp_path):
    """A FIFO named like a module would block the read of the whole index."""
    import os

    from tapelsp.project import _python_files

    (tmp_path / "learner.py").write_text("import tensorflow as tf\n", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.py")
    assert [os.path.basename(p) for p, _ in _python_files(str(tmp_path), 100)] == ["learner.py"]
