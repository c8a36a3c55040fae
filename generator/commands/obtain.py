"""Where a command's snapshot comes from: a file, the configured server, or the bundled demo.

Kept apart from :mod:`generator.commands.build` so that ``introspect`` and ``translations``
import no renderer, and ``build --from`` imports no MCP SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.commands.demo_portal import demo_config, demo_endpoints, is_bundled_demo
from generator.config.portal import PortalConfig, ServerSpec
from generator.snapshot.remembered import ToolMemory
from generator.snapshot.snapshot import Snapshot, frozen, load_snapshot


def obtain_snapshot(
    config: PortalConfig,
    from_file: Path | None,
    *,
    lenient: bool = False,
    memory: ToolMemory | None = None,
    introspect_warnings: list[str] | None = None,
    prove: bool | None = None,
) -> tuple[Snapshot, PortalConfig]:
    """The snapshot to build from: a file, the configured server, or the bundled demo.

    *lenient* (``--lenient``) skips invalid tools and repeated names with a warning instead of
    failing; introspection's warnings are appended to *introspect_warnings* when given.  A
    snapshot file needs neither, and never imports the MCP SDK. *memory*: see
    :func:`~generator.snapshot.snapshot.load_snapshot`.

    With *prove* (by default ``prove`` of *config*, and always for the bundled demo, whose read-only
    tools are ours and answer from fixed data), the examples are then sent to the server and its
    answers recorded (:func:`generator.commands.prove.prove`); its warnings join *introspect_warnings*.
    """
    if from_file is not None:
        snapshot = load_snapshot(from_file, memory, max_bytes=config.limits.max_snapshot_bytes)
        if not config.connections and is_bundled_demo(snapshot):
            # A snapshot of the bundled demo renders as the live demo build does.
            config = demo_config(config)
        return snapshot, config
    # Imported here: the SDK takes a second to import, and offline builds never need it.
    from generator.connect.introspect import introspect_all

    proving = config.prove or not config.connections if prove is None else prove
    if config.prove_tools and not (config.prove or proving) and introspect_warnings is not None:
        introspect_warnings.append("prove_tools has no effect without prove: add `prove: true` (or --prove)")
    with servers_to_document(config) as (specs, config):
        found = introspect_all(
            specs, config.limits, config.capability_version, lenient=lenient, warnings=introspect_warnings
        )
        if proving:
            from generator.commands.prove import prove as prove_examples

            found_warnings = introspect_warnings if introspect_warnings is not None else []
            return prove_examples(frozen(found), config, specs, found_warnings), config
        return frozen(found), config


@contextmanager
def servers_to_document(config: PortalConfig) -> Iterator[tuple[tuple[ServerSpec, ...], PortalConfig]]:
    """The endpoints to connect to, with the configuration to build with: the configured ones, or with
    no server given the bundled demo's three endpoints, as a product portal would have them (its HTTP
    server runs until the block ends)."""
    if config.connections:
        yield config.connections, config
        return
    from generator.demo.launch import running_http_demo

    with running_http_demo() as base:
        yield demo_endpoints(base), demo_config(config)
