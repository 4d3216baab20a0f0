//! ListTasks (spec §2.4).

use a2a_types::{A2aError, ListTasksRequest, ListTasksResponse, TaskState, Timestamp};

use super::page_token::{KEY_NAME, PageTokens};
use super::{CallContext, RequestHandler, history_length, tenant_of, trim_history};
use crate::store::{TaskQuery, TaskScope};

/// Page size when the request names none (or 0).
const DEFAULT_PAGE_SIZE: usize = 50;
/// Larger page sizes are capped to this rather than refused, as Apache Camel does.
const MAX_PAGE_SIZE: usize = 100;

impl RequestHandler {
    /// Lists the caller's tasks, newest status first.
    ///
    /// # Errors
    /// InvalidParams for a negative page size or history length, a timestamp in the future or
    /// before the epoch, or a page token not issued for this query and caller.
    pub async fn list_tasks(
        &self,
        call: &CallContext,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, A2aError> {
        let states = match request.status {
            TaskState::Unspecified => Vec::new(),
            state => vec![state],
        };
        self.list_tasks_in_states(call, request, states).await
    }

    /// [`RequestHandler::list_tasks`] with a filter of several states (the HTTP+JSON binding
    /// accepts `status=WORKING,COMPLETED`); `states` replaces `request.status`.
    ///
    /// # Errors
    /// As [`RequestHandler::list_tasks`].
    pub async fn list_tasks_in_states(
        &self,
        call: &CallContext,
        request: ListTasksRequest,
        states: Vec<TaskState>,
    ) -> Result<ListTasksResponse, A2aError> {
        let length = history_length(request.history_length)?;
        let page_size = match request.page_size {
            None | Some(0) => DEFAULT_PAGE_SIZE,
            Some(size) => usize::try_from(size)
                .map_err(|_| A2aError::invalid_field("pageSize", "must be between 1 and 100"))?
                .min(MAX_PAGE_SIZE),
        };
        if let Some(after) = &request.status_timestamp_after
            && (after.unix_millis() < 0 || after > &Timestamp::now())
        {
            return Err(A2aError::invalid_field(
                "statusTimestampAfter",
                "must not be before the epoch or in the future",
            ));
        }
        if states.contains(&TaskState::Unspecified) {
            return Err(A2aError::invalid_field(
                "status",
                "TASK_STATE_UNSPECIFIED is not a state",
            ));
        }
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let mut query = TaskQuery {
            context_id: request.context_id,
            states,
            status_timestamp_after: request.status_timestamp_after,
            page_size,
            after: None,
        };
        let page_tokens = self.page_tokens().await?;
        if !request.page_token.is_empty() {
            query.after = Some(page_tokens.decode(&request.page_token, &query, &scope)?);
        }
        let page = self.inner.engine.list(&scope, &query).await?;
        let include_artifacts = request.include_artifacts == Some(true);
        let mut readable = Vec::with_capacity(page.tasks.len());
        for task in page.tasks {
            if self.may_read(call, &task).await {
                readable.push(task);
            }
        }
        let tasks = readable
            .into_iter()
            .map(|task| {
                let mut task = trim_history(task, length);
                if !include_artifacts {
                    task.artifacts.clear();
                }
                task
            })
            .collect();
        let next_page_token = page
            .next
            .map(|cursor| page_tokens.encode(&cursor, &query, &scope))
            .unwrap_or_default();
        Ok(ListTasksResponse {
            tasks,
            next_page_token,
            page_size: i32::try_from(page_size).unwrap_or(i32::MAX),
            total_size: i32::try_from(page.total_size).unwrap_or(i32::MAX),
        })
    }
}

impl RequestHandler {
    /// The page-token signer, made once: with the configured key; else with the key the
    /// store shares among every instance over it (made once and kept, so a token from one
    /// instance pages on another and after a restart); else, for a store only this process
    /// sees, a random key of this process.
    ///
    /// # Errors
    /// InternalError when the store cannot give its key (tried again at the next call).
    pub(super) async fn page_tokens(&self) -> Result<&PageTokens, A2aError> {
        let engine = &self.inner.engine;
        self.inner
            .page_tokens
            .get_or_try_init(|| async {
                if let Some(key) = &engine.config().page_token_key {
                    return Ok(PageTokens::new(Some(key.clone())));
                }
                let shared = engine.shared_secret(KEY_NAME).await?;
                Ok(PageTokens::new(shared))
            })
            .await
    }
}
