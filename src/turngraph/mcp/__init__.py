"""A turngraph memory as MCP tools. Importing this package imports nothing of the MCP SDK;
``turngraph.mcp.server`` does (``import mcp`` there is the SDK: imports are absolute)."""
