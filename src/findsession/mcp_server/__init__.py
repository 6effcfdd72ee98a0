"""`findsession serve`: the search and reader as MCP tools, for agents, over stdio.

The tools (`tools`, `session_tools`) answer with the same JSON objects as the CLI's
`--json` (docs/json.md), from the project the server was started in and nothing past
it (the core API holds that boundary), without the agent's own session
(`Findsession.own_session`), within an evidence budget per connection (`budget`), each
answer recorded in the audit before it is given.

One MCP server is one agent's session. When a resident service runs for the index (or
can be started again, where `service start` was said), the session runs inside it, on
its warm index and model: `findsession serve` is then only a relay between the agent's
stdio and the service's socket (`relay`, `hosted`), a small process that imports neither
the MCP SDK nor the index. Otherwise the server runs in its own process (`local`), with
the file watcher of `findsession.freshness` keeping the index fresh. The server only
ever reads transcripts.

Nothing is imported here: the relay must stay small.
"""
