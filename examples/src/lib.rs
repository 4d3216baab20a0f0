//! Runnable examples of the a2a crates; each file under `examples/` says how to run it.
