//! The push options of `a2a serve`, checked: whether push notifications are delivered, and
//! how (retries with backoff, timeout, local webhook URLs refused unless allowed, signing key).

use std::path::PathBuf;

use a2a_server::config::PushOptions;

use super::ConfigError;
use super::options::ServeOptions;

/// Push notifications as configured; `None` in [`super::Settings::push`] when off.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PushSetting {
    /// Delivery options for the server.
    pub(crate) options: PushOptions,
    /// The signing key file, when given; else a key is made at start.
    pub(crate) signing_key: Option<PathBuf>,
}

/// The checked push options.
pub(crate) fn push(options: &ServeOptions) -> Result<Option<PushSetting>, ConfigError> {
    if options.push_notifications != Some(true) {
        let stray = [
            (
                options.allow_local_webhooks.is_some(),
                "allow-local-webhooks",
            ),
            (options.push_retry_attempts.is_some(), "push-retry-attempts"),
            (options.push_retry_backoff.is_some(), "push-retry-backoff"),
            (options.push_timeout.is_some(), "push-timeout"),
            (options.push_claim_ttl.is_some(), "push-claim-ttl"),
            (
                options.max_push_configs_per_task.is_some(),
                "max-push-configs-per-task",
            ),
            (options.push_signing_key.is_some(), "push-signing-key"),
        ];
        if let Some((_, option)) = stray.iter().find(|(given, _)| *given) {
            return Err(ConfigError::Invalid {
                option,
                message: "applies only with --push-notifications".to_owned(),
            });
        }
        return Ok(None);
    }
    let mut push = PushOptions::default();
    push.allow_local_webhooks = options.allow_local_webhooks == Some(true);
    if let Some(attempts) = options.push_retry_attempts {
        push.retry_attempts = attempts;
    }
    if let Some(backoff) = options.push_retry_backoff {
        push.retry_backoff = positive("push-retry-backoff", backoff.0)?;
    }
    if let Some(timeout) = options.push_timeout {
        push.timeout = positive("push-timeout", timeout.0)?;
    }
    if let Some(ttl) = options.push_claim_ttl {
        push.claim_ttl = ttl.0;
    }
    if let Some(max) = options.max_push_configs_per_task {
        if max == 0 {
            return Err(ConfigError::Invalid {
                option: "max-push-configs-per-task",
                message: "must be more than 0".to_owned(),
            });
        }
        push.max_configs_per_task = max;
    }
    // A hold that ran out while an attempt is still waiting for its answer would let a
    // second instance send the same event.
    if push.claim_ttl <= push.timeout {
        return Err(ConfigError::Invalid {
            option: "push-claim-ttl",
            message: format!(
                "must be longer than the delivery time limit ({} ms)",
                push.timeout.as_millis()
            ),
        });
    }
    Ok(Some(PushSetting {
        options: push,
        signing_key: options.push_signing_key.clone(),
    }))
}

fn positive(
    option: &'static str,
    duration: std::time::Duration,
) -> Result<std::time::Duration, ConfigError> {
    if duration.is_zero() {
        Err(ConfigError::Invalid {
            option,
            message: "must be more than 0".to_owned(),
        })
    } else {
        Ok(duration)
    }
}
