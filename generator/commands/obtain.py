"""Where a command's snapshot comes from: a file, the configured server, or the bundled demo.

Kept apart from :mod:`generator.commands.build` so that ``introspect`` and ``translations``
import no renderer, and ``build --from`` imports no MCP SDK.
"""

from __future__ import annotations

from pathlib import Path

from generator.commands.demo_portal import demo_config, demo_endpoints, is_bundled_demo
from generator.config.portal import PortalConfig
from generator.snapshot.remembered import ToolMemory
from generator.snapshot.snapshot import Snapshot, frozen, load_snapshot


def obtain_snapshot(
    config: PortalConfig,
    from_file: Path | None,
    *,
    lenient: bool = False,
    memory: ToolMemory | None = None,
    introspect_warnings: list[str] | None = None,
) -> tuple[Snapshot, PortalConfig]:
    """The snapshot to build from: a file, the configured server, or the bundled demo.

    *lenient* (``--lenient``) skips invalid tools and repeated names with a warning instead of
    failing; introspection's warnings are appended to *introspect_warnings* when given.  A
    snapshot file needs neither, and never imports the MCP SDK. *memory*: see
    :func:`~generator.snapshot.snapshot.load_snapshot`.
    """
    if from_file is not None:
        snapshot = load_snapshot(from_file, memory)
        if not config.connections and is_bundled_demo(snapshot):
            # A snapshot of the bundled demo renders as the live demo build does.
            config = demo_config(config)
        return snapshot, config
    # Imported here: the SDK takes a second to import, and offline builds never need it.
    from generator.connect.introspect import introspect_all

    if not config.connections:
        # No server given: document the bundled demo's three endpoints, as a product portal would.
        from generator.demo.launch import running_http_demo

        demo = demo_config(config)
        with running_http_demo() as base:
            specs = demo_endpoints(base)
            found = introspect_all(
                specs, demo.limits, demo.capability_version, lenient=lenient, warnings=introspect_warnings
            )
            return frozen(found), demo
    found = introspect_all(
        config.connections, config.limits, config.capability_version, lenient=lenient, warnings=introspect_warnings
    )
    return frozen(found), config
