//! The stream hooks ([`crate::hooks::StreamHooks`]) around each stream of SendStreamingMessage
//! and SubscribeToTask: it is counted under its task in the stream registry, can be closed
//! with the task's other streams, and reports its subscription, events and end.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_types::{A2aError, StreamResponse, TaskId};
use futures::Stream;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::{CallContext, EventStream, RequestHandler, StreamEvent};
use crate::hooks::StreamHooks;

impl RequestHandler {
    /// Ends every open stream (SendStreamingMessage, SubscribeToTask) of `task_id` in this
    /// process, without stopping the task: its turn runs on, and a client may subscribe
    /// again. Returns how many streams were closed.
    ///
    /// ```
    /// # fn demo(server: &a2a_server::A2aServer, task_id: &a2a_types::TaskId) {
    /// let closed = server.handler().close_streams(task_id);
    /// assert_eq!(server.handler().stream_count(task_id), 0);
    /// # let _ = closed; }
    /// ```
    pub fn close_streams(&self, task_id: &TaskId) -> usize {
        self.inner.streams.close_all(task_id)
    }

    /// How many streams of `task_id` are open in this process.
    #[must_use]
    pub fn stream_count(&self, task_id: &TaskId) -> usize {
        self.inner.streams.count(task_id)
    }

    /// Sets the stream hooks (the builder's, before the handler is shared).
    pub(crate) fn with_stream_hooks(mut self, hooks: Option<Arc<dyn StreamHooks>>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.stream_hooks = hooks;
        }
        self
    }

    /// Counts `stream` under its task (known now, or from its first event), ends it when the
    /// task's streams are closed, and reports it to the stream hooks.
    pub(super) fn track_stream(
        &self,
        call: &CallContext,
        task_id: Option<TaskId>,
        stream: EventStream,
    ) -> EventStream {
        let mut tracked = Tracked {
            inner: stream,
            handler: self.clone(),
            call: self.inner.stream_hooks.as_ref().map(|_| call.clone()),
            open: None,
            closed: None,
            done: false,
        };
        if let Some(task_id) = task_id {
            tracked.opened(task_id);
        }
        Box::pin(tracked)
    }
}

/// A stream as [`RequestHandler::track_stream`] follows it.
struct Tracked {
    inner: EventStream,
    handler: RequestHandler,
    /// The call, kept for the hooks' `on_subscribe` (only when hooks are set).
    call: Option<CallContext>,
    /// The task and the registry generation, once the task is known.
    open: Option<(TaskId, u64)>,
    closed: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    done: bool,
}

impl Tracked {
    fn opened(&mut self, task_id: TaskId) {
        let (close, generation) = self.handler.inner.streams.open(&task_id);
        self.closed = Some(Box::pin(close.cancelled_owned()));
        if let (Some(hooks), Some(call)) = (&self.handler.inner.stream_hooks, &self.call) {
            hooks.on_subscribe(&task_id, call);
        }
        self.open = Some((task_id, generation));
    }
}

/// The task an event is about, when it names one.
fn task_of(response: &StreamResponse) -> Option<&TaskId> {
    match response {
        StreamResponse::Task(task) => Some(&task.id),
        StreamResponse::StatusUpdate(update) => Some(&update.task_id),
        StreamResponse::ArtifactUpdate(update) => Some(&update.task_id),
        StreamResponse::Message(message) => message.task_id.as_ref(),
    }
}

impl Stream for Tracked {
    type Item = Result<StreamEvent, A2aError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        if let Some(closed) = &mut this.closed
            && closed.as_mut().poll(cx).is_ready()
        {
            this.done = true;
            return Poll::Ready(None);
        }
        let item = std::task::ready!(this.inner.as_mut().poll_next(cx));
        match &item {
            None => this.done = true,
            Some(Ok(event)) => {
                if this.open.is_none()
                    && let Some(task_id) = task_of(&event.response)
                {
                    this.opened(task_id.clone());
                }
                if let (Some(hooks), Some((task_id, _))) =
                    (&this.handler.inner.stream_hooks, &this.open)
                {
                    hooks.on_event(task_id, event);
                }
            }
            Some(Err(_)) => {}
        }
        Poll::Ready(item)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some((task_id, generation)) = self.open.take() {
            self.handler.inner.streams.closed(&task_id, generation);
            if let Some(hooks) = &self.handler.inner.stream_hooks {
                hooks.on_unsubscribe(&task_id);
            }
        }
    }
}
