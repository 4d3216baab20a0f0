//! [`ToolSource`]: where a run's tools come from (MCP servers, or Rust code), and the
//! [`Toolbox`] that gathers several sources.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::run::ToolSpec;

/// The result of a tool call, as text for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// What the tool returned (or what went wrong), as text.
    pub content: String,
    /// True when the tool reported an error; the model sees the text either way.
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful result.
    #[must_use]
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
        }
    }

    /// An error result, shown to the model.
    #[must_use]
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
        }
    }
}

/// Why a tool source failed (as opposed to a tool reporting an error, which is a
/// [`ToolOutput`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct ToolError {
    /// What went wrong; the model sees it.
    pub message: String,
}

impl ToolError {
    /// An error saying `message`.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A set of tools: an MCP server, or tools written in Rust.
#[async_trait]
pub trait ToolSource: Send + Sync + 'static {
    /// The tools it offers.
    ///
    /// # Errors
    /// [`ToolError`] when the source cannot be asked.
    async fn list(&self) -> Result<Vec<ToolSpec>, ToolError>;

    /// Calls tool `name` with `arguments`. Must return soon after `cancel` fires, stopping
    /// whatever the call started.
    ///
    /// # Errors
    /// [`ToolError`] when the call could not be made.
    async fn call(
        &self,
        name: &str,
        arguments: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolError>;
}

/// A tool written in Rust: an async function from arguments to output.
pub type ToolFn = Arc<
    dyn Fn(Value) -> futures::future::BoxFuture<'static, Result<ToolOutput, ToolError>>
        + Send
        + Sync,
>;

/// Tools written in Rust, as a [`ToolSource`].
#[derive(Default, Clone)]
pub struct FnTools {
    tools: Vec<(ToolSpec, ToolFn)>,
}

impl std::fmt::Debug for FnTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|(spec, _)| &spec.name))
            .finish()
    }
}

impl FnTools {
    /// No tools yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool.
    #[must_use]
    pub fn tool<F, Fut>(mut self, spec: ToolSpec, call: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let call: ToolFn = Arc::new(move |arguments| Box::pin(call(arguments)));
        self.tools.push((spec, call));
        self
    }
}

#[async_trait]
impl ToolSource for FnTools {
    async fn list(&self) -> Result<Vec<ToolSpec>, ToolError> {
        Ok(self.tools.iter().map(|(spec, _)| spec.clone()).collect())
    }

    async fn call(
        &self,
        name: &str,
        arguments: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let Some((_, call)) = self.tools.iter().find(|(spec, _)| spec.name == name) else {
            return Err(ToolError::new(format!("no tool named {name}")));
        };
        tokio::select! {
            output = call(arguments) => output,
            () = cancel.cancelled() => Err(ToolError::new("the tool call was canceled")),
        }
    }
}

/// The tools of several sources under one set of names.
#[derive(Clone, Default)]
pub struct Toolbox {
    sources: Vec<Arc<dyn ToolSource>>,
    specs: Vec<ToolSpec>,
    owners: HashMap<String, usize>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field(
                "tools",
                &self.specs.iter().map(|spec| &spec.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// Lists the tools of every source. A name offered twice keeps its first source.
    ///
    /// # Errors
    /// [`ToolError`] when a source cannot be listed.
    pub async fn gather(sources: Vec<Arc<dyn ToolSource>>) -> Result<Self, ToolError> {
        let mut specs = Vec::new();
        let mut owners = HashMap::new();
        for (index, source) in sources.iter().enumerate() {
            for spec in source.list().await? {
                if owners.contains_key(&spec.name) {
                    tracing::warn!(tool = %spec.name, "a tool of this name is already offered; the later one is ignored");
                    continue;
                }
                owners.insert(spec.name.clone(), index);
                specs.push(spec);
            }
        }
        Ok(Self {
            sources,
            specs,
            owners,
        })
    }

    /// Every tool on offer.
    #[must_use]
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// The tool named `name`.
    #[must_use]
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.specs.iter().find(|spec| spec.name == name)
    }

    /// Calls tool `name` on the source that offers it.
    ///
    /// # Errors
    /// [`ToolError`] when no source offers it, or the call could not be made.
    pub async fn call(
        &self,
        name: &str,
        arguments: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let source = self
            .owners
            .get(name)
            .and_then(|index| self.sources.get(*index))
            .ok_or_else(|| ToolError::new(format!("no tool named {name}")))?;
        source.call(name, arguments, cancel).await
    }
}
