//! [`PushInbox`]: the inspector's own push-notification receiver.
//!
//! An agent running on this machine can deliver its push notifications to the inspector:
//! the inspector registers a push config whose URL is `{inspector}/webhook/{connection}` and
//! whose token it made for that connection ([`PushInbox::token_for`]). Each delivery is
//! checked the way `a2a webhook` checks one, with `a2a-client`'s push verification: the
//! token (`X-A2A-Notification-Token` or `A2A-Notification-Token`) against the one given to
//! the connection, and a signature (`A2A-Notification-Signature`, a detached JWS) against the
//! agent's JWK Set ([`PushInbox::set_jwks_url`]). Every delivery is kept (the last
//! `capacity`) and broadcast, accepted or not, so the page can show what arrived and why it
//! was refused.
//!
//! Answers: 200 for a good delivery; 401 when the token is wrong or missing (for a
//! connection that was given one) or a signature is present and does not verify; 400 for a
//! body that is not a JSON `StreamResponse`.
//!
//! ```
//! use a2a_inspect::push::PushInbox;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let inbox = PushInbox::new(100);
//! // The token goes in the push config registered for connection c1.
//! let token = inbox.token_for("c1");
//! assert_eq!(inbox.token_for("c1"), token);
//! inbox.set_jwks_url("c1", "http://127.0.0.1:8080/.well-known/jwks.json".to_owned());
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let webhook = format!("http://{}/webhook/c1", listener.local_addr()?);
//! let mut deliveries = inbox.subscribe();
//! tokio::spawn(axum::serve(listener, inbox.router()).into_future());
//! # let _ = (webhook, &mut deliveries);
//! # Ok(()) }
//! ```

mod body;
mod delivery;
mod inbox;

pub use self::delivery::{Checks, Delivery, SignatureCheck, TokenCheck};
pub use self::inbox::PushInbox;
