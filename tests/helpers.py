"""Helpers shared by test modules: the repository's paths, the pipeline run in process
(``diagnosed``), any command run in process (``run_cli``) or in a child process (``run_child``),
and ``plogscan diagnose`` run in process (``DiagnoseCli``, the ``diagnose_cli`` fixture)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from plogscan.cli import cli
from plogscan.model import Diagnosis

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "samples"
# An environment without any locale or language setting: the language is plogscan's default.
NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "", "PLOGSCAN_LANG": ""}


def diagnosed(paths: Sequence[str], rules_dirs: Sequence[str] = (), fail_on: str = "error", *,
              on_progress: Callable[[str, int], None] | None = None, executor: Any = None,
              redactor: Any = None, timings: Any = None, **options: Any) -> Diagnosis:
    """``plogscan.pipeline.run`` of ``DiagnoseOptions(paths, rules_dirs, fail_on, **options)``,
    with ``run``'s own arguments passed on."""
    from plogscan.pipeline import DiagnoseOptions, run

    given = DiagnoseOptions(paths=tuple(paths), rules_dirs=tuple(rules_dirs), fail_on=fail_on,
                            **options)
    return run(given, on_progress=on_progress, executor=executor, redactor=redactor,
               timings=timings)


def run_cli(*args: object, env: Mapping[str, str | None] | None = None,
            catch_exceptions: bool = False) -> Result:
    """``plogscan ARGS`` run in process through click's ``CliRunner``: the exit code, standard
    output and standard error of one run. An exception that escapes the command fails the test
    with its traceback (it is never read as exit code 1); ``env`` sets environment variables
    for the run alone."""
    return CliRunner().invoke(cli, [str(a) for a in args], env=env,
                              catch_exceptions=catch_exceptions)


def run_child(*args: object, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """``python -m plogscan ARGS`` in a child process started in the checkout, its output
    captured as text: for what only a process of its own shows (signals, limits, exit)."""
    return subprocess.run([sys.executable, "-m", "plogscan", *map(str, args)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False)


class DiagnoseCli:
    """``plogscan diagnose ARGS`` as the command line runs it (``run_cli``), with shorthands
    for the checked standard output and the parsed JSON report."""

    def __call__(self, *args: object, env: Mapping[str, str | None] | None = None,
                 catch_exceptions: bool = False) -> Result:
        return run_cli("diagnose", *args, env=env, catch_exceptions=catch_exceptions)

    def stdout(self, *args: object, exit_codes: Sequence[int] = (0, 1),
               env: Mapping[str, str | None] | None = None) -> str:
        """The standard output of ``plogscan diagnose ARGS --quiet``, after checking that the
        run ended with one of ``exit_codes`` (0 clean, 1 findings by default)."""
        result = self(*args, "--quiet", env=env)
        assert result.exit_code in exit_codes, result.output
        return result.stdout

    def json(self, *args: object, exit_codes: Sequence[int] = (0, 1),
             env: Mapping[str, str | None] | None = None) -> Any:
        """The JSON report of ``plogscan diagnose ARGS --format json --quiet``, checked as
        ``stdout`` checks it."""
        return json.loads(self.stdout(*args, "--format", "json", exit_codes=exit_codes, env=env))


def console_run(then: str) -> str:
    """Python source that runs ``plogscan diagnose ARGV1 --no-cache --format json`` as the
    console script does (in the same process, its exit caught), then ``then``: for a child
    interpreter that reports on what the command did to it."""
    return ("import sys\nfrom plogscan.cli import main\n"
            "sys.argv = ['plogscan', 'diagnose', sys.argv[1], '--no-cache', '--format', 'json']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n" + then)



def generated_tree(where: Path, seed: int, size: int = 3 << 20, **options: Any) -> Path:
    """A tree of two ranks written by the bench's generator (``bench/generate.py``) at
    ``where``; ``options`` are its ``Config`` fields (``reuse_share``, ``error_density``…)."""
    if str(REPO_ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(REPO_ROOT / "bench"))
    import generate

    generate.generate(generate.Config(out=where, size=size, ranks=2, seed=seed, **options))
    return where


def dense_plogs(where: Path, seed: int) -> list[Path]:
    """The host plogs of a small generated tree where failures are dense (the bench's dense
    cells' options: a reused context in one line in four, one line in eleven an error)."""
    tree = generated_tree(where, seed, reuse_share=0.25, error_density=0.09)
    plogs = sorted(tree.rglob("plog-*.log"))
    assert plogs
    return plogs
