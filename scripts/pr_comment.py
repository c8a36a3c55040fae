"""Post a Markdown report as a comment on the pull request a GitHub Actions run is for (the Action's helper).

    python -P scripts/pr_comment.py REPORT.md

scripts/action.sh runs it for ``command: lint`` with ``comment: true``. It reads what a runner provides:
``GITHUB_EVENT_PATH`` (the event; a ``pull_request`` event names the pull request), ``GITHUB_REPOSITORY``
and ``GITHUB_API_URL``, and the token from ``MCP_PORTAL_GITHUB_TOKEN`` (the action's ``github-token``
input). The report's first line is a marker (``<!-- mcp-portal lint -->``): a comment that starts with
it is updated in place, so each push rewrites one comment instead of adding another.

Outside a pull request it does nothing. A comment that cannot be posted (a fork's read-only token,
say) is a warning, never a failure of the step: the lint result decides that. The token is sent only
to the API address the runner gives and never printed. Standard library only, as the Action may run
it before anything else is installed.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MAX_BODY = 65_000
"""Characters of a comment body (GitHub takes at most 65,536)."""
PAGES = 10
"""Pages of 100 comments searched for the earlier report."""


def _request(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    request.add_header("User-Agent", "mcp-portal-action")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def pull_request_number(event_path: str | None) -> int | None:
    """The number of the pull request the event is about, or None."""
    if not event_path:
        return None
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    number = (event.get("pull_request") or {}).get("number") if isinstance(event, dict) else None
    return number if isinstance(number, int) else None


def post(report: str, *, api: str, repository: str, number: int, token: str) -> str:
    """Create or update the report's comment; what was done, in a line."""
    marker = report.split("\n", 1)[0]
    issue = f"{api}/repos/{repository}/issues/{number}/comments"
    body = {"body": report if len(report) <= MAX_BODY else report[:MAX_BODY] + "\n\n… (cut to fit a comment)\n"}
    for page in range(1, PAGES + 1):
        comments = _request("GET", f"{issue}?per_page=100&page={page}", token)
        if not isinstance(comments, list) or not comments:
            break
        for comment in comments:
            if isinstance(comment, dict) and str(comment.get("body", "")).startswith(marker):
                _request("PATCH", f"{api}/repos/{repository}/issues/comments/{comment['id']}", token, body)
                return f"updated the report comment on pull request #{number}"
    _request("POST", issue, token, body)
    return f"commented the report on pull request #{number}"


def main(argv: list[str]) -> int:
    """Post the report named by ``argv[0]``; 0 whatever happens to the comment (a warning says so)."""
    number = pull_request_number(os.environ.get("GITHUB_EVENT_PATH"))
    if number is None:
        print("mcp-portal action: not a pull request, so the report is not commented.")
        return 0
    token = os.environ.get("MCP_PORTAL_GITHUB_TOKEN", "")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    if not token or "/" not in repository:
        print(
            "::warning title=mcp-portal action::no github-token or GITHUB_REPOSITORY, so the report is not commented."
        )
        return 0
    try:
        report = Path(argv[0]).read_text(encoding="utf-8")
        print(f"mcp-portal action: {post(report, api=api, repository=repository, number=number, token=token)}.")
    except urllib.error.HTTPError as exc:
        print(
            f"::warning title=mcp-portal action::the report could not be commented (HTTP {exc.code}); a pull "
            f"request from a fork gets a read-only token."
        )
    except (OSError, ValueError) as exc:
        print(f"::warning title=mcp-portal action::the report could not be commented ({type(exc).__name__}).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
