//! The gRPC binding (`lf.a2a.v1.A2AService`, spec §5.3): tonic's generated service over the
//! same operations as the HTTP bindings, on its own routes and listener.

mod deadline;
mod routes;
mod service;

pub(crate) use self::routes::router;
