"""The words and phrases the rules look for, each list with the reason it exists.

Kept apart from the rules so that the vocabulary can be read (and argued with) in one place.
Phrases are matched as whole-word sequences (:class:`generator.quality.words.Words`), case-blind.
"""

from __future__ import annotations

from generator.quality.words import phrases


def _set(words: str) -> frozenset[str]:
    """A set of words written space-separated."""
    return frozenset(words.split())


USAGE = phrases("""
use this
use it
use when
use for
use to
used to
used for
useful for
useful when
useful to
helpful for
helpful when
instead
rather than
better than
do not use
don't use
not for
only for
only when
when you need
when you want
when the user
if the user
if you need
if you want
call this
call it
before calling
after calling
prefer
preferred
best for
best used
ideal for
good for
intended for
designed for
recommended
start here
use after
use before
alternatively
use case
use cases
typically used
workflow
""")
"""When (or when not) to use a tool, or what to use instead (TDQS "Usage Guidelines")."""

DISCLOSURE = phrases("""
read only
readonly
does not modify
doesn't modify
does not change
doesn't change
without modifying
without changing
no side effects
side effect
side effects
safe to call
permanently
irreversible
cannot be undone
can't be undone
cannot be restored
cannot be recovered
overwrite
overwrites
overwriting
replaces
replacing
idempotent
permission
permissions
write access
allow write
rate limit
rate limited
credit
credits
billed
charges
reset
resets
is deleted
are deleted
is removed
are removed
no changes
""")
"""A description saying what a call changes, beyond its verb: what TDQS's "Behavioral Transparency" asks of
a tool without annotations."""

RETURNS = phrases("""
return
returns
returned
returning
respond
responds
response
output
outputs
result
results
yields
produces
gives back
get back
list of
array of
object with
objects with
json
markdown
csv
url of
link to
containing
""")
"""What comes back ("From Docs to Descriptions" counts thousands of missing return descriptions)."""

ERRORS = phrases("""
error
errors
fail
fails
failed
failure
exception
raises
throws
invalid
not found
does not exist
doesn't exist
no such
limit
limits
limited
maximum
max
at most
up to
no more than
capped
truncated
truncates
paginated
quota
timeout
timeouts
time out
times out
must
requires
only works
cannot
can't
refuses
rejects
retry
retries
retried
400
401
403
404
429
""")
"""Failure modes and limits (the "limitations" a description should state)."""

SHOUTED = _set("MANDATORY MUST IMPORTANT CRITICAL ALWAYS NEVER REQUIRED ESSENTIAL URGENT")
"""Capitalised imperatives aimed at the model; the issue names "MANDATORY" and "you MUST"."""

PUSHY = phrases("""
you should always
always use this
always default to
always call this
use this tool first
before any other tool
before using any other
""")
"""A tool talking the agent into choosing it, whatever the task."""

INJECTION = phrases("""
ignore previous instructions
ignore all previous
ignore the previous
ignore prior instructions
ignore all prior
ignore above instructions
ignore the above
ignore your instructions
disregard previous
disregard all previous
disregard the above
disregard prior
disregard your instructions
forget previous instructions
forget all previous
forget your instructions
override your instructions
your system prompt
reveal the system prompt
do not tell the user
don't tell the user
do not inform the user
without telling the user
without informing the user
do not mention this
don't mention this
hide this from
you are now
new instructions
""")
"""Text that tries to override the agent's instructions or keep the user in the dark (tool poisoning)."""

INJECTION_TAGS = ("<important>", "<system>", "<instructions>", "<secret>", "<hidden>")
"""Pseudo-tags such descriptions wrap their orders in (``<examples>`` and ``<hints>`` are ordinary)."""

WRITE_VERBS = _set(
    "create add insert delete remove update modify write save upload send post publish move rename drop "
    "kill terminate deploy install uninstall clear erase purge destroy overwrite replace edit patch commit "
    "push merge submit cancel revoke grant assign archive set refund charge pay transfer approve reject restore "
    "reset disable enable start stop restart"
)
"""Verbs of a tool that changes something: a tool that leads with one is not read-only."""
DESTRUCTIVE_VERBS = _set(
    "delete remove drop destroy purge erase overwrite wipe truncate kill terminate revoke uninstall clear"
)
"""Verbs of a tool that destroys something: a tool that leads with one is not ``destructiveHint: false``."""
READ_VERBS = _set(
    "get list search read fetch find query describe show view check count explain analyze analyse inspect "
    "retrieve lookup look download export lint validate preview compare summarize summarise"
)
"""Verbs of a tool that only reads; they tell a name's verb from a word that merely looks like one."""

GENERIC_NAMES = _set(
    "search query get list fetch run execute exec call read write create update delete find do process "
    "cleanup clean status info help test tool action invoke handle main default"
)
"""Names that say nothing of their object and collide across servers (the specification's example of a
collision is two servers each exposing ``search``)."""

UNIT_WORDS = _set(
    "timeout delay duration interval wait ttl age period latency sleep expiry expiration lifetime retention "
    "size width height distance radius memory bandwidth temperature price"
)
"""Name words of a numeric parameter that measures a quantity with a unit."""
COUNT_WORDS = _set("page batch chunk count num number items max min limit")
"""Name words that make a ``size`` a count (page_size, batch_size), which needs no unit."""
UNITS = _set(
    "ms millisecond milliseconds s sec secs second seconds minute minutes min mins hour hours h hr hrs day days "
    "week weeks month months year years us µs ns microseconds nanoseconds byte bytes b kb mb gb kib mib gib "
    "px pixel pixels pt pts point points em rem percent percentage pct m meter meters metre metres km "
    "kilometers kilometres mi mile miles ft feet cm mm inch inches celsius fahrenheit kelvin usd eur cents "
    "currency characters chars tokens lines rows items"
)
"""Units a description or a name can state."""

DATE_WORDS = _set("date time datetime timestamp since until deadline expires expiry birthday dob")
"""Name words of a string parameter that holds a date or a time."""
FORMAT_HINTS = _set("iso 8601 rfc 3339 rfc3339 yyyy mm dd hh unix epoch format e g example such like")
"""Words of a description that state (or show) a format."""

CHOICE_WORDS = _set(
    "order sort direction mode type kind status state level priority unit units method visibility role "
    "category severity scope strategy algorithm format"
)
"""Name words of a string parameter that picks one of a fixed set of values."""
