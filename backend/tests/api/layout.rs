//! The backend's modules import each other in one direction only: no circle of modules that
//! reach into each other (`crate::…` and `super::…` paths, in `use` trees and inline), which makes
//! the next change hard to place. A parent and its own child modules may refer to each other.

use std::collections::{BTreeMap, BTreeSet};

/// Each module (`store/users`, `api`, …; the crate root is "") and the text of its file.
fn modules(root: &std::path::Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap().with_extension("").to_string_lossy().replace('\\', "/");
                let name = rel.strip_suffix("/mod").map(str::to_owned).unwrap_or(rel);
                let name = if name == "lib" || name == "main" { String::new() } else { name };
                out.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// The paths a file names, as segments from the crate root.
fn paths(module: &str, text: &str) -> Vec<Vec<String>> {
    // Comment lines (docs included) may name modules without using them.
    let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let parent: Vec<String> = module.rsplit_once('/').map(|(p, _)| p.split('/').map(str::to_owned).collect()).unwrap_or_default();
    let mut found = Vec::new();
    let mut rest = code.as_str();
    let mut outside_uses = String::new();
    while let Some(at) = rest.find("use ") {
        let starts_word = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric() && rest.as_bytes()[at - 1] != b'_';
        let after = &rest[at + 4..];
        let end = after.find(';').unwrap_or(after.len());
        outside_uses.push_str(&rest[..at]);
        if starts_word && (after.starts_with("crate::") || after.starts_with("super::")) {
            found.extend(expand(&[], &after[..end]));
            rest = &after[end..];
        } else {
            outside_uses.push_str("use ");
            rest = after;
        }
    }
    outside_uses.push_str(rest);
    for keyword in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(i) = outside_uses[from..].find(keyword).map(|i| i + from) {
            from = i + keyword.len();
            let before = outside_uses[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let tail: String = outside_uses[i..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            found.push(tail.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect());
        }
    }
    found
        .into_iter()
        .filter_map(|segments| {
            let mut resolved = if segments.first().map(String::as_str) == Some("crate") { Vec::new() } else { parent.clone() };
            let mut segments = segments.into_iter().skip(1).peekable();
            // `super::super::…`
            while segments.peek().map(String::as_str) == Some("super") {
                segments.next();
                resolved.pop()?;
            }
            resolved.extend(segments.filter(|s| s != "self"));
            Some(resolved)
        })
        .collect()
}

/// `crate::a::{b, c::{d, e as f}}` as its paths.
fn expand(prefix: &[String], tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let base: Vec<String> =
            prefix.iter().cloned().chain(tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned)).collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut depth, mut start, mut out) = (0, 0, Vec::new());
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.extend(expand(&base, &inner[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !inner[start..].trim().is_empty() {
            out.extend(expand(&base, &inner[start..]));
        }
        return out;
    }
    let path = tree.split(" as ").next().unwrap_or(tree);
    vec![prefix.iter().cloned().chain(path.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned)).collect()]
}

/// Module -> the modules it names (the longest module prefix of each path), leaving out itself,
/// its ancestors and its descendants.
fn graph(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let related = |a: &str, b: &str| a == b || a.is_empty() || b.is_empty() || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"));
    modules
        .iter()
        .map(|(name, text)| {
            let targets = paths(name, text)
                .into_iter()
                .filter_map(|segments| (1..=segments.len()).rev().map(|k| segments[..k].join("/")).find(|m| modules.contains_key(m)))
                .filter(|target| !related(name, target))
                .collect();
            (name.clone(), targets)
        })
        .collect()
}

/// The circles: strongly connected components of more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[test]
fn backend_modules_never_import_each_other_in_a_circle() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&root);
    assert!(modules.len() > 40, "read only {} modules", modules.len());
    let graph = graph(&modules);
    assert!(graph["api/reports"].contains("store/reports"), "the reader finds a plain import");
    assert!(!graph["metrics"].contains("state"), "{:?}", graph["metrics"]);
    let found = circles(&graph);
    assert!(found.is_empty(), "modules that reach into each other in a circle: {found:?}");
}

#[test]
fn the_circle_finder_finds_circles_in_use_trees_inline_paths_and_through_super() {
    let files: BTreeMap<String, String> = [
        ("a".to_owned(), "use crate::{b::{self, Thing}, c as see};".to_owned()),
        ("b".to_owned(), "fn f() { crate::c::go(); }".to_owned()),
        ("c".to_owned(), "// crate::d in a comment is no import\nfn g() {}".to_owned()),
        ("d/x".to_owned(), "use super::y::Y;".to_owned()),
        ("d/y".to_owned(), "pub fn h() { super::x::X }".to_owned()),
        ("d".to_owned(), "use crate::a;".to_owned()),
    ]
    .into_iter()
    .collect();
    let graph = graph(&files);
    assert_eq!(graph["a"], ["b", "c"].map(str::to_owned).into_iter().collect());
    assert_eq!(graph["c"], BTreeSet::new());
    assert_eq!(circles(&graph), vec![vec!["d/x".to_owned(), "d/y".to_owned()]]);
}
