//! One open connection of a stream: an SSE body, a single answer, or a binding's decoded
//! events, read one event at a time.

use std::collections::VecDeque;
use std::time::Duration;

use a2a_types::StreamResponse;
use futures::StreamExt as _;

use crate::A2aClient;
use crate::binding::grpc::GrpcEvents;
use crate::error::{ClientError, TimeoutKind};
use crate::sse::{SseDecoder, SseEvent};
use crate::transport::ResponseBody;

/// One decoded event and the SSE id it carried.
#[derive(Debug)]
pub(crate) struct Item {
    pub(super) response: StreamResponse,
    pub(super) id: Option<String>,
}

/// One open connection's events.
pub(crate) struct Connection {
    pub(super) source: Source,
}

pub(super) enum Source {
    /// An SSE body.
    Events {
        body: ResponseBody,
        decoder: SseDecoder,
        pending: VecDeque<SseEvent>,
        ended: bool,
    },
    /// A plain answer holding one event.
    Single(Option<Box<StreamResponse>>),
    /// Events decoded by the binding already (gRPC messages), with no ids.
    Decoded(GrpcEvents),
}

impl Connection {
    /// An SSE body.
    pub(crate) fn events(body: ResponseBody, max_event_size: usize) -> Self {
        Self {
            source: Source::Events {
                body,
                decoder: SseDecoder::new(max_event_size),
                pending: VecDeque::new(),
                ended: false,
            },
        }
    }

    /// A plain answer holding one event.
    pub(crate) fn single(response: StreamResponse) -> Self {
        Self {
            source: Source::Single(Some(Box::new(response))),
        }
    }

    /// Events a binding decoded itself.
    pub(crate) fn decoded(events: GrpcEvents) -> Self {
        Self {
            source: Source::Decoded(events),
        }
    }

    /// The next event; `None` when the connection ended.
    pub(super) async fn next(
        &mut self,
        client: &A2aClient,
        idle: Duration,
    ) -> Option<Result<Item, ClientError>> {
        match &mut self.source {
            Source::Single(response) => response.take().map(|response| {
                Ok(Item {
                    response: *response,
                    id: None,
                })
            }),
            Source::Decoded(events) => match tokio::time::timeout(idle, events.next()).await {
                Err(_elapsed) => Some(Err(ClientError::Timeout(TimeoutKind::StreamIdle))),
                Ok(next) => next.map(|decoded| decoded.map(|response| Item { response, id: None })),
            },
            Source::Events {
                body,
                decoder,
                pending,
                ended,
            } => loop {
                if let Some(event) = pending.pop_front() {
                    let decoded = client.endpoint().decode_event(&event).map(|response| Item {
                        response,
                        id: event.id,
                    });
                    return Some(decoded);
                }
                if *ended {
                    return None;
                }
                // Any bytes count as life, heartbeat comments included.
                match tokio::time::timeout(idle, body.next()).await {
                    Err(_elapsed) => {
                        return Some(Err(ClientError::Timeout(TimeoutKind::StreamIdle)));
                    }
                    Ok(None) => *ended = true,
                    Ok(Some(Err(error))) => return Some(Err(error)),
                    Ok(Some(Ok(chunk))) => match decoder.feed(&chunk) {
                        Ok(events) => pending.extend(events),
                        Err(error) => return Some(Err(error)),
                    },
                }
            },
        }
    }
}
