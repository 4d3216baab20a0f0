//! [`Authenticator`]: the card's requirements paired with what checks each scheme, applied to
//! every request: requirements are alternatives (OR), the schemes of one requirement must all
//! pass (AND), each with its scopes.
//!
//! Everything a request does not change is prepared once, when the server is built: the
//! schemes in a list the requirements index, API-key header names parsed, and for each
//! static credential its digest and the caller profile it names, which every request holding
//! it then shares.

mod check;
mod prepare;
mod refusal;
mod rules;

pub(crate) use self::refusal::AuthFailure;
pub(crate) use self::rules::Authenticator;
