//! End-to-end tests of the a2a crates: real clients and servers on `127.0.0.1:0`.
//! The tests arrive with the server and client crates.
