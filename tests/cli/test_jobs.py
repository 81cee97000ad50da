"""`-j/--jobs`: worker processes give the same output, in the same order, as one process.

These runs pass --no-cache: with the results cache a second run would check nothing.
"""

from __future__ import annotations

import pytest

from tapelsp.cli import run as run_module_under_test
from tapelsp.cli.run import MIN_FILES_PER_WORKER, plan_workers

from .helpers import run_in_process, run_module
from .sources import FUNC, MAP, TAPE, write_tree


@pytest.fixture(scope="module")
def many_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("many")
    files = {}
    for index in range(48):
        source = (TAPE, FUNC, MAP)[index % 3]
        files[f"pkg{index % 5}/mod_{index:02d}.py"] = source
    files["pkg0/bad.py"] = b"x = '\xe9'\n"
    files["pkg1/nb.ipynb"] = '{"cells": ['
    return write_tree(root, files)


def test_plan_workers():
    assert plan_workers(0, 8) == 1
    assert plan_workers(MIN_FILES_PER_WORKER * 2 - 1, 8) == 1
    assert plan_workers(MIN_FILES_PER_WORKER * 2, 8) == 2
    assert plan_workers(MIN_FILES_PER_WORKER * 100, 8) == 8
    assert plan_workers(MIN_FILES_PER_WORKER * 100, 1) == 1


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_two_workers_print_exactly_what_one_prints(many_files, output_format):
    one = run_module(["--check", ".", "-j1", "--no-cache", "--output-format", output_format], cwd=many_files)
    two = run_module(["--check", ".", "-j2", "--no-cache", "--output-format", output_format], cwd=many_files)
    assert one.code == two.code == 1
    assert one.err == two.err == ""
    assert two.out == one.out
    if output_format == "text":
        assert "\nFound 50 errors.\n" in one.out


def test_workers_are_used_only_when_there_are_enough_files(many_files, monkeypatch):
    started = []
    real = run_module_under_test.ProcessPoolExecutor

    class Recording(real):
        def __init__(self, *args, **kwargs):
            started.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(run_module_under_test, "ProcessPoolExecutor", Recording)
    sequential = run_in_process(["--check", ".", "-j1", "--no-cache"], cwd=many_files)
    assert started == []
    parallel = run_in_process(["--check", ".", "-j2", "--no-cache"], cwd=many_files)
    assert started == [2]
    assert parallel == sequential
    run_in_process(["--check", "pkg0/mod_00.py", "pkg1/mod_01.py", "-j4", "--no-cache"], cwd=many_files)
    assert started == [2]  # two files: not worth a worker


def test_a_pool_that_cannot_start_falls_back_to_this_process(many_files, monkeypatch):
    def no_processes(*args, **kwargs):
        raise OSError("no more processes")

    monkeypatch.setattr(run_module_under_test, "ProcessPoolExecutor", no_processes)
    assert (run_in_process(["--check", ".", "-j2", "--no-cache"], cwd=many_files)
            == run_in_process(["--check", ".", "-j1", "--no-cache"], cwd=many_files))


def _collector_on(_job: int) -> bool:
    import gc

    return gc.isenabled()


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_cyclic_collector_is_off_while_files_are_checked_and_on_again_after(jobs):
    import gc

    assert gc.isenabled()
    states = run_module_under_test.run_jobs(list(range(MIN_FILES_PER_WORKER * 2)), jobs, _collector_on)
    assert states == [False] * (MIN_FILES_PER_WORKER * 2)
    assert gc.isenabled()


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_is_told_of_every_job_once(jobs):
    told = []
    count = MIN_FILES_PER_WORKER * 2 + 3
    results = run_module_under_test.run_jobs(list(range(count)), jobs, _collector_on, progress=told.append)
    assert len(results) == count
    assert sum(told) == count and all(n >= 1 for n in told)
    if jobs == 1:
        assert told == [1] * count
