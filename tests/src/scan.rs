//! Cheap looks into the sim's documents, for the harness's bookkeeping. The sim writes
//! compact JSON with `metadata` keys in order, so the first `"resourceVersion":"` of an
//! event line is the object's; the harness never relies on this for real servers.

/// What kind of line a watch stream carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
    Other,
}

/// The facts the harness needs from one complete watch line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineInfo {
    pub ty: LineType,
    pub rv: Option<u64>,
    pub initial_events_end: bool,
    /// `code` of an ERROR's Status.
    pub code: Option<u16>,
}

pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

fn digits_after(hay: &[u8], at: usize) -> Option<u64> {
    let rest = &hay[at..];
    let end = rest
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if end == 0 {
        return None;
    }
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

/// The first `"resourceVersion":"N"` in `doc`.
pub fn first_rv(doc: &[u8]) -> Option<u64> {
    const KEY: &[u8] = b"\"resourceVersion\":\"";
    let at = find(doc, KEY)?;
    digits_after(doc, at + KEY.len())
}

pub fn inspect_line(line: &[u8]) -> LineInfo {
    const TYPE: &[u8] = b"{\"type\":\"";
    let ty = if line.starts_with(TYPE) {
        let rest = &line[TYPE.len()..];
        let end = rest.iter().position(|&c| c == b'"').unwrap_or(0);
        match &rest[..end] {
            b"ADDED" => LineType::Added,
            b"MODIFIED" => LineType::Modified,
            b"DELETED" => LineType::Deleted,
            b"BOOKMARK" => LineType::Bookmark,
            b"ERROR" => LineType::Error,
            _ => LineType::Other,
        }
    } else {
        LineType::Other
    };
    let code = if ty == LineType::Error {
        memchr::memmem::rfind(line, b"\"code\":").and_then(|at| digits_after(line, at + 7))
    } else {
        None
    }
    .map(|c| c.min(999) as u16);
    LineInfo {
        ty,
        rv: if ty == LineType::Error {
            None
        } else {
            first_rv(line)
        },
        initial_events_end: ty == LineType::Bookmark
            && find(line, b"k8s.io/initial-events-end").is_some(),
        code,
    }
}

/// `metadata.resourceVersion` and whether a continue token follows, from a list body
/// (a plain list, or a Table: its metadata comes before its definitions and rows).
pub fn list_meta(body: &[u8]) -> (Option<u64>, bool) {
    let head_end = [&b"\"items\":"[..], b"\"columnDefinitions\":", b"\"rows\":"]
        .iter()
        .filter_map(|k| find(body, k))
        .min()
        .unwrap_or(body.len());
    let head = &body[..head_end];
    let more = find(head, b"\"continue\":\"")
        .is_some_and(|at| head.get(at + 12).is_some_and(|&c| c != b'"'));
    (first_rv(head), more)
}

/// The value of query parameter `key` (not decoded: the harness compares numbers).
pub fn query_param<'a>(path: &'a str, key: &str) -> Option<&'a str> {
    let (_, q) = path.split_once('?')?;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == key).then_some(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspects_lines() {
        let l = br#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"42","annotations":{"k8s.io/initial-events-end":"true"}}}}"#;
        let i = inspect_line(l);
        assert_eq!(i.ty, LineType::Bookmark);
        assert_eq!(i.rv, Some(42));
        assert!(i.initial_events_end);
        let e = br#"{"type":"ERROR","object":{"kind":"Status","code":410}}"#;
        assert_eq!(inspect_line(e).code, Some(410));
        assert_eq!(
            list_meta(br#"{"metadata":{"resourceVersion":"7","continue":"abc"},"items":[]}"#),
            (Some(7), true)
        );
        assert_eq!(
            list_meta(br#"{"metadata":{"resourceVersion":"7","continue":""},"items":[]}"#),
            (Some(7), false)
        );
        assert_eq!(
            query_param("/p?watch=true&resourceVersion=12", "resourceVersion"),
            Some("12")
        );
        // Tables (kube-apiserver's `as=Table` answers): the list's metadata comes first,
        // and a one-row Table's metadata carries its object's version.
        let t = br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9","continue":"x"},"columnDefinitions":[],"rows":[{"cells":[],"object":{"metadata":{"resourceVersion":"3","continue":""}}}]}"#;
        assert_eq!(list_meta(t), (Some(9), true));
        let e = br#"{"type":"MODIFIED","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"12"},"columnDefinitions":null,"rows":[{"cells":["a"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","resourceVersion":"12"}}}]}}"#;
        assert_eq!(inspect_line(e).rv, Some(12));
    }
}
