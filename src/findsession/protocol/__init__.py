"""How an interface reaches the resident service: where its socket is (`place`), who is
at the other end (`peer`), the framing and the identity both sides compare (`wire`),
and asking it (`client`).

Below the interfaces: the CLI, the MCP server and the page are each the service's
client, and none of them may import another interface.
"""
