#!/usr/bin/env bash
# The GitHub Action's one step (action.yml runs this file; tests/test_action.py runs it too).
#
# Reads the action's inputs from INPUT_* variables (action.yml passes them), installs mcp-portal
# from the action's own checkout unless INPUT_INSTALL is "false", runs `build`, `check`, `diff` or
# `lint`, and writes outputs to $GITHUB_OUTPUT. For `diff` and `lint`, the Markdown report also goes
# to $GITHUB_STEP_SUMMARY, and with `comment: true` the lint report is posted on the pull request
# (scripts/pr_comment.py). With `pages-branch` (and `versioned: true`) a build is added to the site a
# Pages branch holds, committed on top of it and pushed. The command's exit code is the step's (0 ok,
# 1 error, 2 usage, 3 check drift, 4 diff --fail-on, 5 lint's bar missed), so a workflow fails
# exactly when the command does.
#
# The working directory is the checked-out repository, perhaps a pull request's files: Python runs
# with -P, so neither pip nor mcp-portal is ever imported from it (a `generator/` folder there is
# just a folder). On a pull-request event the inputs that choose a program, its environment or a URL
# for the headers (config, stdio, url, header, env) are refused unless allow-pr-config is true.
# Inputs are data too: a line break in a one-line input is refused before anything is printed,
# every message that shows an input passes through mcp-portal's own neutraliser (generator.text),
# and outputs are written with a random heredoc delimiter.
set -euo pipefail

python="${INPUT_PYTHON:-python3}"
command="${INPUT_COMMAND:-build}"

# The inputs of one line each (all but env and header, which take one item per line).
single_line=(command install python stdio url from config out title base-url public locales server-language
  capability-version templates translations overlays openapi previous versioned version-label full-versions
  pages-branch jobs cache no-cache no-search try-it try-it-tools prove prove-tools prove-timeout strict lenient
  allow-literal-secrets request-timeout total-timeout max-pages max-tools max-description max-schema-bytes
  max-reply-bytes max-schema-depth max-render-seconds max-snapshot-bytes old new fail-on min-score enable disable
  lint comment github-token lint-page debug allow-pr-config)
for name in "${single_line[@]}"; do
  var="INPUT_$(printf '%s' "$name" | tr 'a-z-' 'A-Z_')"
  if [[ "${!var:-}" == *[$'\n\r']* ]]; then
    # Only the input's name is shown: its value could be anything, a workflow command included.
    echo "::error title=mcp-portal action::input '$name' holds a line break, but it takes a single line; remove the break (a YAML '|' block adds one at its end)." >&2
    exit 2
  fi
done

if [[ "${INPUT_INSTALL:-true}" != "false" ]]; then
  # requirements.lock pins the libraries that shape the pages: the same input gives the same site on every run.
  "$python" -P -m pip install --quiet --disable-pip-version-check -c "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}/requirements.lock" "$GITHUB_ACTION_PATH"
fi
# The installed mcp-portal, never a `generator` package in the working directory.
portal() { "$python" -P -m generator "$@"; }

# neutral TEXT: TEXT as the CLI would print it: control characters and workflow commands shown, not obeyed.
neutral() {
  "$python" -P -c 'import sys; from generator.text import for_terminal, one_line; print(for_terminal(one_line(sys.argv[1])))' "$1" 2>/dev/null ||
    echo "an input is not valid (mcp-portal, which shows inputs safely, is not installed for the input 'python')"
}
# fail MESSAGE: a workflow error annotation, then exit 2 (a usage error). "%" is escaped as the runner expects.
fail() {
  local shown
  shown="$(neutral "$1")"
  echo "::error title=mcp-portal action::${shown//%/%25}" >&2
  exit 2
}

case "$command" in
  build|check|diff|lint) ;;
  *) fail "input 'command' must be build, check, diff or lint, not '$command'." ;;
esac

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

# On a pull request the checkout is the pull request's files (and under pull_request, this workflow's
# inputs are the pull request's too): the inputs that choose which program runs, with which environment
# variables, and where headers go are refused unless the workflow says they come from elsewhere.
case "${INPUT_ALLOW_PR_CONFIG:-false}" in
  true|false|"") ;;
  *) fail "input 'allow-pr-config' must be true or false, not '${INPUT_ALLOW_PR_CONFIG}'." ;;
esac
case "${GITHUB_EVENT_NAME:-}" in
  pull_request|pull_request_target|pull_request_review|pull_request_review_comment)
    chosen=()
    for name in config stdio url header env; do
      var="INPUT_$(printf '%s' "$name" | tr 'a-z' 'A-Z')"
      if [[ -n "${!var:-}" && "${INPUT_ALLOW_PR_CONFIG:-false}" != "true" ]]; then chosen+=("'$name'"); fi
    done
    if (( ${#chosen[@]} )); then
      fail "on a ${GITHUB_EVENT_NAME} event the input(s) ${chosen[*]} are refused: the checkout may be the pull request's, and with them it would choose the program that runs, the environment variables (secrets among them) it gets, and the URL that receives the headers. Build from a snapshot instead (input 'from'), or, if these inputs and the files they name come from the base branch (for example its portal.yaml checked out into another path), set allow-pr-config: true (see docs/ci.md)."
    fi ;;
esac

if [[ "$command" == "diff" ]]; then
  [[ -n "${INPUT_OLD:-}" && -n "${INPUT_NEW:-}" ]] || fail "diff needs the inputs 'old' and 'new' (a snapshot file or a built site each)."
  args+=("$INPUT_OLD" "$INPUT_NEW" "--format" "markdown")
  opt fail-on "${INPUT_FAIL_ON:-}"
  opt max-snapshot-bytes "${INPUT_MAX_SNAPSHOT_BYTES:-}"
else
  opt stdio "${INPUT_STDIO:-}"
  many env "${INPUT_ENV:-}"
  opt url "${INPUT_URL:-}"
  opt public "${INPUT_PUBLIC:-}"
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
  flag versioned "${INPUT_VERSIONED:-}"
  opt version-label "${INPUT_VERSION_LABEL:-}"
  opt jobs "${INPUT_JOBS:-}"
  opt request-timeout "${INPUT_REQUEST_TIMEOUT:-}"
  opt total-timeout "${INPUT_TOTAL_TIMEOUT:-}"
  opt max-pages "${INPUT_MAX_PAGES:-}"
  opt max-tools "${INPUT_MAX_TOOLS:-}"
  opt max-description "${INPUT_MAX_DESCRIPTION:-}"
  opt max-schema-bytes "${INPUT_MAX_SCHEMA_BYTES:-}"
  opt max-reply-bytes "${INPUT_MAX_REPLY_BYTES:-}"
  opt max-schema-depth "${INPUT_MAX_SCHEMA_DEPTH:-}"
  opt max-render-seconds "${INPUT_MAX_RENDER_SECONDS:-}"
  opt max-snapshot-bytes "${INPUT_MAX_SNAPSHOT_BYTES:-}"
  flag no-search "${INPUT_NO_SEARCH:-}"
  flag try-it "${INPUT_TRY_IT:-}"
  opt try-it-tools "${INPUT_TRY_IT_TOOLS:-}"
  flag prove "${INPUT_PROVE:-}"
  opt prove-tools "${INPUT_PROVE_TOOLS:-}"
  opt prove-timeout "${INPUT_PROVE_TIMEOUT:-}"
  flag lint-page "${INPUT_LINT_PAGE:-}"
  flag strict "${INPUT_STRICT:-}"
  flag lenient "${INPUT_LENIENT:-}"
  flag allow-literal-secrets "${INPUT_ALLOW_LITERAL_SECRETS:-}"
  if [[ "$command" == "build" ]]; then
    opt full-versions "${INPUT_FULL_VERSIONS:-}"
    opt cache "${INPUT_CACHE:-}"
    flag no-cache "${INPUT_NO_CACHE:-}"
    args+=("--quiet")
  fi
  # lint, and check with lint: the gate (lint takes the server options above, no site option).
  if [[ "$command" == "check" ]]; then flag lint "${INPUT_LINT:-}"; fi
  if [[ "$command" == "lint" ]]; then args+=("--format" "markdown"); fi
  if [[ "$command" == "lint" || "$command" == "check" ]]; then
    opt min-score "${INPUT_MIN_SCORE:-}"
    opt fail-on "${INPUT_FAIL_ON:-}"
    opt enable "${INPUT_ENABLE:-}"
    opt disable "${INPUT_DISABLE:-}"
  fi
fi
flag debug "${INPUT_DEBUG:-}"

case "${INPUT_COMMENT:-false}" in
  true|false) ;;
  *) fail "input 'comment' must be true or false, not '${INPUT_COMMENT}'." ;;
esac

# pages-branch: the site is kept in a branch (GitHub Pages "deploy from a branch"). The branch is checked out
# into `out` first (with an index of its own: the repository's checkout and index are left alone), the
# versioned build adds its version beside the ones already there, and the result is committed on top of the
# branch and pushed. The branch only ever gains a commit, so every version published before stays.
pages_branch="${INPUT_PAGES_BRANCH:-}"
pages_out="${INPUT_OUT:-site}"
pages_parent=""
if [[ -n "$pages_branch" ]]; then
  [[ "$command" == "build" ]] || fail "input 'pages-branch' applies to command build only."
  [[ "${INPUT_VERSIONED:-}" == "true" ]] || fail "input 'pages-branch' needs 'versioned: true': an unversioned build would replace the versions the branch holds."
  git check-ref-format "refs/heads/$pages_branch" || fail "input 'pages-branch' is not a valid branch name: '$pages_branch'."
  if [[ -e "$pages_out" && -n "$(ls -A "$pages_out" 2>/dev/null)" ]]; then
    fail "with 'pages-branch', 'out' must be a new or empty directory: the branch is checked out into it."
  fi
  git_dir="$(git rev-parse --absolute-git-dir)" || fail "'pages-branch' needs the working directory to be a git checkout (actions/checkout)."
  pages_index="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-portal-pages.XXXXXXXX")/index"
  mkdir -p "$pages_out"
  pages_out="$(cd "$pages_out" && pwd)"
  if git fetch --quiet --no-tags --depth 1 origin "+refs/heads/$pages_branch:refs/mcp-portal/pages" 2>/dev/null; then
    pages_parent="$(git rev-parse refs/mcp-portal/pages)"
    GIT_INDEX_FILE="$pages_index" git read-tree "$pages_parent"
    GIT_INDEX_FILE="$pages_index" git --git-dir="$git_dir" --work-tree="$pages_out" checkout-index --all --force
  fi
fi
# pages_git ARGS: git on the pages branch's work tree (out) and its own index.
pages_git() { GIT_INDEX_FILE="$pages_index" git --git-dir="$git_dir" --work-tree="$pages_out" -C "$pages_out" "$@"; }
publish_pages() {
  local tree commit
  pages_git add --all .
  tree="$(pages_git write-tree)"
  if [[ -n "$pages_parent" && "$tree" == "$(git rev-parse "$pages_parent^{tree}")" ]]; then
    echo "mcp-portal: the branch '$pages_branch' already holds this site; nothing to push."
    return
  fi
  export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-$(git config user.name || echo 'github-actions[bot]')}"
  export GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-$(git config user.email || echo '41898282+github-actions[bot]@users.noreply.github.com')}"
  export GIT_COMMITTER_NAME="${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}" GIT_COMMITTER_EMAIL="${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}"
  commit="$(git commit-tree "$tree" ${pages_parent:+-p "$pages_parent"} -m "mcp-portal: publish the documentation")"
  git push --quiet origin "$commit:refs/heads/$pages_branch"
  echo "mcp-portal: pushed $commit to the branch '$pages_branch'."
}

status=0
if [[ "$command" == "diff" || "$command" == "lint" ]]; then
  # A new directory of our own: a name planted in a shared temporary directory is never written through.
  report="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-portal-$command.XXXXXXXX")/report.md"
  portal "${args[@]}" > "$report" || status=$?
  cat "$report"
  # The report is whole when the command ran to its end: 0, or its own "bar missed" code (4, 5).
  if [[ "$status" == 0 || ( "$command" == "diff" && "$status" == 4 ) || ( "$command" == "lint" && "$status" == 5 ) ]]; then
    if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then cat "$report" >> "$GITHUB_STEP_SUMMARY"; fi
    if [[ "$command" == "lint" && "${INPUT_COMMENT:-false}" == "true" ]]; then
      MCP_PORTAL_GITHUB_TOKEN="${INPUT_GITHUB_TOKEN:-}" "$python" -P "${GITHUB_ACTION_PATH:?}/scripts/pr_comment.py" "$report"
    fi
  fi
else
  portal "${args[@]}" || status=$?
  if [[ -n "$pages_branch" && "$status" == 0 ]]; then
    publish_pages
  fi
fi

# output NAME VALUE: one output in the runner's heredoc form, its delimiter random, so no value can end it.
output() {
  local delimiter
  delimiter="mcp-portal-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >> "$GITHUB_OUTPUT"
}
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  output exit-code "$status"
  if [[ "$command" == "diff" || "$command" == "lint" ]]; then output report "$report"; else output site "${INPUT_OUT:-site}"; fi
fi
exit "$status"
