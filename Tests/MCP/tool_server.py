"""A small MCP server for the tests of Parley's MCP client, written with the official `mcp` package (MCPServer).

Usage: python tool_server.py stdio          serves MCP on standard input and output
       python tool_server.py http [TOKEN]   serves streamable HTTP on a free loopback port at /mcp, prints "port N"
                                            once it listens; with TOKEN, refuses requests without
                                            "Authorization: Bearer TOKEN"

Tools: add(a, b), lookup(key) (a fixed record), sleep(seconds), fail() (raises), big() (1 MB of text), pid() (the
process id, for the tests that kill it), and add_tool(name), which registers a tool `name` that echoes its text and tells the client the list changed.

When MCP_CANCEL_LOG names a file, a `sleep` the client cancels appends "cancelled" to it (and "started" when it
starts), so a test can read that the server saw `notifications/cancelled`.
"""

import os
import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from starlette.responses import PlainTextResponse

RECORDS = {"ada": {"name": "Ada Lovelace", "born": 1815, "field": "mathematics"}}

server = MCPServer("parley-test-tools", log_level="WARNING")


def note(event: str) -> None:
    path = os.environ.get("MCP_CANCEL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(event + "\n")


@server.tool()
def add(a: float, b: float) -> str:
    """Adds two numbers."""
    total = a + b
    return str(int(total)) if total == int(total) else str(total)


@server.tool()
def lookup(key: str) -> str:
    """Looks up a fixed record by its key (try "ada")."""
    record = RECORDS.get(key)
    if record is None:
        raise ValueError(f"no record {key!r}")
    return f"{record['name']}, born {record['born']}, {record['field']}"


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleeps for the given number of seconds, then says so."""
    note("started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        note("cancelled")
        raise
    return f"slept {seconds} s"


@server.tool()
def fail() -> str:
    """Always fails."""
    raise ToolError("the tool failed on purpose")


@server.tool()
def big() -> str:
    """Returns 1 MB of text."""
    return ("0123456789abcdef" * 64 + "\n")[:1024] * 1024


@server.tool()
def pid() -> str:
    """Says the server's process id (for the tests that kill it)."""
    return str(os.getpid())


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Registers a tool `name` that echoes its text, and tells the client the tool list changed."""

    def echo(text: str) -> str:
        return text

    server.add_tool(echo, name=name, description=f"Echoes its text (added as {name}).")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


def serve_http(token: str | None) -> None:
    app = server.streamable_http_app()
    if token:
        inner = app

        async def guarded(scope, receive, send):
            headers = dict(scope.get("headers") or [])
            if scope["type"] == "http" and headers.get(b"authorization") != f"Bearer {token}".encode():
                await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
                return
            await inner(scope, receive, send)

        app = guarded
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"port {listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "http":
        serve_http(sys.argv[2] if len(sys.argv) > 2 else None)
    else:
        server.run("stdio")
