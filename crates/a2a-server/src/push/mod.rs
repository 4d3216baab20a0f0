//! Push notifications (spec §2.7–§2.10, §10): where webhooks may point
//! ([`address`]) and how deliveries prove who sent them ([`signing`]).

pub mod address;
pub(crate) mod delivery;
pub mod signing;
