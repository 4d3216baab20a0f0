//! A failed gRPC call as a [`ClientError`]: the agent's A2A error from the status details,
//! or a transport failure, sorted the way the HTTP transport sorts its failures.

use tonic::{Code, Status};

use crate::error::{ClientError, TimeoutKind};

/// The start of the message tonic's decoder gives a message over the size limit.
const TOO_LARGE: &str = "Error, decoded message length too large";

/// The error of a call to `url` that ended with `status`; `max_message_size` is the limit
/// answers are read under.
///
/// * A status tonic made from a local failure (it carries the failure as its source: no
///   connection, a broken stream, a TLS handshake refused) is a transport failure; one for a
///   time limit is a timeout.
/// * A status with details is the agent's answer: its `ErrorInfo` names the A2A error.
/// * A bare `DEADLINE_EXCEEDED` is a timeout and a bare `UNAVAILABLE` a transport failure,
///   as a proxy sends them; a bare status of another code is classified by its code.
pub(crate) fn client_error(url: &url::Url, status: Status, max_message_size: usize) -> ClientError {
    let bare = status.details().is_empty();
    if std::error::Error::source(&status).is_some() {
        if is_time_limit(&status) {
            return ClientError::Timeout(TimeoutKind::Request);
        }
        return ClientError::transport(url, status);
    }
    match status.code() {
        Code::DeadlineExceeded if bare => ClientError::Timeout(TimeoutKind::Request),
        Code::Unavailable if bare => ClientError::transport(url, status),
        Code::OutOfRange if bare && status.message().starts_with(TOO_LARGE) => {
            ClientError::PayloadTooLarge {
                limit: max_message_size,
            }
        }
        _ => ClientError::Agent(a2a_grpc::status::from_status(&status)),
    }
}

/// Whether tonic's own deadline, rather than the network, ended the call.
fn is_time_limit(status: &Status) -> bool {
    let mut source = std::error::Error::source(status);
    while let Some(error) = source {
        if error.is::<tonic::TimeoutExpired>() {
            return true;
        }
        source = error.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use a2a_types::{A2aError, ErrorKind};

    use super::*;

    fn url() -> url::Url {
        url::Url::parse("http://127.0.0.1:50051/").unwrap()
    }

    #[test]
    fn statuses_with_details_are_the_agents_errors() {
        let sent = A2aError::task_not_found("t-1");
        let error = client_error(&url(), a2a_grpc::status::to_status(&sent), 10);
        assert_eq!(error.kind(), Some(ErrorKind::TaskNotFound));
        // Even UNAVAILABLE, when the agent says so with an ErrorInfo.
        let busy = a2a_grpc::status::to_status(&A2aError::server_busy());
        assert!(matches!(
            client_error(&url(), busy, 10),
            ClientError::Agent(_)
        ));
    }

    #[test]
    fn bare_statuses_are_sorted_like_http_failures() {
        let cases = [
            (Status::deadline_exceeded("late"), "timeout"),
            (Status::unavailable("no upstream"), "transport"),
            (
                Status::out_of_range(format!(
                    "{TOO_LARGE}: found 20 bytes, the limit is: 10 bytes"
                )),
                "too large",
            ),
            (Status::unimplemented("no such method"), "agent"),
            (Status::unauthenticated(""), "agent"),
        ];
        for (status, expected) in cases {
            let error = client_error(&url(), status, 10);
            let got = match &error {
                ClientError::Timeout(TimeoutKind::Request) => "timeout",
                ClientError::Transport { .. } => "transport",
                ClientError::PayloadTooLarge { limit: 10 } => "too large",
                ClientError::Agent(_) => "agent",
                _ => "other",
            };
            assert_eq!(got, expected, "{error:?}");
        }
    }

    #[test]
    fn local_failures_are_transport_failures_or_timeouts() {
        let refused = Status::from_error(Box::new(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )));
        assert!(matches!(
            client_error(&url(), refused, 10),
            ClientError::Transport { .. }
        ));
        let expired = Status::from_error(Box::new(tonic::TimeoutExpired(())));
        assert!(matches!(
            client_error(&url(), expired, 10),
            ClientError::Timeout(TimeoutKind::Request)
        ));
    }
}
