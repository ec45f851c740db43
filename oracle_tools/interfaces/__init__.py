"""Interfaces: the ``oracle-tools`` CLI (``cli``, its commands by job in ``cli_*``), the Scryfall-compatible HTTP
server and web page (``serve``),
the MCP server (``mcp_server``) and plain-text tables (``render``).

The top layer: each door asks ``oracle_tools.OracleDB`` (and may read the types and limits of the layers below);
nothing imports it.
"""
