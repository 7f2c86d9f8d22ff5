#!/usr/bin/env bash
# The floor-versions run: the bundled samples, their goldens and the command-line tests on the
# lowest Python that pyproject.toml declares (requires-python), with every dependency at the
# lowest version it declares (constraints-floor.txt), in a fresh venv of its own; and the lint
# with the lowest ruff.
# scripts/test.sh runs it after the whole suite, so CI runs it too.
#
# The interpreter is $PLOGSCAN_FLOOR_PYTHON when set, else the newest installed patch release
# of that Python that pyenv knows. Where there is none the run prints that it was skipped and
# why. PLOGSCAN_FLOOR=0 skips it on purpose (and says so).
#
# The wheels are kept in $PLOGSCAN_FLOOR_WHEELS (default: ~/.cache/plogscan-floor-wheels) and
# installed from there without asking the index; only a wheel missing there is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

# The test files of this run: every one must collect and pass at least one test.
TESTS=(
  tests/repo/test_floor_versions.py
  tests/parse/test_formats.py
  tests/e2e/test_samples.py
  tests/crossrank/test_crossrank_samples.py
  tests/report/test_report_formats.py
  tests/e2e/test_lang.py
  tests/report/test_report_words.py
  tests/cli/test_cli_ingest_events.py
  tests/api/test_python_api.py
  tests/cli/test_cli_rules.py
  tests/compare/test_diff.py
  tests/e2e/test_ci_hook.py
  tests/cli/test_keptcode.py
  tests/table/test_splice.py
  tests/table/test_split.py
  tests/cli/test_input_errors.py
  tests/analysis/test_unreadable_inputs.py
  tests/e2e/test_terminal.py
)
# What those tests import besides plogscan and its dependencies, and the linter (all pinned by
# the constraints).
TEST_PACKAGES=(pytest jsonschema ruff)

say() { echo "floor-versions run: $*"; }

if [ "${PLOGSCAN_FLOOR:-1}" = "0" ]; then
  say "SKIPPED (PLOGSCAN_FLOOR=0)"
  exit 0
fi

floor=$(sed -n 's/^requires-python *= *">= *\([0-9][0-9.]*\)".*/\1/p' pyproject.toml)
if [ -z "$floor" ]; then
  echo "floor-versions run: pyproject.toml has no requires-python = \">=X.Y\"" >&2
  exit 1
fi

python_of_floor() {
  # The newest pyenv-installed $floor.N interpreter, or nothing (and the reason on fd 3).
  local pyenv root version
  pyenv=$(command -v pyenv || true)
  if [ -z "$pyenv" ] && [ -x "${PYENV_ROOT:-$HOME/.pyenv}/bin/pyenv" ]; then
    pyenv="${PYENV_ROOT:-$HOME/.pyenv}/bin/pyenv"
  fi
  if [ -z "$pyenv" ]; then
    echo "no pyenv on PATH or in ${PYENV_ROOT:-$HOME/.pyenv}, and PLOGSCAN_FLOOR_PYTHON is not set" >&3
    return
  fi
  root=$("$pyenv" root)
  version=$("$pyenv" versions --bare 2>/dev/null | grep -E "^${floor//./\\.}\.[0-9]+$" \
            | sort -V | tail -n 1 || true)
  if [ -z "$version" ]; then
    echo "pyenv ($root) has no Python $floor.x installed (pyenv install $floor)" >&3
    return
  fi
  echo "$root/versions/$version/bin/python"
}

reason=$(mktemp)
python="${PLOGSCAN_FLOOR_PYTHON:-$(python_of_floor 3>"$reason")}"
if [ -z "$python" ]; then
  say "SKIPPED: $(cat "$reason"): Python $floor and the dependency floors are untested here"
  rm -f "$reason"
  exit 0
fi
rm -f "$reason"
have=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ "$have" != "$floor" ]; then
  echo "floor-versions run: $python is Python $have, not $floor" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/plogscan-floor.XXXXXX")
trap 'rm -rf "$work"' EXIT
wheels="${PLOGSCAN_FLOOR_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/plogscan-floor-wheels}"
mkdir -p "$wheels"
started=$SECONDS

"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
pip() {
  "$venv_python" -m pip --quiet --quiet --disable-pip-version-check "$@"
}
wanted=(-c constraints-floor.txt -e . "${TEST_PACKAGES[@]}")
# From the kept wheels alone when they are all there; else fetch what is missing, then again.
# The build of plogscan itself (setuptools, wheel) comes from there too.
if ! pip install --no-index --find-links "$wheels" "${wanted[@]}" >/dev/null 2>&1; then
  pip download -d "$wheels" "setuptools>=69" wheel -c constraints-floor.txt . \
    "${TEST_PACKAGES[@]}"
  pip install --no-index --find-links "$wheels" "${wanted[@]}"
fi
# The venv's editable install of this checkout is what runs, whatever PYTHONPATH said.
unset PYTHONPATH
say "venv ready in $((SECONDS - started)) s:" \
    "Python $("$venv_python" -c 'import platform; print(platform.python_version())')," \
    "$("$venv_python" -m pip list --disable-pip-version-check --format=freeze 2>/dev/null \
       | grep -iE '^(click|rich|pandas|pyarrow|pyyaml|numpy|jinja2|hyperscan)==' \
       | tr '\n' ' ')"
say "$("$venv_python" -m plogscan --version | tail -n 1)"

"$work/venv/bin/ruff" check --quiet plogscan tests bench samples setup.py
# Its own --basetemp: pytest then neither keeps the run's files nor, at exit, sweeps the older
# runs' out of the shared temporary directory (minutes on a machine where big suites ran).
"$venv_python" -m pytest -q -p no:cacheprovider --basetemp="$work/pytest" \
  --junitxml="$work/junit.xml" "${TESTS[@]}"

# A run that collected nothing from a file would pass without testing it.
"$venv_python" - "$work/junit.xml" "${TESTS[@]}" <<'EOF'
import sys
import xml.etree.ElementTree as ET

junit, files = sys.argv[1], sys.argv[2:]
passed = dict.fromkeys(files, 0)
for case in ET.parse(junit).iter("testcase"):
    if not any(child.tag in ("failure", "error", "skipped") for child in case):
        module = case.get("classname", "").split(".")
        for name in files:
            if name.removesuffix(".py").split("/") == module[:len(name.split("/"))]:
                passed[name] += 1
empty = [name for name, count in passed.items() if count == 0]
if empty:
    sys.exit(f"floor-versions run: no test passed in {', '.join(empty)}")
EOF
say "passed ($((SECONDS - started)) s in all)"
