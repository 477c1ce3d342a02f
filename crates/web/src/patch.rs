//! The difference between two renders of a page part, as operations on the elements that carry an
//! `id`: what a live page needs to turn the `#main` it has into the new one without fetching it.
//!
//! Both renders are ours, so the parser is small: it knows the void elements, self-closing tags
//! (the QR codes' SVG), comments and `<?…?>` / `<!…>` declarations, and that the contents of
//! `<pre>`, `<script>`, `<style>` and `<textarea>` are text. Attribute values may be quoted with
//! `"` or `'`. Anything it does not understand (a tag left open, a close tag that closes nothing,
//! an id used twice) makes [`diff`] give up and replace the root: a patch is never wrong, at worst
//! it is big.
//!
//! [`diff`] compares an element with its namesake (same id):
//! - the same outer HTML: nothing;
//! - a different start tag (other attributes) on the same kind of element: an `attrs` op with the
//!   new start tag (form controls are replaced instead, as their attributes are also their state);
//! - the same content once each top-most id'ed descendant is replaced by a placeholder naming it:
//!   the descendants are compared pairwise;
//! - both contents only id'ed children, one after the other (a keyed list, like the log's
//!   `<ul>` of `<li id="e-SEQ">`): when the children kept stay in their order, a `remove` op for
//!   those dropped and an `insert` op for each run of new ones (before the kept child that
//!   follows it); otherwise a `children` op with the new order and the new children's HTML; and
//!   the children kept are compared pairwise;
//! - otherwise, or when the ops would be bigger than the element: a `replace` op.
//!
//! [`apply`] carries the ops out on an HTML string, as the page's script does on its document;
//! the tests check that applying `diff(old, new)` to `old` gives exactly `new`.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

/// One change to a page, addressed by element id.
///
/// An op that would carry much HTML may name instead the elements of the new page it is made of
/// (`fetch`, [`defer`]): the page fetches their outer HTML for the version the patch makes
/// (`GET /api/s/{token}/parts`) and puts it in (`Op::fill`) before carrying the patch out, so
/// a live message stays small when a turn's phase brings a form or a table whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Op {
    /// Replace the element (its outer HTML) with `html` (fetched: the element's new outer HTML).
    Replace {
        id: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        html: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        fetch: Vec<String>,
    },
    /// Give the element the attributes of the start tag `tag` (same element name), keeping its
    /// content.
    Attrs { id: String, tag: String },
    /// The element's content is its id'ed children: put them in `order`, the ones in `add` made
    /// from their HTML (or fetched, those in `fetch`), the others the element's own children
    /// with those ids (any other is removed).
    Children {
        id: String,
        order: Vec<String>,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        add: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        fetch: Vec<String>,
    },
    /// Remove the element's children with these ids.
    Remove { id: String, ids: Vec<String> },
    /// Insert `html` into the element before its child `before`, or at its end (fetched: the
    /// new elements `fetch`, one after the other).
    Insert {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<String>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        html: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        fetch: Vec<String>,
    },
}

impl Op {
    /// The element the op changes.
    pub fn id(&self) -> &str {
        match self {
            Op::Replace { id, .. }
            | Op::Attrs { id, .. }
            | Op::Children { id, .. }
            | Op::Remove { id, .. }
            | Op::Insert { id, .. } => id,
        }
    }

    /// Roughly what the op weighs once sent (its HTML and ids, and a little for the JSON).
    fn weight(&self) -> usize {
        const OVERHEAD: usize = 32;
        OVERHEAD
            + match self {
                Op::Replace { id, html, fetch } => id.len() + html.len() + ids_weight(fetch),
                Op::Attrs { id, tag } => id.len() + tag.len(),
                Op::Children {
                    id,
                    order,
                    add,
                    fetch,
                } => {
                    id.len()
                        + ids_weight(order)
                        + ids_weight(fetch)
                        + add
                            .iter()
                            .map(|(k, v)| k.len() + v.len() + 6)
                            .sum::<usize>()
                }
                Op::Remove { id, ids } => id.len() + ids_weight(ids),
                Op::Insert {
                    id,
                    before,
                    html,
                    fetch,
                } => {
                    id.len()
                        + before.as_ref().map_or(0, |b| b.len() + 12)
                        + html.len()
                        + ids_weight(fetch)
                }
            }
    }

    /// Put in the HTML of the elements the op names in `fetch`, from `parts` (each one's outer
    /// HTML, by id): the op is then whole, as [`diff`] made it before [`defer`].
    pub fn fill(&mut self, parts: &BTreeMap<String, String>) -> Result<(), String> {
        let part = |id: &String| {
            parts
                .get(id)
                .cloned()
                .ok_or_else(|| format!("the part {id:?} is missing"))
        };
        match self {
            Op::Replace { html, fetch, .. } | Op::Insert { html, fetch, .. } => {
                if !fetch.is_empty() {
                    *html = fetch.iter().map(part).collect::<Result<String, String>>()?;
                    fetch.clear();
                }
            }
            Op::Children { add, fetch, .. } => {
                for id in std::mem::take(fetch) {
                    add.insert(id.clone(), part(&id)?);
                }
            }
            Op::Attrs { .. } | Op::Remove { .. } => {}
        }
        Ok(())
    }

    /// Whether the op names parts of the page not yet put in ([`Op::fill`]).
    pub fn waits(&self) -> bool {
        match self {
            Op::Replace { fetch, .. } | Op::Insert { fetch, .. } | Op::Children { fetch, .. } => {
                !fetch.is_empty()
            }
            Op::Attrs { .. } | Op::Remove { .. } => false,
        }
    }

    /// The same op naming the elements its HTML is made of instead of carrying it, when it
    /// carries any: each is an element with an id in the new page.
    fn deferred(&self) -> Option<Op> {
        let mut op = self.clone();
        match &mut op {
            Op::Replace { id, html, fetch } if !html.is_empty() => {
                *fetch = vec![id.clone()];
                html.clear();
            }
            Op::Insert { html, fetch, .. } if !html.is_empty() => {
                // A run of new children, each with an id (a keyed list's).
                let t = parse(html).ok()?;
                let mut at = 0;
                for &c in &t.top {
                    let n = &t.nodes[c];
                    if !html[at..n.start].trim().is_empty() {
                        return None;
                    }
                    at = n.end;
                }
                if t.top.is_empty() || !html[at..].trim().is_empty() {
                    return None;
                }
                *fetch = t.top.iter().map(|&c| t.nodes[c].id.clone()).collect();
                html.clear();
            }
            Op::Children { add, fetch, .. } if !add.is_empty() => {
                fetch.extend(std::mem::take(add).into_keys());
            }
            _ => return None,
        }
        Some(op)
    }
}

/// What a list of ids weighs in an op.
fn ids_weight(ids: &[String]) -> usize {
    ids.iter().map(|x| x.len() + 3).sum()
}

/// Make `ops` weigh at most `budget` bytes once sent (JSON), where it can: the heaviest ops
/// name the elements of the new page they are made of instead of carrying their HTML
/// ([`Op::fill`] puts it back), one at a time until they fit or none is left to defer.
pub fn defer(ops: &mut [Op], budget: usize) {
    let size = |ops: &[Op]| serde_json::to_string(ops).map_or(usize::MAX, |s| s.len());
    let mut total = size(ops);
    while total > budget {
        let heaviest = ops
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                let d = o.deferred()?;
                (d.weight() < o.weight()).then_some((i, o.weight(), d))
            })
            .max_by_key(|(_, w, _)| *w);
        let Some((i, _, d)) = heaviest else {
            return;
        };
        ops[i] = d;
        total = size(ops);
    }
}

/// Why [`parts`] could not give the parts asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum PartsError {
    /// The page has no element with this id.
    Missing(String),
    /// The page cannot be read (a tag left open…).
    Unreadable,
}

/// The outer HTML of the elements `ids` of the page `html` (its `#main`), by id: what a deferred
/// op names ([`defer`]). An id on two elements gives the first, as the document's
/// `getElementById` does (a page [`diff`] could only replace whole).
pub fn parts(html: &str, ids: &[String]) -> Result<BTreeMap<String, String>, PartsError> {
    let t = parse_any(html).map_err(|_| PartsError::Unreadable)?;
    ids.iter()
        .map(|id| {
            let n = t
                .by_id
                .get(id)
                .map(|&n| &t.nodes[n])
                .ok_or_else(|| PartsError::Missing(id.clone()))?;
            Ok((id.clone(), html[n.start..n.end].to_string()))
        })
        .collect()
}

/// Elements that never have content or a close tag.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements whose content is text up to their close tag.
const RAW: [&str; 4] = ["pre", "script", "style", "textarea"];

/// Elements whose attributes are also their state: replaced whole, never given new attributes.
const CONTROLS: [&str; 4] = ["input", "select", "textarea", "button"];

/// An element that carries an id, where it is in its text, and its top-most id'ed descendants.
#[derive(Debug, Clone)]
struct Node {
    id: String,
    name: String,
    /// The `<` of its start tag.
    start: usize,
    /// Just after its start tag's `>`.
    open_end: usize,
    /// The `<` of its end tag (`open_end` for an element without one).
    close_start: usize,
    /// Just after its end tag.
    end: usize,
    /// Its top-most id'ed descendants, in order (indices into the arena).
    children: Vec<usize>,
    /// Whether its parent element is its nearest id'ed ancestor.
    direct: bool,
}

/// A parsed text: every id'ed element, the top-level ones, and where each id is (the first
/// element with it, as `getElementById` finds it).
#[derive(Debug)]
struct Tree {
    nodes: Vec<Node>,
    top: Vec<usize>,
    by_id: HashMap<String, usize>,
    /// An id on more than one element, if any.
    twice: Option<String>,
}

/// An element still open while parsing.
struct Open {
    name: String,
    /// Its node, when it carries an id.
    node: Option<usize>,
}

/// Parse a text whose ids are each on one element.
fn parse(s: &str) -> Result<Tree, String> {
    let t = parse_any(s)?;
    match &t.twice {
        Some(id) => Err(format!("the id {id:?} is used twice")),
        None => Ok(t),
    }
}

/// Parse a text, an id on two elements included (a document while a patch moves an element
/// from one list to another: added to the new one before it leaves the old).
fn parse_any(s: &str) -> Result<Tree, String> {
    let b = s.as_bytes();
    let mut nodes: Vec<Node> = Vec::new();
    let mut top = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut twice = None;
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &s[i..];
        if rest.starts_with("<!--") {
            let e = rest.find("-->").ok_or("a comment left open")?;
            i += e + 3;
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            let e = rest.find('>').ok_or("a declaration left open")?;
            i += e + 1;
            continue;
        }
        if let Some(after) = rest.strip_prefix("</") {
            let e = after.find('>').ok_or("an end tag left open")?;
            let name = after[..e].trim().to_ascii_lowercase();
            let open = stack
                .pop()
                .ok_or_else(|| format!("</{name}> closes nothing"))?;
            if open.name != name {
                return Err(format!("</{name}> closes <{}>", open.name));
            }
            let end = i + 2 + e + 1;
            if let Some(n) = open.node {
                nodes[n].close_start = i;
                nodes[n].end = end;
            }
            i = end;
            continue;
        }
        if !rest.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic) {
            // A `<` that starts no tag is text.
            i += 1;
            continue;
        }
        let name_len = rest[1..]
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b':')
            .count();
        let name = rest[1..1 + name_len].to_ascii_lowercase();
        let (open_end, id, self_closing) = start_tag(s, i + 1 + name_len)?;
        let void = self_closing || VOID.contains(&name.as_str());
        let parent = stack.iter().rev().find_map(|o| o.node);
        let node = match id {
            Some(id) => {
                let n = nodes.len();
                if by_id.contains_key(&id) {
                    twice.get_or_insert_with(|| id.clone());
                } else {
                    by_id.insert(id.clone(), n);
                }
                nodes.push(Node {
                    id,
                    name: name.clone(),
                    start: i,
                    open_end,
                    close_start: open_end,
                    end: open_end,
                    children: Vec::new(),
                    direct: stack.last().is_none_or(|o| o.node.is_some()),
                });
                match parent {
                    Some(p) => nodes[p].children.push(n),
                    None => top.push(n),
                }
                Some(n)
            }
            None => None,
        };
        i = open_end;
        if void {
            continue;
        }
        if RAW.contains(&name.as_str()) {
            // Text up to the end tag, which is then read as any other.
            let e = s[i..]
                .match_indices("</")
                .map(|(j, _)| j)
                .find(|&j| {
                    s.get(i + j + 2..i + j + 2 + name.len())
                        .is_some_and(|n| n.eq_ignore_ascii_case(&name))
                })
                .ok_or_else(|| format!("<{name}> left open"))?;
            i += e;
        }
        stack.push(Open { name, node });
    }
    if let Some(o) = stack.last() {
        return Err(format!("<{}> left open", o.name));
    }
    Ok(Tree {
        nodes,
        top,
        by_id,
        twice,
    })
}

/// Read a start tag's attributes from `i` (just after its name): where the tag ends, its id
/// (unescaped, as the document sees it) and whether it closes itself (`/>`).
fn start_tag(s: &str, mut i: usize) -> Result<(usize, Option<String>, bool), String> {
    let b = s.as_bytes();
    let mut id = None;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b.get(i) {
            None => return Err("a start tag left open".into()),
            Some(b'>') => return Ok((i + 1, id, false)),
            Some(b'/') if b.get(i + 1) == Some(&b'>') => return Ok((i + 2, id, true)),
            Some(b'/') => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let name_start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = s[name_start..i].to_ascii_lowercase();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = None;
        if b.get(i) == Some(&b'=') {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            match b.get(i) {
                Some(&q) if q == b'"' || q == b'\'' => {
                    let e = s[i + 1..]
                        .find(q as char)
                        .ok_or("an attribute value left open")?;
                    value = Some(&s[i + 1..i + 1 + e]);
                    i += e + 2;
                }
                _ => {
                    let v = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                        i += 1;
                    }
                    value = Some(&s[v..i]);
                }
            }
        }
        if name == "id" {
            id = Some(unescape(value.unwrap_or("")));
        }
    }
}

/// The text an escaped attribute value stands for (the entities our pages write).
fn unescape(v: &str) -> String {
    if !v.contains('&') {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(e) = rest.find(';').filter(|e| *e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..e];
        let c = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The one element a whole text is, when it is exactly one id'ed element.
fn root(t: &Tree, s: &str) -> Option<usize> {
    match t.top.as_slice() {
        [r] if t.nodes[*r].start == 0 && t.nodes[*r].end == s.len() => Some(*r),
        _ => None,
    }
}

/// The ops that turn `old` into `new`, each the outer HTML of one element with an id (a page's
/// `#main`). When either cannot be read, or their roots differ, the one op replaces the root.
pub fn diff(old: &str, new: &str) -> Vec<Op> {
    if old == new {
        return Vec::new();
    }
    let replace_root = |id: &str| {
        vec![Op::Replace {
            id: id.to_string(),
            html: new.to_string(),
            fetch: Vec::new(),
        }]
    };
    let (Ok(ot), Ok(nt)) = (parse(old), parse(new)) else {
        let id = parse(old)
            .ok()
            .and_then(|t| root(&t, old).map(|r| t.nodes[r].id.clone()))
            .unwrap_or_else(|| "main".into());
        return replace_root(&id);
    };
    let (Some(or), Some(nr)) = (root(&ot, old), root(&nt, new)) else {
        let id = root(&ot, old).map_or_else(|| "main".into(), |r| ot.nodes[r].id.clone());
        return replace_root(&id);
    };
    if ot.nodes[or].id != nt.nodes[nr].id {
        return replace_root(&ot.nodes[or].id);
    }
    let d = Differ {
        old,
        new,
        ot: &ot,
        nt: &nt,
    };
    d.node(or, nr)
}

struct Differ<'a> {
    old: &'a str,
    new: &'a str,
    ot: &'a Tree,
    nt: &'a Tree,
}

/// A piece of an element's content: text, or a top-most id'ed descendant.
#[derive(PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Child(&'a str),
}

impl Differ<'_> {
    /// The ops that turn old node `o` into new node `n` (same id).
    fn node(&self, o: usize, n: usize) -> Vec<Op> {
        let (on, nn) = (&self.ot.nodes[o], &self.nt.nodes[n]);
        let outer_new = &self.new[nn.start..nn.end];
        if self.old[on.start..on.end] == *outer_new {
            return Vec::new();
        }
        let replace = vec![Op::Replace {
            id: nn.id.clone(),
            html: outer_new.to_string(),
            fetch: Vec::new(),
        }];
        if on.name != nn.name {
            return replace;
        }
        let mut ops = Vec::new();
        let new_tag = &self.new[nn.start..nn.open_end];
        if self.old[on.start..on.open_end] != *new_tag {
            if CONTROLS.contains(&nn.name.as_str()) {
                return replace;
            }
            ops.push(Op::Attrs {
                id: nn.id.clone(),
                tag: new_tag.to_string(),
            });
        }
        let (op, np) = (pieces(self.old, self.ot, on), pieces(self.new, self.nt, nn));
        if op == np {
            for (&a, &b) in on.children.iter().zip(&nn.children) {
                ops.extend(self.node(a, b));
            }
        } else if keyed(self.ot, on) && keyed(self.nt, nn) {
            let before: HashMap<&str, usize> = on
                .children
                .iter()
                .map(|&c| (self.ot.nodes[c].id.as_str(), c))
                .collect();
            let mut add = BTreeMap::new();
            let mut kept = Vec::new();
            for &c in &nn.children {
                let child = &self.nt.nodes[c];
                match before.get(child.id.as_str()) {
                    Some(&oc) => kept.push((oc, c)),
                    None => {
                        add.insert(
                            child.id.clone(),
                            self.new[child.start..child.end].to_string(),
                        );
                    }
                }
            }
            ops.extend(self.list(on, nn, add, &kept));
            for (a, b) in kept {
                ops.extend(self.node(a, b));
            }
        } else {
            return replace;
        }
        let weight: usize = ops.iter().map(Op::weight).sum();
        if weight >= replace[0].weight() {
            return replace;
        }
        ops
    }
}

impl Differ<'_> {
    /// The ops that turn keyed list `o` into `n` (their kept children aside): the children
    /// dropped removed and the new ones inserted where they go when the kept ones stay in their
    /// order, else the whole new order.
    fn list(
        &self,
        o: &Node,
        n: &Node,
        add: BTreeMap<String, String>,
        kept: &[(usize, usize)],
    ) -> Vec<Op> {
        let old_ids: Vec<&str> = o
            .children
            .iter()
            .map(|&c| self.ot.nodes[c].id.as_str())
            .collect();
        let new_ids: Vec<&str> = n
            .children
            .iter()
            .map(|&c| self.nt.nodes[c].id.as_str())
            .collect();
        let kept_in_old: Vec<&str> = kept
            .iter()
            .map(|&(a, _)| self.ot.nodes[a].id.as_str())
            .collect();
        let mut kept_sorted = kept_in_old.clone();
        kept_sorted.sort_by_key(|id| old_ids.iter().position(|x| x == id));
        if kept_in_old != kept_sorted {
            return vec![Op::Children {
                id: n.id.clone(),
                order: new_ids.iter().map(|x| x.to_string()).collect(),
                add,
                fetch: Vec::new(),
            }];
        }
        let mut ops = Vec::new();
        let removed: Vec<String> = old_ids
            .iter()
            .filter(|id| !new_ids.contains(id))
            .map(|x| x.to_string())
            .collect();
        if !removed.is_empty() {
            ops.push(Op::Remove {
                id: n.id.clone(),
                ids: removed,
            });
        }
        // Each run of new children goes in before the kept child after it.
        let mut i = 0;
        while i < n.children.len() {
            if !add.contains_key(new_ids[i]) {
                i += 1;
                continue;
            }
            let mut html = String::new();
            while i < n.children.len() && add.contains_key(new_ids[i]) {
                let c = &self.nt.nodes[n.children[i]];
                html.push_str(&self.new[c.start..c.end]);
                i += 1;
            }
            ops.push(Op::Insert {
                id: n.id.clone(),
                before: new_ids.get(i).map(|x| x.to_string()),
                html,
                fetch: Vec::new(),
            });
        }
        ops
    }
}

/// An element's content with its top-most id'ed descendants as placeholders.
fn pieces<'a>(s: &'a str, t: &'a Tree, n: &Node) -> Vec<Piece<'a>> {
    let mut out = Vec::new();
    let mut at = n.open_end;
    for &c in &n.children {
        let child = &t.nodes[c];
        out.push(Piece::Text(&s[at..child.start]));
        out.push(Piece::Child(&child.id));
        at = child.end;
    }
    out.push(Piece::Text(&s[at..n.close_start]));
    out
}

/// Whether an element's content is nothing but its id'ed children, one after the other.
fn keyed(t: &Tree, n: &Node) -> bool {
    let mut at = n.open_end;
    for &c in &n.children {
        let child = &t.nodes[c];
        if !child.direct || child.start != at {
            return false;
        }
        at = child.end;
    }
    at == n.close_start && n.close_start < n.end
}

/// Carry out `ops` on `html`, as the page's script does: each op on the element with its id (the
/// first in the text, as `getElementById` finds it: while an element moves from one list to
/// another its id is briefly on two, and no op is for it), a `children` op's kept children among
/// the element's own. An op that cannot be carried out is an error, and so is a result with an
/// id on two elements.
pub fn apply(html: &str, ops: &[Op]) -> Result<String, String> {
    let mut s = html.to_string();
    for op in ops {
        if op.waits() {
            return Err(format!("the parts of {:?} were not fetched", op.id()));
        }
        let t = parse_any(&s)?;
        let &n = t
            .by_id
            .get(op.id())
            .ok_or_else(|| format!("no element {:?}", op.id()))?;
        let node = &t.nodes[n];
        match op {
            Op::Replace { html, .. } => s.replace_range(node.start..node.end, html),
            Op::Attrs { tag, .. } => {
                let name: String = tag
                    .strip_prefix('<')
                    .unwrap_or("")
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == ':')
                    .collect();
                if !name.eq_ignore_ascii_case(&node.name) || !tag.ends_with('>') {
                    return Err(format!("{tag:?} is not a <{}> tag", node.name));
                }
                s.replace_range(node.start..node.open_end, tag);
            }
            Op::Children { order, add, .. } => {
                if !keyed(&t, node) {
                    return Err(format!("{:?} is not a list of id'ed children", node.id));
                }
                let mut have: HashMap<&str, &Node> = HashMap::new();
                for &c in &node.children {
                    have.entry(t.nodes[c].id.as_str()).or_insert(&t.nodes[c]);
                }
                let mut seen = HashSet::new();
                let mut content = String::new();
                for id in order {
                    if !seen.insert(id) {
                        return Err(format!("{id:?} twice in an order"));
                    }
                    match (add.get(id), have.get(id.as_str())) {
                        (Some(h), _) => content.push_str(h),
                        (None, Some(c)) => content.push_str(&s[c.start..c.end]),
                        (None, None) => return Err(format!("no child {id:?} to keep")),
                    }
                }
                if let Some(k) = add.keys().find(|k| !seen.contains(k)) {
                    return Err(format!("{k:?} added but not placed"));
                }
                s.replace_range(node.open_end..node.close_start, &content);
            }
            Op::Remove { ids, .. } => {
                let mut ranges = Vec::new();
                for id in ids {
                    let c = child(&t, node, id)?;
                    ranges.push(c.start..c.end);
                }
                ranges.sort_by_key(|r| std::cmp::Reverse(r.start));
                for r in ranges {
                    s.replace_range(r, "");
                }
            }
            Op::Insert { before, html, .. } => {
                if node.close_start == node.end {
                    return Err(format!("<{}> has no content", node.name));
                }
                let at = match before {
                    Some(b) => child(&t, node, b)?.start,
                    None => node.close_start,
                };
                s.insert_str(at, html);
            }
        }
    }
    // The result must be readable, as the document would be.
    parse(&s)?;
    Ok(s)
}

/// The child of `node` (an element directly in it) with id `id`.
fn child<'a>(t: &'a Tree, node: &Node, id: &str) -> Result<&'a Node, String> {
    node.children
        .iter()
        .map(|&c| &t.nodes[c])
        .find(|c| c.direct && c.id == id)
        .ok_or_else(|| format!("{:?} has no child {id:?}", node.id))
}

/// The ids in a text, or why it cannot be read (a tag left open, an id used twice…).
pub fn ids(html: &str) -> Result<Vec<String>, String> {
    let t = parse(html)?;
    Ok(t.nodes.into_iter().map(|n| n.id).collect())
}

#[cfg(test)]
mod tests;
