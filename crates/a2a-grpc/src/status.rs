//! Errors as gRPC statuses.
