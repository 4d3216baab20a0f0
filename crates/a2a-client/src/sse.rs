//! A Server-Sent Events decoder (W3C "event stream interpretation"): comments and heartbeats
//! skipped, multi-line `data` joined with `\n`, LF, CRLF and CR line ends, `event:` and `id:`
//! fields, and a size limit per event.

use crate::ClientError;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` type, when one was given.
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub(crate) data: String,
    /// The `id:` this event carried itself (not the inherited last event id).
    pub(crate) id: Option<String>,
}

/// Turns chunks of bytes into events.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    /// Bytes of a line not finished yet.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` starting the next one belongs to it.
    after_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    id: Option<String>,
    max_event_size: usize,
}

impl SseDecoder {
    /// A decoder refusing events (and lines) larger than `max_event_size` bytes.
    pub(crate) fn new(max_event_size: usize) -> Self {
        Self {
            line: Vec::new(),
            after_cr: false,
            event: None,
            data: String::new(),
            has_data: false,
            id: None,
            max_event_size,
        }
    }

    /// Feeds one chunk; returns the events it completed.
    ///
    /// # Errors
    /// [`ClientError::PayloadTooLarge`] when an event grows past the limit;
    /// [`ClientError::InvalidResponse`] for a line that is not UTF-8.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, ClientError> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.after_cr {
            self.after_cr = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(end) = rest
            .iter()
            .position(|byte| *byte == b'\n' || *byte == b'\r')
        {
            self.line.extend_from_slice(&rest[..end]);
            self.check_size()?;
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.process_line(&line)? {
                events.push(event);
            }
            let crlf = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if crlf {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
        self.check_size()?;
        Ok(events)
    }

    fn check_size(&self) -> Result<(), ClientError> {
        if self.line.len() + self.data.len() > self.max_event_size {
            return Err(ClientError::PayloadTooLarge {
                limit: self.max_event_size,
            });
        }
        Ok(())
    }

    fn process_line(&mut self, line: &[u8]) -> Result<Option<SseEvent>, ClientError> {
        if line.is_empty() {
            return Ok(self.dispatch());
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| ClientError::invalid_response("an SSE line is not UTF-8"))?;
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            // `retry` and unknown fields are ignored, as the SSE algorithm says.
            _ => {}
        }
        Ok(None)
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        let id = self.id.take();
        if !self.has_data {
            self.data.clear();
            return None;
        }
        self.has_data = false;
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        Some(SseEvent { event, data, id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new(1024);
        chunks
            .iter()
            .flat_map(|chunk| decoder.feed(chunk).unwrap())
            .collect()
    }

    fn data(event: &SseEvent) -> &str {
        &event.data
    }

    #[test]
    fn comments_and_heartbeats_are_skipped() {
        let events = decode(&[b": keep-alive\n\n: ping\n\ndata: {\"a\":1}\n\n"]);
        assert_eq!(events.len(), 1);
        assert_eq!(data(&events[0]), "{\"a\":1}");
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        let events = decode(&[b"data: one\ndata:two\ndata\n\n"]);
        assert_eq!(data(&events[0]), "one\ntwo\n");
    }

    #[test]
    fn crlf_and_cr_line_ends_work_across_chunks() {
        let events = decode(&[b"id: 7\r", b"\ndata: x\r\n\r", b"\ndata: y\r\r"]);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].id.as_deref(), Some("7"));
        assert_eq!(data(&events[0]), "x");
        assert_eq!(events[1].id, None, "ids are per event here");
        assert_eq!(data(&events[1]), "y");
    }

    #[test]
    fn event_types_and_ids_are_read() {
        let events = decode(&[b"event: error\nid: 3\nretry: 10\ndata: {}\n\n"]);
        assert_eq!(events[0].event.as_deref(), Some("error"));
        assert_eq!(events[0].id.as_deref(), Some("3"));
    }

    #[test]
    fn events_split_anywhere_are_reassembled() {
        let text = b"data: {\"task\":{\"id\":\"t\"}}\n\n";
        for split in 0..text.len() {
            let events = decode(&[&text[..split], &text[split..]]);
            assert_eq!(events.len(), 1, "split at {split}");
            assert_eq!(data(&events[0]), "{\"task\":{\"id\":\"t\"}}");
        }
    }

    #[test]
    fn an_unfinished_event_is_not_dispatched() {
        assert!(decode(&[b"data: half"]).is_empty());
        assert!(decode(&[b"event: x\n\n"]).is_empty(), "no data, no event");
    }

    #[test]
    fn oversized_events_are_refused() {
        let mut decoder = SseDecoder::new(16);
        let error = decoder.feed(b"data: 0123456789abcdef\n").unwrap_err();
        assert!(matches!(error, ClientError::PayloadTooLarge { limit: 16 }));
        let mut decoder = SseDecoder::new(16);
        decoder.feed(b"data: 0123456789\n").unwrap();
        assert!(
            decoder.feed(b"data: 0123456789\n").is_err(),
            "data accumulates"
        );
        let mut decoder = SseDecoder::new(16);
        assert!(
            decoder.feed(&[b'x'; 17]).is_err(),
            "an endless line is refused too"
        );
    }
}
