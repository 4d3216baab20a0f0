//! Which file of a crate target uses which: paths resolved to the files that define them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::scan::PathRef;
use crate::tree::Tree;

/// One use of another file: where it is written and what it says.
#[derive(Debug, Clone)]
pub(crate) struct Use {
    pub(crate) line: usize,
    pub(crate) written: String,
}

/// Edges between files (indices into [`Tree::files`]), each with its first use.
pub(crate) type Edges = BTreeMap<usize, BTreeMap<usize, Use>>;

type Module = Vec<String>;

/// A target's modules: which files each module path lives in, and what each re-exports.
#[derive(Default)]
struct Index {
    files: HashMap<Module, Vec<usize>>,
    reexports: HashMap<Module, HashMap<String, Module>>,
}

/// Resolves every path of every file, and returns the file-to-file edges.
pub(crate) fn edges(tree: &Tree) -> Edges {
    let mut indexes: HashMap<usize, Index> = HashMap::new();
    for (id, file) in tree.files.iter().enumerate() {
        let index = indexes.entry(file.target).or_default();
        index.files.entry(file.module.clone()).or_default().push(id);
        for inline in &file.scan.inline {
            let mut module = file.module.clone();
            module.extend(inline.iter().cloned());
            index.files.entry(module).or_default().push(id);
        }
    }
    for file in &tree.files {
        let Some(index) = indexes.get(&file.target) else {
            continue;
        };
        let mut found = Vec::new();
        for path in file.scan.paths.iter().filter(|p| p.reexport && !p.glob) {
            let scope = scope_of(&file.module, path);
            if let (Some(name), Some(target)) =
                (&path.binds, absolute(index, &scope, &path.segments))
            {
                found.push((scope, name.clone(), target));
            }
        }
        if let Some(index) = indexes.get_mut(&file.target) {
            for (scope, name, target) in found {
                index
                    .reexports
                    .entry(scope)
                    .or_default()
                    .insert(name, target);
            }
        }
    }
    let mut edges = Edges::new();
    for (id, file) in tree.files.iter().enumerate() {
        let Some(index) = indexes.get(&file.target) else {
            continue;
        };
        for path in &file.scan.paths {
            let scope = scope_of(&file.module, path);
            let Some(target) = absolute(index, &scope, &path.segments) else {
                continue;
            };
            let mut seen = BTreeSet::new();
            for to in resolve(index, &target, 0) {
                let module = &tree.files[to].module;
                // A module re-exporting its own descendants is its facade, not a use of them.
                let facade_export = path.reexport && module.starts_with(&file.module);
                if to == id || facade_export || !seen.insert(to) {
                    continue;
                }
                let written = Use {
                    line: path.line,
                    written: path.segments.join("::"),
                };
                edges.entry(id).or_default().entry(to).or_insert(written);
            }
        }
    }
    edges
}

fn scope_of(module: &Module, path: &PathRef) -> Module {
    let mut scope = module.clone();
    scope.extend(path.scope.iter().cloned());
    scope
}

/// The module-relative start of a path, made absolute; `None` for other crates' paths.
fn absolute(index: &Index, scope: &Module, segments: &[String]) -> Option<Module> {
    let first = segments.first()?;
    let mut rest = segments.iter().skip(1);
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => scope.clone(),
        "super" => {
            let mut base = scope.clone();
            base.pop();
            let mut more = segments.iter().skip(1).peekable();
            while more.next_if(|s| *s == "super").is_some() {
                base.pop();
                rest.next();
            }
            base
        }
        name => {
            let mut child = scope.clone();
            child.push(name.to_owned());
            if !index.files.contains_key(&child) {
                return None;
            }
            return Some(scope.iter().chain(segments).cloned().collect());
        }
    };
    base.extend(rest.cloned());
    Some(base)
}

/// The files defining what an absolute path names: the deepest module it enters, following
/// re-exports (a path into a facade's `pub use` lands on the file that defines the item).
fn resolve(index: &Index, path: &[String], hops: usize) -> Vec<usize> {
    let mut module: Module = Vec::new();
    for (at, segment) in path.iter().enumerate() {
        let mut child = module.clone();
        child.push(segment.clone());
        if index.files.contains_key(&child) {
            module = child;
            continue;
        }
        let reexported = index
            .reexports
            .get(&module)
            .and_then(|names| names.get(segment));
        if let Some(target) = reexported.filter(|_| hops < 8) {
            let mut onward = target.clone();
            onward.extend(path[at + 1..].iter().cloned());
            return resolve(index, &onward, hops + 1);
        }
        break;
    }
    index.files.get(&module).cloned().unwrap_or_default()
}

/// The strongly connected groups of more than one file: each is a circle of imports.
pub(crate) fn circles(edges: &Edges) -> Vec<Vec<usize>> {
    let mut state = Tarjan::default();
    let nodes: BTreeSet<usize> = edges
        .iter()
        .flat_map(|(from, to)| std::iter::once(*from).chain(to.keys().copied()))
        .collect();
    for node in nodes {
        if !state.index.contains_key(&node) {
            state.visit(node, edges);
        }
    }
    state.groups.retain(|group| group.len() > 1);
    for group in &mut state.groups {
        group.sort_unstable();
    }
    state.groups.sort();
    state.groups
}

#[derive(Default)]
struct Tarjan {
    next: usize,
    index: HashMap<usize, usize>,
    low: HashMap<usize, usize>,
    stack: Vec<usize>,
    on_stack: BTreeSet<usize>,
    groups: Vec<Vec<usize>>,
}

impl Tarjan {
    fn visit(&mut self, node: usize, edges: &Edges) {
        self.index.insert(node, self.next);
        self.low.insert(node, self.next);
        self.next += 1;
        self.stack.push(node);
        self.on_stack.insert(node);
        for &next in edges.get(&node).into_iter().flat_map(BTreeMap::keys) {
            if !self.index.contains_key(&next) {
                self.visit(next, edges);
                let low = self.low[&node].min(self.low[&next]);
                self.low.insert(node, low);
            } else if self.on_stack.contains(&next) {
                let low = self.low[&node].min(self.index[&next]);
                self.low.insert(node, low);
            }
        }
        if self.low[&node] == self.index[&node] {
            let mut group = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack.remove(&top);
                group.push(top);
                if top == node {
                    break;
                }
            }
            self.groups.push(group);
        }
    }
}

/// The shortest circle through `start` inside `group`, as the files in order (start first).
pub(crate) fn shortest_circle(edges: &Edges, group: &[usize], start: usize) -> Vec<usize> {
    let mut came_from: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &next in edges.get(&node).into_iter().flat_map(BTreeMap::keys) {
            if !group.contains(&next) {
                continue;
            }
            if next == start {
                let mut path = vec![node];
                let mut at = node;
                while at != start {
                    at = came_from[&at];
                    path.push(at);
                }
                path.reverse();
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = came_from.entry(next) {
                slot.insert(node);
                queue.push_back(next);
            }
        }
    }
    vec![start]
}
