"""deepcite as an MCP server: research, search and stored reports as tools for an assistant.

The package is ``mcp_server``, not ``mcp``: a ``deepcite.mcp`` beside the SDK's top-level
``mcp`` package would shadow nothing, but every import and traceback would read as if
one were the other.

Its modules, one job each:

- :mod:`~deepcite.mcp_server.server`: :func:`build_server`, the ``MCPServer`` with its
  name, instructions and tools;
- :mod:`~deepcite.mcp_server.tools`: the nine tools, one function each (``TOOLS``);
- :mod:`~deepcite.mcp_server.research_runs`: a research call's run - admitted, recorded,
  its events sent as progress notifications, cancelled when the client goes;
- :mod:`~deepcite.mcp_server.lookups`: the blocking reads of the other tools;
- :mod:`~deepcite.mcp_server.calls`: what every call shares - its caller, the settings
  read afresh, argument checks, the replies;
- :mod:`~deepcite.mcp_server.serving`: :func:`serve` over stdio or streamable HTTP, the
  HTTP app and its uvicorn settings;
- :mod:`~deepcite.mcp_server.auth`: who asks over HTTP (a personal token once user
  accounts exist), as a :class:`~deepcite.runs.caller.Caller`.

Who asks: over stdio, the local user, who sees everything. Over HTTP without user
accounts, the same. Once a user exists, every HTTP request needs a personal token, and
the tools answer for its owner: the runs they start belong to them, ``get_report``
finds only runs they may see (another user's is "No run", as a missing one) and
collections they may not read are unknown to them.

The names below are the package's interface (``deepcite mcp`` and the tests use them);
the modules are private to it. Importing it needs the MCP SDK (``deepcite[mcp]``).
"""

from deepcite.mcp_server.server import INSTRUCTIONS, SERVER_NAME, build_server
from deepcite.mcp_server.serving import (
    Transport,
    http_app,
    http_config,
    serve,
    transport_security_for,
)

__all__ = ["INSTRUCTIONS", "SERVER_NAME", "Transport", "build_server", "http_app",
           "http_config", "serve", "transport_security_for"]
