//! The SQL of `TaskStore::list`, shared by both backends: the filters of a [`TaskQuery`] as
//! a `WHERE` clause with numbered parameters, in the list order of the in-memory store
//! (status timestamp in milliseconds descending, then task id descending).

use std::fmt::Write as _;

use a2a_server::store::{TaskCursor, TaskPage, TaskQuery};
use a2a_types::TaskId;

use crate::rows::{ScopeKey, instant_key, to_i64};

/// A value bound to a numbered parameter.
#[derive(Debug, Clone)]
pub(crate) enum Param {
    Text(String),
    Int(i64),
    Bool(bool),
}

/// The two statements of one `list` call and their parameters.
#[derive(Debug)]
pub(crate) struct ListSql {
    /// `SELECT COUNT(*)` of every matching task (the cursor aside).
    pub(crate) count: String,
    /// `SELECT body, sort_millis, task_id` of the page, one row more than the page size to
    /// tell whether another page follows.
    pub(crate) page: String,
    /// The parameters of `count`: `$1…$n`.
    pub(crate) count_params: Vec<Param>,
    /// The parameters of `page`: those of `count`, then the cursor's, then the limit.
    pub(crate) page_params: Vec<Param>,
    pub(crate) page_size: usize,
}

impl ListSql {
    pub(crate) fn new(scope: &ScopeKey, query: &TaskQuery, now: i64) -> Self {
        let mut params = vec![
            Param::Text(scope.tenant.clone()),
            Param::Bool(scope.has_owner),
            Param::Text(scope.owner.clone()),
            Param::Int(now),
        ];
        let mut filter = String::from(
            "tenant = $1 AND has_owner = $2 AND owner = $3 \
             AND (expires_at IS NULL OR expires_at > $4)",
        );
        if let Some(context_id) = &query.context_id {
            params.push(Param::Text(context_id.as_str().to_owned()));
            let _ = write!(filter, " AND context_id = ${}", params.len());
        }
        if !query.states.is_empty() {
            filter.push_str(" AND state IN (");
            for (index, state) in query.states.iter().enumerate() {
                params.push(Param::Text(state.as_str().to_owned()));
                let separator = if index == 0 { "" } else { ", " };
                let _ = write!(filter, "{separator}${}", params.len());
            }
            filter.push(')');
        }
        if let Some(after) = &query.status_timestamp_after {
            let (millis, nanos) = instant_key(after);
            params.push(Param::Int(millis));
            let millis_at = params.len();
            params.push(Param::Int(nanos));
            let nanos_at = params.len();
            let _ = write!(
                filter,
                " AND sub_millis_nanos IS NOT NULL AND (sort_millis > ${millis_at} \
                 OR (sort_millis = ${millis_at} AND sub_millis_nanos >= ${nanos_at}))"
            );
        }
        let count = format!("SELECT COUNT(*) FROM tasks WHERE {filter}");
        let count_params = params.clone();

        if let Some(cursor) = &query.after {
            params.push(Param::Int(cursor.timestamp_millis));
            let millis_at = params.len();
            params.push(Param::Text(cursor.task_id.as_str().to_owned()));
            let id_at = params.len();
            let _ = write!(
                filter,
                " AND (sort_millis < ${millis_at} \
                 OR (sort_millis = ${millis_at} AND task_id < ${id_at}))"
            );
        }
        // The handler never sends 0 (TaskQuery says at least 1); treating it as 1 keeps
        // paging moving, as the in-memory store does.
        let page_size = query.page_size.max(1);
        params.push(Param::Int(to_i64(page_size).saturating_add(1)));
        let page = format!(
            "SELECT body, sort_millis, task_id FROM tasks WHERE {filter} \
             ORDER BY sort_millis DESC, task_id DESC LIMIT ${}",
            params.len()
        );
        Self {
            count,
            page,
            count_params,
            page_params: params,
            page_size,
        }
    }

    /// The page from the rows of `page` (body, sort key, id) and the count.
    pub(crate) fn into_page(
        self,
        total: i64,
        mut rows: Vec<(String, i64, String)>,
    ) -> Result<TaskPage, a2a_server::store::StoreError> {
        let more = rows.len() > self.page_size;
        rows.truncate(self.page_size);
        let next = if more {
            rows.last().map(|(_, millis, id)| TaskCursor {
                timestamp_millis: *millis,
                task_id: TaskId::new(id.clone()),
            })
        } else {
            None
        };
        let tasks = rows
            .iter()
            .map(|(body, _, _)| crate::rows::decode_task(body))
            .collect::<Result<_, _>>()?;
        Ok(TaskPage {
            tasks,
            total_size: usize::try_from(total).unwrap_or(0),
            next,
        })
    }
}
