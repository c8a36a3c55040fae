"""Likely secrets written literally into a server's command, URL or ``public`` value.

A command line or a URL is published: the pages show it, ``snapshot.json`` records it, and every
client configuration repeats it. A key typed into it (``mcp start --api-key lau-1f0c...``) would
land in every file of the site. :func:`literal_secrets` finds such values so the command can refuse
them (exit 2) and say how to pass them instead: as ``${VAR}``, expanded for the process and
published as written, or through ``--env``.

What counts as a likely secret, all decided on the user's own input with linear-time patterns over
a bounded length:

- the value after an option named for a credential (``--api-key``, ``--token``, ``--password``,
  ``--secret``, ``--client-secret``, ``--github-token``...), as the next word or after ``=``;
- the value of an environment assignment named for one (``GITHUB_TOKEN=...``, ``-e API_KEY=...``);
- in a URL, its userinfo, and a query parameter named ``key``, ``token``, ``api_key``,
  ``access_token``, ``secret``, ``password`` and the like;
- anywhere, a value in a known credential shape (``ghp_``, ``glpat-``, ``sk-``, ``xoxb-``,
  ``AKIA``, ``AIza``, a JWT...) whose random tail has the digits and entropy of a real key.

Not secrets: a ``${VAR}`` reference, a ``$NAME`` left for a shell, a file path (``--key ./key.pem``),
and a placeholder (``KEY``, ``YOUR_API_KEY``, ``<token>``), which a reader is meant to replace.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

_MAX = 4096
"""Characters of one value looked at: a credential is far shorter, and the check stays bounded."""

_WORD = r"(?:api[-_]?key|apikey|key|token|secret|password|passwd|pwd|credentials?)"
_OPTION = re.compile(rf"--?(?:[a-z0-9]+[-_])*{_WORD}", re.IGNORECASE)
"""An option named for a credential: the credential word last (``--api-key``, not ``--api-key-file``)."""
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_CREDENTIAL_PARTS = frozenset(
    {"key", "apikey", "token", "secret", "password", "passwd", "pwd", "credential", "credentials"}
)
"""Words of an environment variable's name (split at ``_``) that make it a credential (``GITHUB_TOKEN``)."""
_QUERY_NAMES = re.compile(
    r"(?:[a-z0-9]+[-_])*(?:api[-_]?key|apikey|key|token|secret|password|passwd|pwd|sig|signature|auth)",
    re.IGNORECASE,
)
_SHAPE = re.compile(
    r"(?:gh[pousr]_|github_pat_|glpat-|glptt-|gldt-|sk-ant-|sk-proj-|sk-|sk_live_|sk_test_|rk_live_|"
    r"xox[abposr]-|xapp-|AKIA|ASIA|AIza|npm_|pypi-|hf_|dop_v1_|shpat_|shpss_|lin_api_|ntn_|secret_|"
    r"SG\.|api-|sdk-|mob-|ya29\.)([A-Za-z0-9_.=-]{16,})"
)
"""Prefixes credential issuers put on their keys, followed by the key's random tail."""
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_CAPITALS = re.compile(r"[A-Z][A-Z0-9_]*")
"""``KEY``, ``YOUR_API_KEY``: a placeholder a reader replaces, like ``<token>`` and ``xxxx``."""
_PLACEHOLDER_WORDS = frozenset({"your", "here", "example", "placeholder", "changeme", "redacted", "dummy"})
"""Words of a lower-case placeholder (``your-api-key-here``)."""


@dataclass(frozen=True)
class LiteralSecret:
    """One likely secret: the literal *value*, how a message names it (*what*), and how pages show it
    instead (*shown*), as a literal header value is shown (``<Authorization value>``)."""

    value: str
    what: str
    shown: str


def _entropy(text: str) -> float:
    """Shannon entropy of *text*, in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _random_tail(tail: str) -> bool:
    """Whether *tail* looks generated: digits among letters, and enough entropy for a key."""
    digits = sum(c.isdigit() for c in tail)
    letters = sum(c.isalpha() for c in tail)
    return digits >= 2 and letters >= 4 and _entropy(tail) >= 3.0


def _shaped(text: str) -> str | None:
    """The first credential-shaped run in *text*, or None."""
    text = text[:_MAX]
    jwt = _JWT.search(text)
    if jwt:
        return jwt.group(0)
    for match in _SHAPE.finditer(text):
        if _random_tail(match.group(1)):
            return match.group(0)
    return None


def _secret_value(value: str) -> bool:
    """Whether *value*, given to a credential option or variable, is a literal secret."""
    value = value.strip()
    if len(value) < 4 or "${" in value or value.startswith("$"):
        return False
    if value.startswith(("/", "./", "../", "~/")) or value.endswith((".pem", ".key", ".json", ".txt")):
        return False  # a file holding the secret: its path is no secret
    placeholder = _CAPITALS.fullmatch(value) or value[0] in "<{[" or set(value.lower()) <= set("x.*…-_")
    words = set(re.split(r"[-_.]", value.lower())) if re.fullmatch(r"[a-z_.-]+", value) else set()
    return not (placeholder or words & _PLACEHOLDER_WORDS)


def _credential_name(name: str) -> bool:
    """Whether an environment variable's *name* is named for a credential (``API_KEY``, ``GITHUB_TOKEN``)."""
    parts = name.lower().split("_")
    return bool(_CREDENTIAL_PARTS.intersection(parts)) or ("api", "key") in itertools.pairwise(parts)


def in_command(words: tuple[str, ...], where: str) -> list[LiteralSecret]:
    """Likely secrets among the words of a command line; *where* names it (``--stdio``)."""
    found: list[LiteralSecret] = []
    for i, word in enumerate(words):
        word = word[:_MAX]
        option, eq, attached = word.partition("=")
        if word.startswith("-") and _OPTION.fullmatch(option):
            value = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
            if _secret_value(value):
                found.append(LiteralSecret(value, f"the value of `{option}` in {where}", f"<{option} value>"))
                continue
        name, eq, value = word.partition("=")
        assigned = eq and not word.startswith("-") and _ENV_NAME.fullmatch(name) and _credential_name(name)
        if assigned and _secret_value(value):
            found.append(LiteralSecret(value, f"the value of `{name}` in {where}", f"<{name} value>"))
            continue
        shaped = _shaped(word)
        if shaped and not any(s.value in word for s in found):
            found.append(LiteralSecret(shaped, f"a credential-shaped value in {where}", "<secret>"))
    return found


def in_url(url: str, where: str) -> list[LiteralSecret]:
    """Likely secrets in a URL: its userinfo, credential query parameters, credential-shaped parts."""
    url = url.strip()[:_MAX]
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[LiteralSecret] = []
    userinfo = parts.netloc.rpartition("@")[0]
    if userinfo and "${" not in userinfo:
        found.append(LiteralSecret(userinfo, f"the user name and password in {where}", "<userinfo>"))
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if _QUERY_NAMES.fullmatch(name) and _secret_value(value):
            found.append(LiteralSecret(value, f"the query parameter `{name}` of {where}", f"<{name} value>"))
    shaped = _shaped(f"{parts.path}?{parts.query}#{parts.fragment}")
    if shaped and not any(shaped in s.value or s.value in shaped for s in found):
        found.append(LiteralSecret(shaped, f"a credential-shaped value in {where}", "<secret>"))
    return found


def advice(found: list[LiteralSecret], *, stdio: bool) -> str:
    """The message that refuses *found*: what was found (never the value) and how to pass it instead."""
    what = "; ".join(s.what for s in found)
    how = (
        "put it in an environment variable and write `${NAME}` in its place (for example `--api-key ${API_KEY}`, "
        "single-quoted in a shell): mcp-portal expands it for the server process and publishes the command "
        "as written. A server that reads its key from the environment can get it with `--env NAME` "
        "(`env:` in portal.yaml) instead"
        if stdio
        else "put it in an environment variable and write `${NAME}` in its place (for a query parameter, "
        "`?token=${TOKEN}`; for credentials, a header such as `--header 'Authorization: Bearer ${TOKEN}'`): "
        "mcp-portal expands it when it connects and never publishes it"
    )
    return (
        f"This looks like a secret written literally: {what}. A server's command and URL are published on every "
        f"page, in snapshot.json and in every client configuration, so the build stops here. Instead, {how}. "
        f"If it is no secret, run again with --allow-literal-secrets: it is then masked in every output."
    )


def masked(text: str, found: tuple[LiteralSecret, ...]) -> str:
    """*text* with each secret of *found* replaced by the way pages show it."""
    for secret in sorted(found, key=lambda s: -len(s.value)):
        text = text.replace(secret.value, secret.shown)
    return text
