#!/usr/bin/env bash
# Install what the HTML report's browser test (tests/report/test_html_report.py) needs on a Debian
# machine: Debian's own `chromium` package (the test runs /usr/bin/chromium headless) and
# Playwright for Python, used only as a driver through executable_path.
#
# Never run `playwright install`: it downloads a browser build of its own, which this project's
# machines cannot fetch; the Debian package is the browser under test.
#
# Idempotent: when both are present it changes nothing. Needs root (or sudo) for apt-get.
set -euo pipefail

PYTHON="${PYTHON:-python3}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

if [ -x /usr/bin/chromium ]; then
    echo "install-browser: chromium present: $(/usr/bin/chromium --version 2>/dev/null || true)"
else
    echo "install-browser: installing Debian chromium"
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi

if "$PYTHON" -c "import playwright.sync_api" 2>/dev/null; then
    echo "install-browser: playwright present: $("$PYTHON" -m pip show playwright 2>/dev/null \
        | sed -n 's/^Version: //p')"
else
    echo "install-browser: installing playwright (Python driver only, no browser download)"
    "$PYTHON" -m pip install --quiet "playwright>=1.50,<2"
fi
