#!/usr/bin/env bash
# plogscan post-failure hook: diagnose the logs a failed job left behind and publish the reports.
# Written for GitHub Actions (see docs/ci.md); it runs unchanged in any CI or shell.
#
# Usage: github-hook.sh [LOG_DIR [OUT]]
#   LOG_DIR  logs to diagnose (default: $LOG_DIR, else ./logs)
#   OUT      report directory (default: $OUT, else ./plogscan-report); receives report.html,
#            report.json, report.md, report.sarif and report.xml
# Environment:
#   FAIL_ON              --fail-on threshold: info|warning|error|critical|never (default: error)
#   PLOGSCAN_BASELINE    baseline file of known findings, passed as --baseline when set
#   PLOGSCAN             how to run plogscan (default: plogscan), e.g. "python -m plogscan"
#   GITHUB_STEP_SUMMARY  set by GitHub Actions: report.md is appended to the job summary
# Exit code: plogscan's own. 0 = nothing at or above FAIL_ON, 1 = findings at or above it,
# 2 = plogscan could not run (bad input, bad rule, bad option).
set -uo pipefail

log_dir="${1:-${LOG_DIR:-logs}}"
out="${2:-${OUT:-plogscan-report}}"
read -r -a plogscan <<< "${PLOGSCAN:-plogscan}"

args=(diagnose "$log_dir" --output-dir "$out" --fail-on "${FAIL_ON:-error}")
if [[ -n "${PLOGSCAN_BASELINE:-}" ]]; then
  args+=(--baseline "$PLOGSCAN_BASELINE")
fi

# Never publish a stale report from an earlier run as this run's.
rm -f "$out/report.html" "$out/report.json" "$out/report.md" "$out/report.sarif" \
  "$out/report.xml"

"${plogscan[@]}" "${args[@]}"
status=$?

if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  if [[ -f "$out/report.md" ]]; then
    cat "$out/report.md" >> "$GITHUB_STEP_SUMMARY"
  else
    printf '## plogscan could not diagnose %s (exit code %s)\n\nSee the job log.\n' \
      "$log_dir" "$status" >> "$GITHUB_STEP_SUMMARY"
  fi
fi

exit "$status"
