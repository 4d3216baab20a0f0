//! Turn leases on PostgreSQL, and the signals this instance sends the others over the
//! schema's NOTIFY channel (the [`listener`](super::listener) hears theirs).

use a2a_server::cluster::ExpiredLease;
use a2a_server::store::StoreError;
use a2a_types::TaskId;

use super::{Postgres, Shared};
use crate::error::backend;
use crate::rows::{ExpiredRow, ScopeKey, expired_lease, millis_after, now_millis, to_i64};

impl Postgres {
    pub(crate) async fn acquire_lease(
        &self,
        scope: ScopeKey,
        task_id: &TaskId,
    ) -> Result<bool, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        Shared::acquire_lease(
            &mut conn,
            &scope,
            task_id.as_str(),
            &self.instance_id,
            self.lease_ttl,
        )
        .await
        .map_err(backend)
    }

    pub(crate) async fn renew_leases(&self, task_ids: &[TaskId]) -> Result<(), StoreError> {
        if task_ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = task_ids.iter().map(TaskId::as_str).collect();
        sqlx::query(
            "UPDATE tasks SET lease_expires_at = $1 \
             WHERE lease_holder = $2 AND task_id = ANY($3)",
        )
        .bind(millis_after(now_millis(), self.lease_ttl))
        .bind(&*self.instance_id)
        .bind(&ids)
        .execute(&self.pool)
        .await
        .map_err(backend)?;
        Ok(())
    }

    pub(crate) async fn release_lease(&self, task_id: &TaskId) -> Result<(), StoreError> {
        Shared::release_lease(&self.pool, task_id.as_str(), &self.instance_id)
            .await
            .map_err(backend)
    }

    pub(crate) async fn claim_expired_leases(
        &self,
        limit: usize,
    ) -> Result<Vec<ExpiredLease>, StoreError> {
        let now = now_millis();
        // SKIP LOCKED: two instances claiming at once split the expired leases between
        // them instead of waiting for each other, and none is claimed twice.
        let rows: Vec<ExpiredRow> = sqlx::query_as(
            "WITH expired AS (SELECT task_id, lease_holder FROM tasks \
             WHERE lease_expires_at <= $1 AND terminal_at IS NULL \
             ORDER BY lease_expires_at, task_id LIMIT $2 FOR UPDATE SKIP LOCKED) \
             UPDATE tasks AS task SET lease_holder = $3, lease_expires_at = $4 FROM expired \
             WHERE task.task_id = expired.task_id \
             RETURNING task.task_id, task.tenant, task.has_owner, task.owner, \
             expired.lease_holder",
        )
        .bind(now)
        .bind(to_i64(limit))
        .bind(&*self.instance_id)
        .bind(millis_after(now, self.lease_ttl))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        Ok(rows.into_iter().map(expired_lease).collect())
    }

    /// Sends `payload` to every instance listening on this schema's channel.
    pub(crate) async fn notify(&self, payload: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(&self.channel)
            .bind(payload)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(())
    }

    /// Sends each of `payloads`, in order, in one statement (one round trip, one
    /// transaction: the listeners hear them together once it commits).
    pub(crate) async fn notify_all(&self, payloads: &[String]) -> Result<(), StoreError> {
        match payloads {
            [] => Ok(()),
            [payload] => self.notify(payload).await,
            _ => {
                sqlx::query(
                    "SELECT pg_notify($1, payload) \
                     FROM UNNEST($2::text[]) WITH ORDINALITY AS signal(payload, at) ORDER BY at",
                )
                .bind(&self.channel)
                .bind(payloads)
                .execute(&self.pool)
                .await
                .map_err(backend)?;
                Ok(())
            }
        }
    }
}

/// The NOTIFY channel of a schema: instances over different schemas never hear each
/// other. Channel names are identifiers of at most 63 bytes; long schema names are
/// shortened and told apart by a hash of the whole name.
pub(super) fn channel_name(schema: Option<&str>) -> String {
    match schema {
        None => "a2a_signals".to_owned(),
        Some(schema) if schema.len() <= 59 => format!("a2a_{schema}"),
        Some(schema) => {
            // FNV-1a: stable across builds, unlike std's hasher.
            let hash = schema
                .bytes()
                .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                    (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
                });
            format!("a2a_{}_{hash:016x}", &schema[..42])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names_fit_and_stay_apart() {
        assert_eq!(channel_name(None), "a2a_signals");
        assert_eq!(channel_name(Some("agents")), "a2a_agents");
        let long_a = format!("{}a", "s".repeat(62));
        let long_b = format!("{}b", "s".repeat(62));
        assert!(channel_name(Some(&long_a)).len() <= 63);
        assert_ne!(channel_name(Some(&long_a)), channel_name(Some(&long_b)));
    }
}
