//! The renderer of the metrics page (`GET /metrics`) a server is given.

use std::sync::Arc;

/// Renders the metrics page (`GET /metrics`), e.g. a Prometheus exporter's handle.
#[derive(Clone)]
pub struct MetricsRender(Arc<dyn Fn() -> String + Send + Sync>);

impl MetricsRender {
    /// A page made by `render` on each scrape.
    pub fn new(render: impl Fn() -> String + Send + Sync + 'static) -> Self {
        Self(Arc::new(render))
    }

    /// The page now.
    #[must_use]
    pub fn render(&self) -> String {
        (self.0)()
    }
}

impl std::fmt::Debug for MetricsRender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsRender(..)")
    }
}
