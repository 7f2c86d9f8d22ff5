#!/usr/bin/env bash
# Install plogscan with its test dependencies (and the headless Chromium the HTML report
# test drives), then run the whole test suite, then the floor-versions run (the samples, their
# goldens and the command-line tests on the lowest declared Python with every dependency at its
# lowest declared version: scripts/test-floor.sh). This is the README's test command; CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -x .ci/install-browser.sh ] || [ -f .ci/install-browser.sh ]; then
  bash .ci/install-browser.sh
fi
"${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check -e '.[test]'
"${PYTHON:-python3}" -m ruff check plogscan tests bench samples setup.py
"${PYTHON:-python3}" -m pytest "$@"
bash scripts/test-floor.sh
