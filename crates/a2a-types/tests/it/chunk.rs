//! `ArtifactChunk` names the wire's `append` / `lastChunk` pair: every pair maps to one
//! chunk and back.

use a2a_types::{ArtifactChunk, StreamResponse};
use serde_json::json;

#[test]
fn each_flag_pair_is_one_chunk_and_back() {
    let cases = [
        (false, true, ArtifactChunk::Whole),
        (false, false, ArtifactChunk::First),
        (true, false, ArtifactChunk::Next),
        (true, true, ArtifactChunk::Last),
    ];
    for (append, last_chunk, chunk) in cases {
        let wire = json!({"artifactUpdate": {
            "taskId": "t", "contextId": "c",
            "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
            "append": append, "lastChunk": last_chunk,
        }});
        let StreamResponse::ArtifactUpdate(event) =
            serde_json::from_value::<StreamResponse>(wire).expect("a valid artifact update")
        else {
            panic!("not an artifact update");
        };
        assert_eq!(event.chunk(), chunk);
        assert_eq!((chunk.append(), chunk.last_chunk()), (append, last_chunk));
    }
}
