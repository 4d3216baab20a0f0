//! `a2a-test-model`: the tests' scripted OpenAI-compatible model server as a process, for
//! trying `a2a serve --agent llm` by hand without a real model.
//!
//! ```text
//! a2a-test-model SCRIPT.json
//! ```
//!
//! prints `listening on http://127.0.0.1:PORT/v1` and answers each chat completion with the
//! next step of the script, a JSON list whose entries are
//! `{"text": "…"}`, `{"toolCalls": [{"id": "…", "name": "…", "arguments": {…}}], "text"?: "…"}`
//! or `{"status": 429, "body": "…"}`, each with an optional `"delayMs"`.

use std::time::Duration;

use a2a_test_support::model::{ScriptedModel, Step};
use serde_json::Value;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        return Err("usage: a2a-test-model SCRIPT.json".into());
    };
    let script: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let steps = script.iter().map(step).collect::<Result<Vec<_>, _>>()?;
    let model = ScriptedModel::start(steps).await?;
    #[allow(clippy::print_stdout)]
    {
        println!("listening on {}", model.base_url());
    }
    tokio::signal::ctrl_c().await?;
    Ok(())
}

fn step(entry: &Value) -> Result<Step, String> {
    let mut step = if let Some(status) = entry["status"].as_u64() {
        let status = u16::try_from(status).map_err(|_| format!("bad status in {entry}"))?;
        Step::error(status, entry["body"].as_str().unwrap_or_default())
    } else if let Some(calls) = entry["toolCalls"].as_array() {
        let mut step: Option<Step> = None;
        for call in calls {
            let id = call["id"]
                .as_str()
                .ok_or(format!("a tool call needs an id: {call}"))?;
            let name = call["name"]
                .as_str()
                .ok_or(format!("a tool call needs a name: {call}"))?;
            let arguments = call["arguments"].clone();
            step = Some(match step {
                None => Step::tool_call(id, name, arguments),
                Some(step) => step.and_tool_call(id, name, arguments),
            });
        }
        let step = step.ok_or(format!("toolCalls is empty in {entry}"))?;
        match entry["text"].as_str() {
            Some(text) => step.with_text(text),
            None => step,
        }
    } else if let Some(text) = entry["text"].as_str() {
        Step::text(text)
    } else {
        return Err(format!("a step needs text, toolCalls or status: {entry}"));
    };
    if let Some(delay) = entry["delayMs"].as_u64() {
        step = step.delay(Duration::from_millis(delay));
    }
    Ok(step)
}
