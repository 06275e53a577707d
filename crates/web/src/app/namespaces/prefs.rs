//! What the browser remembers between visits: the namespaces the user chose
//! (`localStorage`), so a user who may not list namespaces finds theirs again.

/// The `localStorage` key.
pub const KEY: &str = "kubelive.namespaces";
/// Namespaces remembered, newest first.
const KEEP: usize = 20;

/// `list` after `ns` was used: first, once, at most `KEEP`; names that are not
/// namespace names are dropped.
pub fn remembering(list: &[String], ns: &str) -> Vec<String> {
    std::iter::once(ns)
        .chain(list.iter().map(String::as_str))
        .filter(|n| crate::app::query::is_dns_label(n))
        .fold(Vec::new(), |mut out: Vec<String>, n| {
            if !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
            out
        })
        .into_iter()
        .take(KEEP)
        .collect()
}

/// Reads a stored list (anything unreadable is an empty list).
pub fn parse(stored: Option<&str>) -> Vec<String> {
    // A list of strings, else nothing (a `Value` walked: no typed reader for one list).
    let strings = |v: serde_json::Value| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect()
    };
    let list = stored
        .and_then(|s| serde_json::from_str(s).ok())
        .and_then(strings)
        .unwrap_or_default();
    list.into_iter()
        .filter(|n| crate::app::query::is_dns_label(n))
        .take(KEEP)
        .collect()
}

fn storage() -> Option<web_sys::Storage> {
    // Storage can be refused (privacy settings): then nothing is remembered.
    web_sys::window()?.local_storage().ok().flatten()
}

/// The namespaces remembered, newest first.
pub fn remembered() -> Vec<String> {
    let stored = storage().and_then(|s| s.get_item(KEY).ok().flatten());
    parse(stored.as_deref())
}

/// Remembers that `ns` was used.
pub fn remember(ns: &str) {
    let Some(s) = storage() else { return };
    let list = remembering(&parse(s.get_item(KEY).ok().flatten().as_deref()), ns);
    if let Ok(json) = serde_json::to_string(&list) {
        let _ = s.set_item(KEY, &json);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_first_once_and_only_names() {
        let list = remembering(&[], "team-a");
        let list = remembering(&list, "team-b");
        let list = remembering(&list, "team-a");
        assert_eq!(list, ["team-a", "team-b"]);
        assert_eq!(remembering(&list, "../x"), ["team-a", "team-b"]);
        let mut many = Vec::new();
        for i in 0..30 {
            many = remembering(&many, &format!("ns-{i}"));
        }
        assert_eq!(many.len(), KEEP);
        assert_eq!(many[0], "ns-29");
    }

    #[test]
    fn reads_what_it_stored_and_ignores_the_rest() {
        assert_eq!(parse(Some(r#"["a","B","c"]"#)), ["a", "c"]);
        assert_eq!(parse(Some("not json")), Vec::<String>::new());
        assert_eq!(parse(None), Vec::<String>::new());
        assert_eq!(parse(Some(r#"["a",1]"#)), Vec::<String>::new());
        assert_eq!(parse(Some(r#"{"a":"b"}"#)), Vec::<String>::new());
    }
}
