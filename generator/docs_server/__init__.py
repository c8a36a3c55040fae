"""``mcp-portal mcp SITE``: an MCP server over a built portal, for agents that read documentation through MCP.

It consumes a site that ``build`` wrote (a folder, or the base URL of a published copy) the way a reader
does: it reads the Markdown twins, ``snapshot.json`` and ``manifest.json`` and never imports a build stage.
:mod:`.source` reads files confined to the site, :mod:`.twins` takes a twin apart, :mod:`.index` is the
search index, :mod:`.portal` is one built site, :mod:`.versions` the release history, :mod:`.tools` the
tools agents call, and :mod:`.server` the SDK server that answers them over stdio or Streamable HTTP.
"""
