#!/usr/bin/env bash
# Install plogscan with its test dependencies (and the headless Chromium the HTML report
# test drives), then run the whole test suite. This is the README's test command; CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -x .ci/install-browser.sh ] || [ -f .ci/install-browser.sh ]; then
  bash .ci/install-browser.sh
fi
"${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check -e '.[test]'
"${PYTHON:-python3}" -m ruff check plogscan tests bench
"${PYTHON:-python3}" -m pytest "$@"
