//! A small MCP server for the tests (built out by the MCP tool source's work).

fn main() {}
