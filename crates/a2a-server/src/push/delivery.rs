//! The push dispatcher (spec §10.3): every logged status and artifact event of a task
//! goes to each of its webhooks as a `StreamResponse`, in order per webhook, webhooks in
//! parallel, with retries, and with the event log as the outbox.
//!
//! Nothing is queued in memory. A webhook's progress (the last sequence delivered, failed
//! attempts, when to try next) lives in the [`PushConfigStore`], and the events come from
//! the task's log, so pending deliveries survive a restart. A round claims webhooks with
//! events due ([`PushConfigStore::claim_deliveries`]): with several instances over one
//! database each webhook is worked by one instance at a time, so each event goes out once.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_types::{A2aError, PushConfigId, TaskId, TaskPushNotificationConfig};
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;

use super::address::{AddressError, Resolve, WebhookPolicy, check_webhook};
use super::notification::{NOTIFICATION_ID_HEADER, notification_id};
use super::signing::{PushSigner, SIGNATURE_HEADER};
use crate::config::PushOptions;
use crate::store::{
    ClaimedWebhook, DeliveryProgress, PushConfigStore, StoreError, TaskScope, TaskStore,
};

/// How many logged events one step reads.
const EVENTS_PER_READ: usize = 32;
/// How many webhooks one round claims at most.
const CLAIMS_PER_ROUND: usize = 256;
/// The least time between the end of a round that claimed nothing and the next round.
const IDLE_ROUND_GAP: Duration = Duration::from_millis(20);
/// The longest wait a webhook's `Retry-After` gets (the retry is stored, so this may be long).
const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);

/// Sends the events of tasks to their webhooks.
pub(crate) struct Dispatcher {
    configs: Arc<dyn PushConfigStore>,
    tasks: Arc<dyn TaskStore>,
    options: PushOptions,
    signer: Option<PushSigner>,
    resolver: Arc<dyn Resolve>,
    /// This instance's name in claims.
    instance: String,
    wake: Notify,
    in_flight: Arc<Semaphore>,
    /// The trace context each task's events were made in, for their deliveries.
    traces: crate::trace::TurnTraces,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher")
            .field("instance", &self.instance)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// What one POST came to.
#[derive(Debug)]
enum Outcome {
    /// 2xx.
    Delivered,
    /// 410: the receiver is gone for good; the config is removed.
    Gone,
    /// Not worth retrying: a 4xx other than 410, a URL that is no longer allowed, a body or
    /// header that cannot be sent.
    Refused(String),
    /// Worth retrying: 5xx, 408, 429, a timeout, an I/O error; not before the answer's
    /// `Retry-After`, when it gave one.
    Retry(String, Option<Duration>),
}

impl Outcome {
    fn retry(reason: impl Into<String>) -> Self {
        Self::Retry(reason.into(), None)
    }
}

impl Dispatcher {
    pub(crate) fn new(
        configs: Arc<dyn PushConfigStore>,
        tasks: Arc<dyn TaskStore>,
        options: PushOptions,
        signer: Option<PushSigner>,
        resolver: Arc<dyn Resolve>,
    ) -> Self {
        let in_flight = Arc::new(Semaphore::new(options.max_in_flight.max(1)));
        Self {
            configs,
            tasks,
            options,
            signer,
            resolver,
            instance: format!("push-{}", uuid::Uuid::new_v4()),
            wake: Notify::new(),
            in_flight,
            traces: crate::trace::TurnTraces::default(),
        }
    }

    /// The store of webhooks.
    /// Saves a checked config for `task_id`, events after `deliver_after` going to it.
    ///
    /// # Errors
    /// InvalidParams when the task holds as many configs as it may; InternalError when the
    /// store fails.
    pub(crate) async fn register(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config: &mut TaskPushNotificationConfig,
        deliver_after: u64,
    ) -> Result<(), A2aError> {
        config.task_id = Some(task_id.clone());
        config.tenant.clear();
        let limit = self.options.max_configs_per_task;
        match self
            .configs
            .save_push_config(scope, task_id, config, limit, deliver_after)
            .await
        {
            Ok(()) => Ok(()),
            Err(StoreError::Limit { what }) => Err(A2aError::invalid_params(what)),
            Err(error) => Err(crate::store::store_failure(error)),
        }
    }

    pub(crate) fn configs(&self) -> &Arc<dyn PushConfigStore> {
        &self.configs
    }

    /// Who may be a webhook.
    pub(crate) fn policy(&self) -> WebhookPolicy {
        WebhookPolicy {
            allow_local: self.options.allow_local_webhooks,
        }
    }

    /// The resolver webhook hosts are checked with.
    pub(crate) fn resolver(&self) -> &dyn Resolve {
        self.resolver.as_ref()
    }

    /// A save logged events up to `last_sequence`: tell the store, then start a round.
    pub(crate) async fn events_logged(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        last_sequence: u64,
    ) {
        // Called from the turn (or request) that made the events: their deliveries join its
        // trace.
        self.traces.remember(task_id);
        if let Err(error) = self
            .configs
            .events_logged(scope, task_id, last_sequence)
            .await
        {
            tracing::warn!(%error, task_id = %task_id, "could not note events for push delivery");
        }
        self.wake.notify_one();
    }

    /// Starts a round soon (another instance logged events).
    pub(crate) fn wake(&self) {
        self.wake.notify_one();
    }

    /// Runs rounds until `stop`: at once when woken, else every poll interval (retries
    /// whose time came, events another instance logged, claims that expired).
    pub(crate) async fn run(self: Arc<Self>, stop: CancellationToken) {
        loop {
            if self.round().await == 0 {
                // Every save wakes the dispatcher, most of them for tasks without webhooks:
                // after a round that found nothing, the wakes of the next moments make one
                // round, not one claim each.
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(IDLE_ROUND_GAP) => {}
                }
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.wake.notified() => {}
                () = tokio::time::sleep(self.options.poll_interval) => {}
            }
        }
    }

    /// Claims the webhooks with events due and works each in its own task; how many it
    /// claimed.
    async fn round(self: &Arc<Self>) -> usize {
        let now = now_ms();
        let claimed = match self
            .configs
            .claim_deliveries(
                &self.instance,
                now,
                now + millis(self.options.claim_ttl),
                CLAIMS_PER_ROUND,
            )
            .await
        {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "could not claim push deliveries");
                return 0;
            }
        };
        let count = claimed.len();
        for webhook in claimed {
            let Ok(permit) = Arc::clone(&self.in_flight).acquire_owned().await else {
                return count;
            };
            let dispatcher = Arc::clone(self);
            tokio::spawn(async move {
                dispatcher.work(webhook).await;
                drop(permit);
                // Its next events may already be logged.
                dispatcher.wake.notify_one();
            });
        }
        count
    }

    /// Sends a claimed webhook its due events, in order, until none is left, a retry has
    /// to wait, or the claim is lost.
    async fn work(&self, webhook: ClaimedWebhook) {
        let ClaimedWebhook {
            scope,
            task_id,
            config,
            mut delivered,
            mut attempts,
            ..
        } = webhook;
        let Some(config_id) = config.id.clone() else {
            return;
        };
        let record = |step| self.progress(&scope, &task_id, &config_id, step);
        // Whether the last event done with ended the task: then, once no event is left,
        // the webhook is settled and later claims skip it.
        let mut finished = false;
        loop {
            let events = match self
                .tasks
                .events(&scope, &task_id, delivered, EVENTS_PER_READ)
                .await
            {
                Ok(Some(events)) => events,
                Ok(None) => {
                    // The task is gone (expired): so are its deliveries.
                    let _ = self
                        .configs
                        .delete_push_config(&scope, &task_id, &config_id)
                        .await;
                    return;
                }
                Err(error) => {
                    tracing::warn!(%error, task_id = %task_id, "cannot read events to push");
                    let retry_at = now_ms() + millis(self.options.retry_backoff);
                    record(DeliveryProgress::new(delivered, attempts, retry_at, None)).await;
                    return;
                }
            };
            if events.is_empty() {
                let idle = if finished {
                    DeliveryProgress::settled(delivered)
                } else {
                    DeliveryProgress::new(delivered, 0, 0, None)
                };
                record(idle).await;
                return;
            }
            // A webhook registered over v0.3 gets the task, in the v0.3 shape, per event.
            let v03 = crate::binding::is_v03_push_url(&config.url);
            for event in events {
                let body = if v03 {
                    self.v03_body(&scope, &task_id).await
                } else {
                    serde_json::to_vec(&event.response).map_err(|error| {
                        Outcome::Refused(format!("cannot encode the event: {error}"))
                    })
                };
                let span = tracing::info_span!(
                    target: crate::trace::SPAN_TARGET,
                    "a2a.push",
                    otel.kind = "client",
                    task_id = %task_id,
                    config_id = %config_id,
                    sequence = event.sequence,
                );
                self.traces.adopt(&span, &task_id);
                let id = notification_id(&task_id, event.sequence);
                let outcome = match body {
                    Ok(body) => {
                        tracing::Instrument::instrument(self.post(&config, &id, body), span).await
                    }
                    Err(outcome) => outcome,
                };
                match outcome {
                    Outcome::Delivered => {
                        crate::metrics::push_delivery("delivered");
                        tracing::debug!(task_id = %task_id, config_id = %config_id, sequence = event.sequence, "push delivered");
                    }
                    Outcome::Gone => {
                        crate::metrics::push_delivery("gone");
                        tracing::info!(task_id = %task_id, config_id = %config_id, "webhook answered 410 Gone; its config is removed");
                        if let Err(error) = self
                            .configs
                            .delete_push_config(&scope, &task_id, &config_id)
                            .await
                        {
                            tracing::warn!(%error, "could not remove a gone webhook");
                        }
                        return;
                    }
                    Outcome::Refused(reason) => {
                        crate::metrics::push_delivery("refused");
                        tracing::warn!(task_id = %task_id, config_id = %config_id, sequence = event.sequence, reason, "push refused; not retried");
                    }
                    Outcome::Retry(reason, retry_after) => {
                        attempts += 1;
                        if attempts > self.options.retry_attempts {
                            crate::metrics::push_delivery("given_up");
                            tracing::warn!(task_id = %task_id, config_id = %config_id, sequence = event.sequence, reason, attempts, "push failed; giving up on this event");
                        } else {
                            crate::metrics::push_delivery("retry");
                            tracing::debug!(task_id = %task_id, config_id = %config_id, sequence = event.sequence, reason, attempts, "push failed; will retry");
                            let retry_at = now_ms() + self.retry_wait(attempts, retry_after);
                            // Released until the retry is due; whoever claims it then goes on.
                            record(DeliveryProgress::new(delivered, attempts, retry_at, None))
                                .await;
                            return;
                        }
                    }
                }
                // Delivered, refused or given up on: the event is done with, and the next
                // one starts with no failed attempts.
                delivered = event.sequence;
                attempts = 0;
                finished = event.response.is_terminal_status();
                let step = DeliveryProgress::new(delivered, 0, 0, Some(self.claim_until()));
                if !record(step).await {
                    return;
                }
            }
        }
    }

    /// The body of a v0.3 delivery: the task as it is now, `kind: "task"` (what v0.3
    /// webhooks receive for every update).
    async fn v03_body(&self, scope: &TaskScope, task_id: &TaskId) -> Result<Vec<u8>, Outcome> {
        match self.tasks.load(scope, task_id).await {
            Ok(Some(stored)) => crate::binding::v03_push_body(stored.task)
                .map_err(|error| Outcome::Refused(format!("cannot encode the task: {error}"))),
            Ok(None) => Err(Outcome::Refused("the task is gone".to_owned())),
            Err(error) => Err(Outcome::retry(format!("cannot read the task: {error}"))),
        }
    }

    /// Records progress; false when the claim was lost (or the config deleted): stop.
    async fn progress(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        config_id: &PushConfigId,
        progress: DeliveryProgress,
    ) -> bool {
        match self
            .configs
            .record_delivery(scope, task_id, config_id, &self.instance, progress)
            .await
        {
            Ok(held) => held,
            Err(error) => {
                tracing::warn!(%error, task_id = %task_id, "could not record push progress");
                false
            }
        }
    }

    fn claim_until(&self) -> u64 {
        now_ms() + millis(self.options.claim_ttl)
    }

    /// The wait in milliseconds before retry `attempt` (1-based): about
    /// `retry_backoff × 2^(attempt-1)` with jitter, so retries of many webhooks do not arrive
    /// together ([`a2a_retry::Backoff`]), or the webhook's `Retry-After` when longer, up to
    /// [`MAX_RETRY_AFTER`].
    fn retry_wait(&self, attempt: u32, retry_after: Option<Duration>) -> u64 {
        let base = self.options.retry_backoff;
        let schedule = a2a_retry::Backoff::new(base, base.saturating_mul(1 << 16))
            .retry_after_cap(MAX_RETRY_AFTER);
        let backoff = schedule.delay(attempt.saturating_sub(1));
        millis(schedule.wait(backoff, retry_after))
    }

    /// One POST of `response` to `config`'s webhook, its address checked again first so a
    /// name that now resolves somewhere forbidden is refused (DNS may have changed since
    /// registration).
    async fn post(&self, config: &TaskPushNotificationConfig, id: &str, body: Vec<u8>) -> Outcome {
        let checked = match check_webhook(&config.url, &self.policy(), self.resolver.as_ref()).await
        {
            Ok(checked) => checked,
            // DNS may be down for a while, or the name not published yet: like a connection
            // failure, worth another attempt (it was accepted at registration for the same
            // reason).
            Err(error @ AddressError::Unresolvable { .. }) => {
                return Outcome::retry(error.to_string());
            }
            Err(error) => return Outcome::Refused(error.to_string()),
        };
        let base = reqwest::Client::builder()
            .timeout(self.options.timeout)
            .connect_timeout(self.options.timeout);
        let client = match checked.pinned_client(base) {
            Ok(client) => client,
            Err(error) => return Outcome::retry(format!("cannot build the HTTP client: {error}")),
        };
        let mut request = client
            .post(checked.url().clone())
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(NOTIFICATION_ID_HEADER, id);
        // A v0.3 webhook gets a v0.3 body, which no 1.0 version header may claim to be
        // (v0.3 has no version header).
        if !crate::binding::is_v03_push_url(&config.url) {
            request = request.header("A2A-Version", a2a_types::PROTOCOL_VERSION);
        }
        match delivery_headers(config) {
            Ok(headers) => request = request.headers(headers),
            Err(reason) => return Outcome::Refused(reason),
        }
        let mut trace = http::HeaderMap::new();
        crate::trace::inject(&tracing::Span::current(), &mut trace);
        request = request.headers(trace);
        if let Some(signer) = &self.signer {
            match signer.sign(&body) {
                Ok(signature) => request = request.header(SIGNATURE_HEADER, signature),
                Err(error) => return Outcome::retry(format!("cannot sign: {error}")),
            }
        }
        match request.body(body).send().await {
            Ok(answer) => {
                let status = answer.status();
                if status.is_success() {
                    Outcome::Delivered
                } else if status == http::StatusCode::GONE {
                    Outcome::Gone
                } else if status.is_server_error()
                    || status == http::StatusCode::REQUEST_TIMEOUT
                    || status == http::StatusCode::TOO_MANY_REQUESTS
                {
                    Outcome::Retry(
                        format!("the webhook answered {}", status.as_u16()),
                        a2a_retry::retry_after(answer.headers()),
                    )
                } else {
                    Outcome::Refused(format!("the webhook answered {}", status.as_u16()))
                }
            }
            Err(error) if error.is_timeout() => Outcome::retry("timed out".to_owned()),
            Err(error) if error.is_connect() => Outcome::retry("cannot connect".to_owned()),
            Err(_) => Outcome::retry("the request failed".to_owned()),
        }
    }
}

/// The headers a config asks for: `Authorization: <scheme> <credentials>` and the
/// token in both `X-A2A-Notification-Token` and `A2A-Notification-Token`. A value with CR
/// or LF (or anything a header cannot hold) is refused, so nothing is delivered.
pub(crate) fn delivery_headers(
    config: &TaskPushNotificationConfig,
) -> Result<http::HeaderMap, String> {
    let mut headers = http::HeaderMap::new();
    let value = |text: &str, what: &str| {
        if text.contains(['\r', '\n']) {
            return Err(format!("the {what} contains a line break"));
        }
        http::HeaderValue::from_str(text)
            .map_err(|_| format!("the {what} is not a valid header value"))
    };
    if let Some(authentication) = &config.authentication {
        let credentials = authentication.credentials.as_deref().unwrap_or_default();
        let text = if credentials.is_empty() {
            authentication.scheme.clone()
        } else {
            format!("{} {credentials}", authentication.scheme)
        };
        if authentication.scheme.trim().is_empty() || authentication.scheme.contains(' ') {
            return Err("the authentication scheme must be one word".to_owned());
        }
        let mut authorization = value(&text, "authentication")?;
        authorization.set_sensitive(true);
        headers.insert(http::header::AUTHORIZATION, authorization);
    }
    if let Some(token) = &config.token {
        let mut token = value(token, "token")?;
        token.set_sensitive(true);
        headers.insert("x-a2a-notification-token", token.clone());
        headers.insert("a2a-notification-token", token);
    }
    Ok(headers)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::AuthenticationInfo;

    #[test]
    fn delivery_headers_follow_d17_and_refuse_line_breaks() {
        let mut config = TaskPushNotificationConfig::new("https://hooks.example.com/a");
        config.token = Some("tok".into());
        config.authentication = Some(AuthenticationInfo {
            scheme: "Bearer".into(),
            credentials: Some("abc".into()),
        });
        let headers = delivery_headers(&config).unwrap();
        assert_eq!(headers["authorization"], "Bearer abc");
        assert_eq!(headers["x-a2a-notification-token"], "tok");
        assert_eq!(headers["a2a-notification-token"], "tok");

        config.token = Some("tok\r\nX-Evil: 1".into());
        assert!(
            delivery_headers(&config)
                .unwrap_err()
                .contains("line break")
        );
        config.token = None;
        if let Some(authentication) = config.authentication.as_mut() {
            authentication.credentials = Some("abc\nX: 1".into());
        }
        assert!(delivery_headers(&config).is_err());
    }
}
