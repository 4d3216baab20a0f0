//! Send keys (exactly-once SendMessage, see `TaskStore::claim_send`): the statements both
//! backends run alike. A claim frees the key of an expired task, offers the new claim, and
//! reads back the one kept when the offer lost.

use sqlx::{Database, Decode, Encode, Executor, IntoArguments, Type};

use crate::rows::ScopeKey;
use crate::shared::{Affected, Shared};

/// `$1…$3` scope, `$4` key, `$5` now: frees the key when the task it names expired.
const FREE_EXPIRED_KEY: &str = "DELETE FROM send_keys \
     WHERE tenant = $1 AND has_owner = $2 AND owner = $3 AND send_key = $4 \
     AND task_id IN (SELECT task_id FROM tasks WHERE expires_at <= $5)";

/// `$1…$3` scope, `$4` key, `$5` digest, `$6` task id, `$7` now: kept only when the key is
/// free.
const OFFER_KEY: &str = "INSERT INTO send_keys \
     (tenant, has_owner, owner, send_key, digest, task_id, created_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7) \
     ON CONFLICT (tenant, has_owner, owner, send_key) DO NOTHING";

/// `$1…$3` scope, `$4` key → the task id and digest of the claim kept.
const READ_KEY: &str = "SELECT task_id, digest FROM send_keys \
     WHERE tenant = $1 AND has_owner = $2 AND owner = $3 AND send_key = $4";

/// `$1…$3` scope, `$4` key, `$5` task id.
const RELEASE_KEY: &str = "DELETE FROM send_keys \
     WHERE tenant = $1 AND has_owner = $2 AND owner = $3 AND send_key = $4 AND task_id = $5";

/// A claim as the store was asked for it.
#[derive(Debug, Clone)]
pub(crate) struct SendClaim {
    pub(crate) scope: ScopeKey,
    pub(crate) key: String,
    pub(crate) digest: String,
    pub(crate) task_id: String,
    pub(crate) now: i64,
}

impl<DB> Shared<DB>
where
    DB: Database,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> bool: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'r> String: Decode<'r, DB> + Type<DB>,
    (String, String): for<'r> sqlx::FromRow<'r, DB::Row>,
    DB::QueryResult: Affected,
{
    /// Claims `claim.key`: `None` when this claim was kept, else the task id and digest of
    /// the one kept.
    pub(crate) async fn claim_send(
        conn: &mut DB::Connection,
        claim: &SendClaim,
    ) -> Result<Option<(String, String)>, sqlx::Error> {
        let scope = &claim.scope;
        sqlx::query(FREE_EXPIRED_KEY)
            .bind(scope.tenant.as_str())
            .bind(scope.has_owner)
            .bind(scope.owner.as_str())
            .bind(claim.key.as_str())
            .bind(claim.now)
            .execute(&mut *conn)
            .await?;
        let offered = sqlx::query(OFFER_KEY)
            .bind(scope.tenant.as_str())
            .bind(scope.has_owner)
            .bind(scope.owner.as_str())
            .bind(claim.key.as_str())
            .bind(claim.digest.as_str())
            .bind(claim.task_id.as_str())
            .bind(claim.now)
            .execute(&mut *conn)
            .await?;
        if offered.rows() > 0 {
            return Ok(None);
        }
        sqlx::query_as(READ_KEY)
            .bind(scope.tenant.as_str())
            .bind(scope.has_owner)
            .bind(scope.owner.as_str())
            .bind(claim.key.as_str())
            .fetch_optional(&mut *conn)
            .await
    }

    /// Forgets the claim of `key` in `scope` if it names `task_id`.
    pub(crate) async fn release_send(
        conn: &mut DB::Connection,
        scope: &ScopeKey,
        key: &str,
        task_id: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(RELEASE_KEY)
            .bind(scope.tenant.as_str())
            .bind(scope.has_owner)
            .bind(scope.owner.as_str())
            .bind(key)
            .bind(task_id)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }
}
