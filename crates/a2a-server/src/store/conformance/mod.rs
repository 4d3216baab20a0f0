//! The task store conformance suite: the behaviour every [`TaskStore`] must show,
//! as checks that each backend runs from its own tests.
//!
//! [`run`] runs every check of a [`TaskStore`] (compare-and-swap, scopes, list order and
//! paging, the event log, send keys), each on a fresh store; [`run_expiry`] checks the expiry of
//! terminal tasks on stores built with a short TTL, in real time; [`run_push`]
//! checks a [`PushConfigStore`], and [`run_delivery`] its delivery state beside a
//! [`TaskStore`]: claims, progress and their exclusivity across instances. Each
//! check is also a function of its own, so a backend can run one in isolation while it is
//! being fixed. A failing check panics with a message that names it.
//!
//! ```
//! use std::time::Duration;
//! use a2a_server::store::{
//!     InMemoryPushConfigStore, InMemoryTaskStore, InMemoryTaskStoreConfig, conformance,
//! };
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // In a backend's tests, under `#[tokio::test]`:
//! conformance::run(|| async { InMemoryTaskStore::new() }).await;
//! conformance::run_expiry(|ttl: Duration| async move {
//!     InMemoryTaskStore::with_config(InMemoryTaskStoreConfig {
//!         completed_task_ttl: ttl,
//!         ..InMemoryTaskStoreConfig::default()
//!     })
//! })
//! .await;
//! conformance::run_push(|| async { InMemoryPushConfigStore::new() }).await;
//! conformance::run_delivery(|| async {
//!     (InMemoryTaskStore::new(), InMemoryPushConfigStore::new())
//! })
//! .await;
//! # }
//! ```
//!
//! [`TaskStore`]: super::TaskStore
//! [`PushConfigStore`]: super::PushConfigStore

mod appends;
mod check;
mod claim_race;
mod deliveries;
mod delivery;
mod events;
mod expiry;
mod fixtures;
mod list;
mod push_configs;
mod sends;
mod tasks;

#[cfg(test)]
mod tests;

pub use self::appends::{
    a_refused_append_stores_and_logs_nothing, appended_chunks_are_in_the_task_that_is_read,
};
pub use self::check::{RACERS, ROUNDS};
pub use self::claim_race::{CLAIMERS, concurrent_claims_never_hand_one_webhook_to_two_instances};
pub use self::delivery::{
    a_claimed_webhook_is_not_claimed_again_until_its_claim_passes,
    a_future_next_attempt_defers_the_claim,
    a_new_config_is_claimed_once_its_task_logs_past_deliver_after,
    a_settled_webhook_is_never_claimed_again, claims_honour_the_limit,
    deleting_a_config_stops_its_deliveries, only_the_claim_holder_records_progress,
    released_progress_is_what_the_next_claim_sees, replacing_a_config_keeps_its_progress_and_claim,
    run_delivery,
};
pub use self::events::{
    a_refused_save_appends_no_event, events_after_a_sequence_returns_the_tail_in_order,
    events_of_a_task_of_another_scope_or_none_is_none, saves_append_events_numbered_on_from_one,
};
pub use self::expiry::{
    EXPIRY_TTL, a_zero_ttl_keeps_terminal_tasks, run_expiry,
    saving_a_terminal_task_again_does_not_extend_its_life,
    terminal_tasks_vanish_after_the_ttl_and_others_stay,
    the_ttl_runs_from_the_save_that_made_the_task_terminal,
};
pub use self::list::{
    an_empty_store_lists_an_empty_page, list_filters_by_context_id,
    list_filters_by_one_or_several_states, list_never_returns_tasks_of_other_scopes,
    list_orders_by_status_timestamp_then_task_id_descending,
    list_status_timestamp_after_is_inclusive, paging_visits_every_matching_task_exactly_once,
    the_last_page_has_no_next_cursor,
};
pub use self::push_configs::{
    a_task_holds_at_most_the_limit_and_replacing_does_not_count,
    push_configs_are_created_read_replaced_and_deleted,
    push_configs_are_invisible_to_other_scopes_and_tasks, push_configs_are_listed_by_id, run_push,
};
pub use self::sends::{
    a_claimed_send_key_answers_later_claims_with_the_first_send,
    a_released_send_key_can_be_claimed_again, a_send_key_goes_with_its_task,
    concurrent_claims_of_one_send_key_have_exactly_one_winner, send_keys_are_claimed_per_scope,
};
pub use self::tasks::{
    a_full_task_survives_a_round_trip_unchanged,
    concurrent_creates_of_one_task_have_exactly_one_winner,
    concurrent_saves_on_one_version_have_exactly_one_winner,
    create_then_load_returns_the_task_and_its_version,
    creating_a_task_id_used_in_another_scope_conflicts,
    creating_an_existing_task_conflicts_and_stores_nothing,
    load_under_another_tenant_or_owner_returns_none, run,
    saving_a_task_of_another_scope_is_not_found, saving_a_task_that_was_never_stored_is_not_found,
    saving_with_a_stale_version_conflicts_and_stores_nothing,
    saving_with_the_current_version_returns_a_greater_version,
};
