//! The one Prometheus exporter of `a2a serve` and `a2a gateway`: installs the process's
//! recorder for the `metrics` facade, keeps it tidy, and renders the page both commands serve
//! at `GET /metrics`.
//!
//! The libraries only record (`a2a_server::metrics`, `a2a_gateway::metrics`). The exporter is
//! `metrics-exporter-prometheus`, behind a thin [`Recorder`] layer that exists for one reason:
//! the gateway's series of an agent that is gone must leave the page, and that exporter can
//! drop no single label set (its idle timeout would also drop a quiet agent's series, and
//! cannot keep a quiet agent's histogram alive). So every series carrying an `agent_id` label
//! is kept in a Prometheus recorder of that agent's own; everything else goes to one shared
//! recorder. Forgetting an agent ([`AgentSeries::retain_agents`], called by the gateway at
//! each scrape with the agents its registry lists) drops its recorder, which frees its
//! series. The page is the shared recorder's text with each agent's samples merged into the
//! same families, so every family keeps one `# HELP`/`# TYPE` header.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use a2a_gateway::metrics::{AGENT_ID_LABEL, AgentSeries};
use metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit};
use metrics_exporter_prometheus::{BuildError, Matcher, PrometheusBuilder, PrometheusRecorder};

/// How often histograms are folded and descriptions published between scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// Buckets of the server's store latency, in seconds.
const STORE_BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// The installed exporter: the page and the gateway's hook for agents that are gone.
#[derive(Debug)]
pub(crate) struct Exporter {
    shared: PrometheusRecorder,
    agents: RwLock<HashMap<String, PrometheusRecorder>>,
    /// Every description given so far, replayed into each new agent's recorder.
    descriptions: RwLock<Vec<Description>>,
}

#[derive(Debug, Clone)]
struct Description {
    kind: Kind,
    name: KeyName,
    unit: Option<Unit>,
    text: SharedString,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// Installs the exporter as the process's recorder and describes every series of both
/// libraries; `None` (with a warning) when a recorder is installed already.
pub(crate) fn install() -> Option<Arc<Exporter>> {
    let exporter = match Exporter::new() {
        Ok(exporter) => Arc::new(exporter),
        Err(error) => {
            tracing::warn!(%error, "metrics are not served: the exporter cannot be built");
            return None;
        }
    };
    if let Err(error) = metrics::set_global_recorder(Installed(Arc::clone(&exporter))) {
        tracing::warn!(%error, "metrics are not served: a recorder is installed already");
        return None;
    }
    a2a_server::metrics::describe();
    a2a_server::metrics::bind();
    a2a_gateway::metrics::describe();
    let upkeep = Arc::clone(&exporter);
    tokio::spawn(async move {
        // Histograms are folded on upkeep; without it their samples pile up between scrapes.
        let mut every = tokio::time::interval(UPKEEP_EVERY);
        loop {
            every.tick().await;
            upkeep.run_upkeep();
        }
    });
    Some(exporter)
}

impl Exporter {
    fn new() -> Result<Self, BuildError> {
        Ok(Self {
            shared: prometheus()?,
            agents: RwLock::new(HashMap::new()),
            descriptions: RwLock::new(Vec::new()),
        })
    }

    /// The page for `GET /metrics`.
    pub(crate) fn page(self: &Arc<Self>) -> a2a_server::MetricsRender {
        let exporter = Arc::clone(self);
        a2a_server::MetricsRender::new(move || exporter.render())
    }

    /// Everything, in the Prometheus text format: the shared recorder's families with every
    /// agent's samples merged in.
    fn render(&self) -> String {
        let mut page = Page::default();
        page.add(&self.shared.handle().render());
        let agents = self.agents.read().unwrap_or_else(PoisonError::into_inner);
        let mut ids: Vec<&String> = agents.keys().collect();
        ids.sort();
        for id in ids {
            if let Some(recorder) = agents.get(id) {
                page.add(&recorder.handle().render());
            }
        }
        page.text()
    }

    fn run_upkeep(&self) {
        self.shared.handle().run_upkeep();
        let agents = self.agents.read().unwrap_or_else(PoisonError::into_inner);
        for recorder in agents.values() {
            recorder.handle().run_upkeep();
        }
    }

    /// The recorder a series belongs in: its agent's (made on first use), or the shared one.
    fn with_recorder<T>(&self, key: &Key, register: impl FnOnce(&PrometheusRecorder) -> T) -> T {
        let Some(agent) = key
            .labels()
            .find(|label| label.key() == AGENT_ID_LABEL)
            .map(|label| label.value())
        else {
            return register(&self.shared);
        };
        if let Some(recorder) = self
            .agents
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent)
        {
            return register(recorder);
        }
        let mut agents = self.agents.write().unwrap_or_else(PoisonError::into_inner);
        if !agents.contains_key(agent) {
            match prometheus() {
                Ok(recorder) => {
                    let descriptions = self
                        .descriptions
                        .read()
                        .unwrap_or_else(PoisonError::into_inner);
                    for description in descriptions.iter() {
                        description.give(&recorder);
                    }
                    agents.insert(agent.to_owned(), recorder);
                }
                // Not reached: the same settings built the shared recorder.
                Err(_) => return register(&self.shared),
            }
        }
        match agents.get(agent) {
            Some(recorder) => register(recorder),
            None => register(&self.shared),
        }
    }

    fn describe(&self, description: Description) {
        description.give(&self.shared);
        for recorder in self
            .agents
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            description.give(recorder);
        }
        self.descriptions
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(description);
    }
}

impl AgentSeries for Exporter {
    fn retain_agents(&self, keep: &dyn Fn(&str) -> bool) {
        self.agents
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|agent, _| keep(agent));
    }
}

impl Description {
    fn give(&self, recorder: &PrometheusRecorder) {
        let (name, unit, text) = (self.name.clone(), self.unit, self.text.clone());
        match self.kind {
            Kind::Counter => recorder.describe_counter(name, unit, text),
            Kind::Gauge => recorder.describe_gauge(name, unit, text),
            Kind::Histogram => recorder.describe_histogram(name, unit, text),
        }
    }
}

/// A recorder with the buckets of both libraries' histograms.
fn prometheus() -> Result<PrometheusRecorder, BuildError> {
    Ok(PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full(a2a_server::metrics::STORE_OPERATION_SECONDS.to_owned()),
            &STORE_BUCKETS,
        )?
        .set_buckets_for_metric(
            Matcher::Full(a2a_gateway::metrics::REQUEST_DURATION_SECONDS.to_owned()),
            &a2a_gateway::metrics::LATENCY_BUCKETS,
        )?
        .build_recorder())
}

/// What the facade talks to (the facade wants the recorder by value).
#[derive(Debug)]
struct Installed(Arc<Exporter>);

impl Recorder for Installed {
    fn describe_counter(&self, name: KeyName, unit: Option<Unit>, text: SharedString) {
        self.0.describe(Description {
            kind: Kind::Counter,
            name,
            unit,
            text,
        });
    }

    fn describe_gauge(&self, name: KeyName, unit: Option<Unit>, text: SharedString) {
        self.0.describe(Description {
            kind: Kind::Gauge,
            name,
            unit,
            text,
        });
    }

    fn describe_histogram(&self, name: KeyName, unit: Option<Unit>, text: SharedString) {
        self.0.describe(Description {
            kind: Kind::Histogram,
            name,
            unit,
            text,
        });
    }

    fn register_counter(&self, key: &Key, metadata: &Metadata<'_>) -> Counter {
        self.0
            .with_recorder(key, |recorder| recorder.register_counter(key, metadata))
    }

    fn register_gauge(&self, key: &Key, metadata: &Metadata<'_>) -> Gauge {
        self.0
            .with_recorder(key, |recorder| recorder.register_gauge(key, metadata))
    }

    fn register_histogram(&self, key: &Key, metadata: &Metadata<'_>) -> Histogram {
        self.0
            .with_recorder(key, |recorder| recorder.register_histogram(key, metadata))
    }
}

/// Families from several renders of the text format, merged by name in first-seen order.
#[derive(Debug, Default)]
struct Page {
    families: Vec<Family>,
    by_name: BTreeMap<String, usize>,
}

#[derive(Debug, Default)]
struct Family {
    header: Vec<String>,
    samples: Vec<String>,
}

impl Page {
    /// Adds one render: blocks separated by blank lines, each a family's `# HELP`/`# TYPE`
    /// lines then its samples.
    fn add(&mut self, text: &str) {
        for block in text.split("\n\n") {
            let (header, samples): (Vec<&str>, Vec<&str>) = block
                .lines()
                .filter(|line| !line.is_empty())
                .partition(|line| line.starts_with('#'));
            let Some(name) = family_name(&header, &samples) else {
                continue;
            };
            let index = *self.by_name.entry(name).or_insert_with(|| {
                self.families.push(Family::default());
                self.families.len() - 1
            });
            let family = &mut self.families[index];
            if family.header.is_empty() {
                family.header = header.iter().map(|line| (*line).to_owned()).collect();
            }
            family
                .samples
                .extend(samples.iter().map(|line| (*line).to_owned()));
        }
    }

    fn text(&self) -> String {
        let mut text = String::new();
        for family in &self.families {
            for line in family.header.iter().chain(&family.samples) {
                text.push_str(line);
                text.push('\n');
            }
            text.push('\n');
        }
        text
    }
}

/// A block's family: the name its `# TYPE` line gives, else its first sample's name.
fn family_name(header: &[&str], samples: &[&str]) -> Option<String> {
    let typed = header
        .iter()
        .find_map(|line| line.strip_prefix("# TYPE ")?.split(' ').next());
    let sampled = || {
        samples
            .first()
            .and_then(|line| line.split(['{', ' ']).next())
    };
    typed.or_else(sampled).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_of_several_renders_share_one_header() {
        let mut page = Page::default();
        page.add("# HELP a_total Things.\n# TYPE a_total counter\na_total{agent_id=\"x\"} 1\n\n# TYPE b gauge\nb 2\n\n");
        page.add("# HELP a_total Things.\n# TYPE a_total counter\na_total{agent_id=\"y\"} 3\n\n");
        assert_eq!(
            page.text(),
            "# HELP a_total Things.\n# TYPE a_total counter\na_total{agent_id=\"x\"} 1\na_total{agent_id=\"y\"} 3\n\n# TYPE b gauge\nb 2\n\n"
        );
    }

    #[test]
    fn an_agent_forgotten_leaves_the_page_and_the_others_stay() {
        let exporter = Exporter::new().unwrap();
        let installed = Installed(Arc::new(exporter));
        metrics::with_local_recorder(&installed, || {
            a2a_gateway::metrics::describe();
            for agent in ["one", "two"] {
                metrics::counter!(a2a_gateway::metrics::REQUESTS_TOTAL, AGENT_ID_LABEL => agent)
                    .increment(2);
            }
            metrics::gauge!(a2a_gateway::metrics::REGISTERED_AGENTS).set(2.0);
        });
        let page = installed.0.render();
        assert_eq!(
            page.matches("# TYPE kubemq_a2a_requests_total").count(),
            1,
            "{page}"
        );
        assert!(
            page.contains(r#"kubemq_a2a_requests_total{agent_id="one"} 2"#),
            "{page}"
        );
        installed.0.retain_agents(&|agent| agent == "two");
        let page = installed.0.render();
        assert!(!page.contains(r#"agent_id="one""#), "{page}");
        assert!(
            page.contains(r#"kubemq_a2a_requests_total{agent_id="two"} 2"#),
            "{page}"
        );
        assert!(page.contains("kubemq_a2a_registered_agents 2"), "{page}");
    }
}
