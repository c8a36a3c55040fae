"""Small, real MCP servers used by the tests to reproduce misbehaviour no public server shows."""
