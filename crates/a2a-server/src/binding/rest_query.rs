//! Query parameters of the HTTP+JSON GET routes (spec §5.2): camelCase names (snake_case
//! accepted, as ProtoJSON parsers do), decimal integers, `true`/`false`, RFC 3339
//! timestamps, and task states by proto or short name, repeated or comma-separated.

use a2a_types::{A2aError, ContextId, ListTasksRequest, TaskState, Timestamp};

/// The decoded query string of one request.
#[derive(Debug, Clone, Copy)]
pub(super) struct Query<'a> {
    pairs: &'a [(String, String)],
}

impl<'a> Query<'a> {
    pub(super) fn new(pairs: &'a [(String, String)]) -> Self {
        Self { pairs }
    }

    /// The non-empty values given for a parameter, under its camelCase or snake_case name.
    fn values(self, camel: &'static str, snake: &'static str) -> impl Iterator<Item = &'a str> {
        self.pairs
            .iter()
            .filter(move |(name, _)| name == camel || name == snake)
            .map(|(_, value)| value.as_str())
            .filter(|value| !value.is_empty())
    }

    /// A parameter that may be given once; an empty value counts as absent.
    ///
    /// # Errors
    /// InvalidParams when it is given twice.
    pub(super) fn single(
        self,
        camel: &'static str,
        snake: &'static str,
    ) -> Result<Option<&'a str>, A2aError> {
        let mut values = self.values(camel, snake);
        let first = values.next();
        if values.next().is_some() {
            return Err(A2aError::invalid_field(camel, "must be given at most once"));
        }
        Ok(first)
    }

    /// An `int32` parameter.
    ///
    /// # Errors
    /// InvalidParams naming the parameter.
    pub(super) fn int32(
        self,
        camel: &'static str,
        snake: &'static str,
    ) -> Result<Option<i32>, A2aError> {
        self.single(camel, snake)?
            .map(|value| {
                value.trim().parse::<i32>().map_err(|_| {
                    A2aError::invalid_field(camel, format!("{value:?} is not a 32-bit integer"))
                })
            })
            .transpose()
    }

    fn boolean(self, camel: &'static str, snake: &'static str) -> Result<Option<bool>, A2aError> {
        self.single(camel, snake)?
            .map(|value| match value {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(A2aError::invalid_field(
                    camel,
                    format!("{other:?} is not true or false"),
                )),
            })
            .transpose()
    }

    fn timestamp(
        self,
        camel: &'static str,
        snake: &'static str,
    ) -> Result<Option<Timestamp>, A2aError> {
        self.single(camel, snake)?
            .map(|value| {
                Timestamp::parse(value.trim()).map_err(|_| {
                    A2aError::invalid_field(
                        camel,
                        format!("{value:?} is not an RFC 3339 timestamp"),
                    )
                })
            })
            .transpose()
    }

    /// The states of `status`, in order, without duplicates. An unknown name reads as
    /// `TASK_STATE_UNSPECIFIED` (the JS SDK sends `UNRECOGNIZED` when unset), and an
    /// unspecified state among them means no filter at all.
    fn states(self) -> Vec<TaskState> {
        let mut states = Vec::new();
        for name in self
            .values("status", "status")
            .flat_map(|value| value.split(','))
        {
            let name = name.trim();
            if name.is_empty() {
                continue;
            }
            let state = TaskState::from_name(name).unwrap_or_default();
            if state == TaskState::Unspecified {
                return Vec::new();
            }
            if !states.contains(&state) {
                states.push(state);
            }
        }
        states
    }
}

/// A ListTasks request from the query, and its states when there are several (the request
/// itself holds one).
///
/// # Errors
/// InvalidParams naming the parameter at fault.
pub(super) fn list_tasks(query: Query<'_>) -> Result<(ListTasksRequest, Vec<TaskState>), A2aError> {
    let states = query.states();
    let request = ListTasksRequest {
        tenant: String::new(),
        context_id: query
            .single("contextId", "context_id")?
            .map(ContextId::from),
        status: match states.as_slice() {
            [only] => *only,
            _ => TaskState::Unspecified,
        },
        page_size: query.int32("pageSize", "page_size")?,
        page_token: query
            .single("pageToken", "page_token")?
            .unwrap_or_default()
            .to_owned(),
        history_length: query.int32("historyLength", "history_length")?,
        status_timestamp_after: query
            .timestamp("statusTimestampAfter", "status_timestamp_after")?,
        include_artifacts: query.boolean("includeArtifacts", "include_artifacts")?,
    };
    Ok((request, states))
}

#[cfg(test)]
mod tests {
    use a2a_types::ErrorKind;

    use super::*;

    fn pairs(query: &str) -> Vec<(String, String)> {
        crate::percent::query_pairs(query)
    }

    #[test]
    fn every_list_tasks_parameter_is_read() {
        let query = pairs(
            "contextId=c1&status=TASK_STATE_WORKING&pageSize=10&pageToken=abc&historyLength=0\
             &statusTimestampAfter=2025-11-09T10%3A30%3A00Z&includeArtifacts=true",
        );
        let (request, states) = list_tasks(Query::new(&query)).unwrap();
        assert_eq!(request.context_id, Some(ContextId::from("c1")));
        assert_eq!(request.status, TaskState::Working);
        assert_eq!(states, [TaskState::Working]);
        assert_eq!(request.page_size, Some(10));
        assert_eq!(request.page_token, "abc");
        assert_eq!(request.history_length, Some(0));
        assert_eq!(
            request.status_timestamp_after,
            Some(Timestamp::parse("2025-11-09T10:30:00Z").unwrap())
        );
        assert_eq!(request.include_artifacts, Some(true));
    }

    #[test]
    fn states_accept_short_names_lists_and_repeats() {
        let query = pairs("status=working,COMPLETED&status=TASK_STATE_WORKING&page_size=5");
        let (request, states) = list_tasks(Query::new(&query)).unwrap();
        assert_eq!(states, [TaskState::Working, TaskState::Completed]);
        assert_eq!(request.status, TaskState::Unspecified);
        assert_eq!(request.page_size, Some(5));
    }

    #[test]
    fn bad_values_name_their_parameter() {
        let cases = [
            ("pageSize=ten", "pageSize"),
            ("pageSize=99999999999", "pageSize"),
            ("historyLength=1.5", "historyLength"),
            ("includeArtifacts=yes", "includeArtifacts"),
            ("statusTimestampAfter=yesterday", "statusTimestampAfter"),
            ("contextId=a&contextId=b", "contextId"),
        ];
        for (text, parameter) in cases {
            let query = pairs(text);
            let error = list_tasks(Query::new(&query)).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidParams, "{text}");
            assert_eq!(error.field_violations()[0].field, parameter, "{text}");
            assert!(
                error.message().contains(parameter),
                "{text}: {}",
                error.message()
            );
        }
    }
}
