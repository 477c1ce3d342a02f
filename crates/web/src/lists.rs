//! Lists sent once (issue 43, item 10): the forms of a turn offer the same choices over and over
//! (the ground, the units of a side, the statuses), and each `<select>` carried them all, some
//! 45 KB of Cerignola's game master's page. A list whose options are those of an earlier list on
//! the page is sent empty, naming that list and a hash of its options
//! (`data-options="ID:HASH"`); the page's script fills it from the named list before anything
//! reads it. The hash makes the empty list's own HTML change whenever its options do, so a live
//! patch replaces it (form controls are replaced whole, [`crate::patch`]) and the script fills it
//! again; a list whose options never change is never sent again.
//!
//! Lists of what acts (`data-resets`) keep their options: each carries an id that live patches
//! address, and the script marks them from `/choices`. Short lists are kept as they are.

use std::collections::HashMap;

/// Lists shorter than this (their options' HTML, in bytes) are sent as they are.
const SHORTEST: usize = 120;

/// `html` with every list whose options repeat an earlier list's sent empty, naming it.
pub fn shared(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut first: HashMap<&str, &str> = HashMap::new();
    let mut rest = html;
    while let Some(at) = rest.find("<select") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let (Some(open_end), Some(close)) = (from.find('>'), from.find("</select>")) else {
            out.push_str(from);
            return out;
        };
        if close < open_end {
            out.push_str(from);
            return out;
        }
        let start = &from[..open_end];
        let body = &from[open_end + 1..close];
        let id = attr(start, "id");
        match (id, first.get(body)) {
            (Some(_), Some(source))
                if !start.contains(" data-resets") && body.len() >= SHORTEST =>
            {
                out.push_str(&format!(
                    "{start} data-options=\"{source}:{:08x}\"></select>",
                    fnv(body)
                ));
            }
            _ => {
                if let Some(id) = id.filter(|_| !start.contains(" data-resets")) {
                    first.entry(body).or_insert(id);
                }
                out.push_str(&from[..close + "</select>".len()]);
            }
        }
        rest = &from[close + "</select>".len()..];
    }
    out.push_str(rest);
    out
}

/// The value of attribute `name` in a start tag (double-quoted, as the pages write them).
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let len = tag[at..].find('"')?;
    Some(&tag[at..at + len])
}

/// 32-bit FNV-1a of a text.
pub(crate) fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = "<option value=\"open\">open ground, nothing in the way</option><option value=\"rough\">rough ground, woods, vines</option><option value=\"obstacle\">an obstacle</option>";

    /// The second list like the first is sent empty, naming the first and its options' hash; a
    /// list of what acts, a short list and another list are sent whole.
    #[test]
    fn a_repeated_list_is_sent_once() {
        let html = format!(
            "<form><select name=\"a\" id=\"f-1-a\">{LONG}</select><select name=\"b\" id=\"f-2-b\">{LONG}</select><select name=\"u\" id=\"f-2-u\" data-resets>{LONG}</select><select name=\"c\" id=\"f-3-c\"><option value=\"x\">x</option></select><select name=\"d\" id=\"f-3-d\"><option value=\"x\">x</option></select><select name=\"e\" id=\"f-4-e\" multiple size=\"2\">{LONG}</select></form>"
        );
        let out = shared(&html);
        let hash = format!("{:08x}", fnv(LONG));
        assert_eq!(
            out,
            format!(
                "<form><select name=\"a\" id=\"f-1-a\">{LONG}</select><select name=\"b\" id=\"f-2-b\" data-options=\"f-1-a:{hash}\"></select><select name=\"u\" id=\"f-2-u\" data-resets>{LONG}</select><select name=\"c\" id=\"f-3-c\"><option value=\"x\">x</option></select><select name=\"d\" id=\"f-3-d\"><option value=\"x\">x</option></select><select name=\"e\" id=\"f-4-e\" multiple size=\"2\" data-options=\"f-1-a:{hash}\"></select></form>"
            )
        );
        // Other options, another hash: a live patch replaces the empty list too.
        let other = html.replace("an obstacle", "a stream");
        assert_ne!(shared(&other), out);
        assert!(shared(&other).contains(&format!(
            "{:08x}",
            fnv(&LONG.replace("an obstacle", "a stream"))
        )));
        // Nothing else is touched.
        assert_eq!(shared("<p>no lists</p>"), "<p>no lists</p>");
    }
}
