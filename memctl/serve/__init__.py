"""``memctl serve``: the memory as an MCP server for coding agents, kept warm in one long-lived process.

Modules: :mod:`~memctl.serve.warm` (the long-lived state; lets go of the graph
store for ingest and sleep), :mod:`~memctl.serve.home_lock` (is the data home
locked, asked without taking the lock), :mod:`~memctl.serve.tools` (the tool
functions over ``ask``'s code), :mod:`~memctl.serve.server` (the MCP server),
:mod:`~memctl.serve.transport` (stdio, HTTP), :mod:`~memctl.serve.http_auth`
(the bearer token), :mod:`~memctl.serve.relay` (``memctl ask`` through a
running server), :mod:`~memctl.serve.opencode_config` (``memctl mcp install``).
"""
