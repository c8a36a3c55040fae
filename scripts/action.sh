#!/usr/bin/env bash
# The GitHub Action's one step (action.yml runs this file; tests/test_action.py runs it too).
#
# Reads the action's inputs from INPUT_* variables (action.yml passes them), installs mcp-portal
# from the action's own checkout unless INPUT_INSTALL is "false", runs `build`, `check` or `diff`,
# and writes outputs to $GITHUB_OUTPUT. For `diff`, the Markdown report also goes to
# $GITHUB_STEP_SUMMARY. The command's exit code is the step's (0 ok, 1 error, 2 usage, 3 check
# drift, 4 diff --fail-on), so a workflow fails exactly when the command does.
set -euo pipefail

python="${INPUT_PYTHON:-python3}"
command="${INPUT_COMMAND:-build}"

fail() { echo "::error title=mcp-portal action::$1" >&2; exit 2; }

case "$command" in
  build|check|diff) ;;
  *) fail "input 'command' must be build, check or diff, not '$command'." ;;
esac

if [[ "${INPUT_INSTALL:-true}" != "false" ]]; then
  "$python" -m pip install --quiet --disable-pip-version-check "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"
fi

args=("$command")
# opt NAME VALUE: add "--NAME VALUE" when VALUE is not empty.
opt() { if [[ -n "$2" ]]; then args+=("--$1" "$2"); fi; }
# flag NAME VALUE: add "--NAME" when VALUE is "true".
flag() {
  case "$2" in
    true) args+=("--$1") ;;
    false|"") ;;
    *) fail "input '$1' must be true or false, not '$2'." ;;
  esac
}
# many NAME VALUE: one "--NAME line" per non-empty line of VALUE (headers, environment variables).
many() {
  local line
  while IFS= read -r line; do
    if [[ -n "$line" ]]; then args+=("--$1" "$line"); fi
  done <<< "$2"
}

if [[ "$command" == "diff" ]]; then
  [[ -n "${INPUT_OLD:-}" && -n "${INPUT_NEW:-}" ]] || fail "diff needs the inputs 'old' and 'new' (a snapshot file or a built site each)."
  args+=("$INPUT_OLD" "$INPUT_NEW" "--format" "markdown")
  opt fail-on "${INPUT_FAIL_ON:-}"
else
  opt stdio "${INPUT_STDIO:-}"
  many env "${INPUT_ENV:-}"
  opt url "${INPUT_URL:-}"
  many header "${INPUT_HEADER:-}"
  opt from "${INPUT_FROM:-}"
  opt config "${INPUT_CONFIG:-}"
  opt out "${INPUT_OUT:-}"
  opt title "${INPUT_TITLE:-}"
  opt base-url "${INPUT_BASE_URL:-}"
  opt locales "${INPUT_LOCALES:-}"
  opt server-language "${INPUT_SERVER_LANGUAGE:-}"
  opt capability-version "${INPUT_CAPABILITY_VERSION:-}"
  opt templates "${INPUT_TEMPLATES:-}"
  opt translations "${INPUT_TRANSLATIONS:-}"
  opt overlays "${INPUT_OVERLAYS:-}"
  opt openapi "${INPUT_OPENAPI:-}"
  opt previous "${INPUT_PREVIOUS:-}"
  opt jobs "${INPUT_JOBS:-}"
  opt request-timeout "${INPUT_REQUEST_TIMEOUT:-}"
  opt total-timeout "${INPUT_TOTAL_TIMEOUT:-}"
  opt max-pages "${INPUT_MAX_PAGES:-}"
  opt max-tools "${INPUT_MAX_TOOLS:-}"
  opt max-description "${INPUT_MAX_DESCRIPTION:-}"
  opt max-schema-bytes "${INPUT_MAX_SCHEMA_BYTES:-}"
  opt max-schema-depth "${INPUT_MAX_SCHEMA_DEPTH:-}"
  opt max-render-seconds "${INPUT_MAX_RENDER_SECONDS:-}"
  flag no-search "${INPUT_NO_SEARCH:-}"
  flag strict "${INPUT_STRICT:-}"
  flag lenient "${INPUT_LENIENT:-}"
  if [[ "$command" == "build" ]]; then
    opt cache "${INPUT_CACHE:-}"
    flag no-cache "${INPUT_NO_CACHE:-}"
    args+=("--quiet")
  fi
fi
flag debug "${INPUT_DEBUG:-}"

report="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-portal-$command-report.md"
status=0
if [[ "$command" == "diff" ]]; then
  "$python" -m generator "${args[@]}" > "$report" || status=$?
  cat "$report"
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" && ( "$status" == 0 || "$status" == 4 ) ]]; then
    cat "$report" >> "$GITHUB_STEP_SUMMARY"
  fi
else
  "$python" -m generator "${args[@]}" || status=$?
fi

if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  {
    echo "exit-code=$status"
    if [[ "$command" != "diff" ]]; then echo "site=${INPUT_OUT:-site}"; fi
    if [[ "$command" == "diff" ]]; then echo "report=$report"; fi
  } >> "$GITHUB_OUTPUT"
fi
exit "$status"
