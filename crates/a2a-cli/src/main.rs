//! The `a2a` command. Its subcommands arrive with the server, client and gateway crates.

fn main() {}
