"""The server's assembly: an ``MCPServer`` (the SDK's ``FastMCP`` of mcp 1.x) named
deepcite, with its instructions and the tools of :mod:`deepcite.mcp_server.tools`."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from deepcite.mcp_server.tools import TOOLS

SERVER_NAME = "deepcite"

INSTRUCTIONS = (
    "deepcite researches questions and answers with citations you can check: every [n] "
    "in an answer points at the source numbered n in its Sources block. Use "
    "quick_research for a short cited answer, detailed_report for a sectioned report, "
    "search and search_collection for raw hits, list_collections to see the user's "
    "indexed documents, and get_report to reopen a stored run by its id.")


def build_server() -> MCPServer:
    """The deepcite MCP server with its nine tools (run it with ``.run(transport)``)."""
    server: MCPServer = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")
    for tool in TOOLS:
        server.add_tool(tool)
    return server
