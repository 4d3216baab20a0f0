//! The gRPC binding over real sockets: every operation, both streams, errors with their
//! `ErrorInfo`, authentication, deadlines, limits, TLS and mutual TLS.

mod errors;
mod operations;
mod security;
mod streams;
mod support;
