//! Push notifications (spec §2.7–§2.10, §10): where webhooks may point
//! ([`address`]), how deliveries prove who sent them ([`signing`]), and the id that names
//! each one ([`NOTIFICATION_ID_HEADER`]).

pub mod address;
pub(crate) mod delivery;
mod notification;
pub mod signing;

pub use notification::NOTIFICATION_ID_HEADER;
