"""Values for what a name says a thing is: a path, a thing's name, an ARN; and the word helpers behind them.

:mod:`generator.schema.values` asks these when a parameter's name (or the path segment a template
variable follows) says what it holds: ``output_dir`` is a directory, ``csvFilePath`` a ``.csv`` file
when the description says "CSV file", a plain ``name`` is ``my-node`` inside ``nodes`` (a person's
only where the description speaks of a person), ``policy_arn`` an IAM policy's ARN. Descriptions are
server text: each is read up to :data:`MAX_TEXT` characters with patterns that have no nested
repetition. Fixed and deterministic.
"""

from __future__ import annotations

import re

MAX_TEXT = 2_000
"""The characters of a description read for hints."""
PERSON_NAME = "Alex Example"
"""A person's name, for a field that names a person."""


def hint_key(name: str | None) -> str:
    """A parameter name normalised for the hint tables: words split (``pageId`` is ``page_id``), lower case, ``_``."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", (name or "").strip())
    return re.sub(r"[\s-]+", "_", text).lower()


def ends(key: str, suffixes: tuple[str, ...]) -> bool:
    """Does *key* end with one of *suffixes* (``_path``), or is it the bare word (``path``)?"""
    return key.endswith(suffixes) or key in {s.lstrip("_") for s in suffixes}


def words(text: object) -> set[str]:
    """The lower-case words of a description (``ISO 8601`` and ``e-mail`` kept whole), for hint lookups."""
    if not isinstance(text, str):
        return set()
    lowered = text[:500].lower()
    words = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)?", lowered))
    return words | {phrase for phrase in ("iso 8601", "number of") if phrase in lowered}


PERSON_NAMES = ("author", "assignee", "user", "username", "first", "last", "full", "display", "person",
                 "contact", "customer", "owner", "sender", "recipient", "reviewer", "given", "family")  # fmt: skip
"""What comes before ``_name`` when the name is a person's (``author_name``); any other ``*_name``
names a thing (``vm_name``, ``index_name``) and gets a thing-like value."""
PATH_NAMES = ("_path", "_file", "filepath", "_dir", "directory", "folder")
_EXTENSION = re.compile(r"\.(xlsx|xls|csv|json|yaml|yml|md|txt|pdf|docx|png|jpg|py|js|ts|html|xml|zip|parquet)\b", re.I)


_THING_NAMED = (
    re.compile(r"\bname (?:of|for) (?:the |a |an |this )?([a-z][a-z0-9]*(?: [a-z][a-z0-9]*){0,2})", re.I),
    re.compile(r"\b([a-z][a-z0-9]{1,30}) names?\b", re.I),
)
"""What a plain ``name`` names, in its description: "Name of the file share", "The cluster name"."""
_NOT_A_THING = frozenset(
    ["the", "a", "an", "its", "your", "their", "this", "full", "display", "to", "in", "for", "that", "which",
     "with", "from", "on", "of", "and", "or", "is", "be", "you", "new", "unique", "it", "where", "whose", "who",
     "when", "whom", "being", "used", "you"]
)  # fmt: skip


def thing_named(description: object) -> str | None:
    """``my-<thing>`` for a ``name`` whose description says what it names, unless that is a person."""
    if not isinstance(description, str):
        return None
    for match in (m for pattern in _THING_NAMED for m in pattern.finditer(description[:2000])):
        words = match.group(1).lower().split()
        cut = next((i for i, w in enumerate(words) if w in _NOT_A_THING), len(words))
        thing = words[:cut]
        if thing and not any(w in PERSON_NAMES or w == "person" for w in thing):
            return "my-" + "-".join(thing)[:40]
        if thing:
            return None  # a person's name
    return None


_TYPED_FILE = re.compile(
    r"\b(xlsx|xls|csv|json|yaml|yml|pdf|docx|png|jpg|html|xml|zip|parquet)\s+files?\b|\b(PNG|JPEG|CSV|PDF|XLSX|YAML)\b"
)
"""A file type named as a word ("a usage data CSV file", "PNG or JPEG")."""
_SPEAKS_OF_DIRECTORY = re.compile(r"^[^.]{0,60}\b(?:directory|folder|workspace|dir)\b", re.I)


_OWNER_SKIPPED = frozenset(
    ["get", "list", "create", "update", "delete", "remove", "add", "set", "read", "write", "generate", "find", "search",
     "fetch", "open", "close", "show", "describe", "run", "start", "stop", "rename", "copy", "move", "insert", "edit",
     "patch", "put", "post", "upsert", "tool", "by", "name", "names", "for", "with", "the", "a", "new", "body",
     "input", "request", "params", "payload", "data", "item", "items", "value", "values", "args", "arguments",
     "options", "config", "settings", "list", "info"]
)  # fmt: skip
"""Words of an owner's name that say nothing of the thing a ``name`` names (verbs, wrappers)."""


def name_hint(description: object, owner: str | None) -> str:
    """A plain ``name``: the thing its description names ("Name of the file share"), a person's only where
    the description speaks of a person, else the thing its owner is (``nodes[].name``, ``delete_chart``)."""
    if thing := thing_named(description):
        return thing
    text = description[:MAX_TEXT].lower() if isinstance(description, str) else ""
    if any(re.search(rf"\b{word}\b", text) for word in PERSON_NAMES):
        return PERSON_NAME
    words = [w for w in hint_key(owner).split("_") if w and w not in _OWNER_SKIPPED][-2:]
    if words:
        return "my-" + "-".join(singular(w) for w in words)[:40]
    return "my-item"


def singular(word: str) -> str:
    """``nodes`` is ``node``, ``entries`` ``entry``, ``ingresses`` ``ingress``, ``children`` ``child``;
    ``status`` stays."""
    if word == "children":
        return "child"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def path_hint(key: str, description: object) -> str:
    """A path that suits the name and description: a directory where the name says one (``output_dir``)
    or the description's first words do ("The directory to save..."), a file of the type the
    description names (``.xlsx``, "a CSV file"), else a report file."""
    text = description[:MAX_TEXT] if isinstance(description, str) else ""
    found = words(text)
    extension = _EXTENSION.search(text) or _TYPED_FILE.search(text)
    names_a_file = "file" in key or (key.endswith("path") and extension is not None)
    folder = key.endswith(("dir", "directory", "folder")) or key in ("repo_path", "repository_path", "project_path")
    if folder or (not names_a_file and _SPEAKS_OF_DIRECTORY.search(text)):
        return "./project"
    if extension:
        kind = next(g for g in extension.groups() if g).lower()
        return f"data/file.{'jpg' if kind == 'jpeg' else kind}"
    if found & {"workbook", "spreadsheet", "excel"}:
        return "data/workbook.xlsx"
    if found & {"directory", "folder", "project", "workspace"} and "file" not in found:
        return "./project"
    return "reports/q3.pdf"


_ARN_SERVICES = {"policy": "iam::aws:policy/ReadOnlyAccess", "role": "iam::123456789012:role/my-role",
                 "user": "iam::123456789012:user/my-user",
                 "log_group": "logs:us-east-1:123456789012:log-group:my-log-group",
                 "group": "iam::123456789012:group/my-group",
                 "service": "ecs:us-east-1:123456789012:service/my-cluster/my-service",
                 "topic": "sns:us-east-1:123456789012:my-topic", "bucket": "s3:::my-bucket"}  # fmt: skip
"""ARNs by what the name says they point to, the longer ending first (``log_group`` before ``group``)."""


def arn(key: str) -> str:
    """An ARN of the kind the name says (``policy_arn``, ``log_group_arn``), else an IAM role's."""
    thing = key.removesuffix("arn").rstrip("_")
    known = next((value for kind, value in _ARN_SERVICES.items() if thing.endswith(kind)), None)
    return "arn:aws:" + (known or _ARN_SERVICES["role"])
