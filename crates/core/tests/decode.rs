//! Decoder tests, h11 style: every fixture fed whole, byte by byte and at seeded
//! random split points must give identical frames; errors are typed, never panics.

use kubelive_core::decode::{ListDecoder, ListMeta, WatchDecoder, WatchFrame};
use kubelive_core::{Cell, ColumnKind, DecodeError, Limits, Object, ParseOptions};

use kubelive_sim::Rng;
use serde_json::Value;

/// A realistic pod (`kubelive_sim::pod_json`) as a value, at resourceVersion `rv`.
fn sim_pod(seed: u64, index: u64, rv: u64) -> Value {
    let mut v: Value = serde_json::from_str(&kubelive_sim::pod_json(seed, index)).unwrap();
    v["metadata"]["resourceVersion"] = rv.to_string().into();
    v
}

const PODS: ParseOptions = ParseOptions {
    metadata: kubelive_core::KeptMetadata::All,
    strip_managed_fields: false,
    columns: ColumnKind::Pod,
};

// ---------------------------------------------------------------- feeding helpers

/// The ways a body can be cut into chunks.
fn splits(len: usize) -> Vec<Vec<usize>> {
    let mut all = vec![vec![len], vec![1; len]];
    for seed in 1..=6u64 {
        let mut rng = Rng::new(seed);
        let mut sizes = Vec::new();
        let mut left = len;
        let max = [3, 17, 200, 4096, 65536, 7][seed as usize % 6];
        while left > 0 {
            let n = (1 + rng.below(max) as usize).min(left);
            sizes.push(n);
            left -= n;
        }
        all.push(sizes);
    }
    all
}

type WatchResult = (Vec<WatchFrame>, Result<(), DecodeError>);

fn watch_with(body: &[u8], sizes: &[usize], limits: Limits, opts: ParseOptions) -> WatchResult {
    let mut dec = WatchDecoder::new(limits, opts);
    let mut out = Vec::new();
    let mut at = 0;
    for &n in sizes {
        let chunk = &body[at..at + n];
        at += n;
        let r = dec.feed(chunk, &mut out);
        assert!(
            dec.buffered() <= limits.max_document_bytes + chunk.len(),
            "buffered {} over the limit",
            dec.buffered()
        );
        if let Err(e) = r {
            return (out, Err(e));
        }
    }
    let r = dec.finish(&mut out);
    (out, r)
}

/// Feeds `body` every way and checks all ways agree; returns the common result.
fn watch_all(body: &[u8], limits: Limits, opts: ParseOptions) -> WatchResult {
    let mut first: Option<WatchResult> = None;
    for sizes in splits(body.len()) {
        let r = watch_with(body, &sizes, limits, opts);
        match &first {
            None => first = Some(r),
            Some(f) => assert_eq!(&r, f, "split {:?}", &sizes[..sizes.len().min(8)]),
        }
    }
    first.unwrap()
}

fn watch(body: &[u8]) -> WatchResult {
    watch_all(body, Limits::default(), PODS)
}

type ListResult = (Vec<Object>, Result<ListMeta, DecodeError>);

fn list_with(body: &[u8], sizes: &[usize], limits: Limits, opts: ParseOptions) -> ListResult {
    let mut dec = ListDecoder::new(limits, opts);
    let mut out = Vec::new();
    let mut at = 0;
    for &n in sizes {
        let chunk = &body[at..at + n];
        at += n;
        let r = dec.feed(chunk, &mut out);
        assert!(dec.buffered() <= limits.max_document_bytes + chunk.len());
        if let Err(e) = r {
            return (out, Err(e));
        }
    }
    let r = dec.finish();
    (out, r)
}

fn list_all(body: &[u8], limits: Limits, opts: ParseOptions) -> ListResult {
    let mut first: Option<ListResult> = None;
    for sizes in splits(body.len()) {
        let r = list_with(body, &sizes, limits, opts);
        match &first {
            None => first = Some(r),
            Some(f) => assert_eq!(&r, f, "split {:?}", &sizes[..sizes.len().min(8)]),
        }
    }
    first.unwrap()
}

fn obj(f: &WatchFrame) -> &Object {
    match f {
        WatchFrame::Added(o) | WatchFrame::Modified(o) | WatchFrame::Deleted(o) => o,
        other => panic!("not an object frame: {other:?}"),
    }
}

fn pod_json(name: &str, ns: &str, rv: &str) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{name}","resourceVersion":"{rv}","creationTimestamp":"2025-01-02T03:04:05Z","labels":{{"app":"web"}}}},"spec":{{"nodeName":"n1","containers":[{{"name":"a"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"a","ready":true,"restartCount":2}}]}}}}"#
    )
}

// ---------------------------------------------------------------- fixtures

fn watch_fixture() -> Vec<u8> {
    let mut s = String::new();
    s += &format!(
        "{{\"type\":\"ADDED\",\"object\":{}}}\n",
        pod_json("a", "default", "10")
    );
    s += &format!(
        "{{\"type\":\"MODIFIED\",\"object\":{}}}\n",
        pod_json("a", "default", "11")
    );
    // "object" before "type", whitespace between tokens, CRLF ending, blank lines.
    s += &format!(
        "{{ \"object\" : {} , \"type\" : \"ADDED\" }}\r\n\r\n\n",
        pod_json("b", "kube-system", "12")
    );
    // Unicode names and labels, escaped strings.
    s += "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"caf\u{e9}-\u{65e5}\u{672c}-\u{1f600}\",\"namespace\":\"d\\u00e9v\",\"resourceVersion\":\"13\",\"labels\":{\"k\u{e9}y\":\"v\u{1f680}\",\"quote\":\"a\\\"b\\nc\\u00e9\"}},\"status\":{\"phase\":\"Pending\"}}}\n";
    s += "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"14\",\"creationTimestamp\":null},\"spec\":{\"containers\":null},\"status\":{}}}\n";
    s += &format!(
        "{{\"type\":\"DELETED\",\"object\":{}}}\n",
        pod_json("a", "default", "15")
    );
    s += "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"16\",\"annotations\":{\"other.io/x\":\"1\",\"k8s.io/initial-events-end\":\"true\"}}}}\n";
    s += "\t{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1 (3171407)\",\"reason\":\"Expired\",\"code\":410}}\n";
    s.into_bytes()
}

#[test]
fn watch_fixture_all_splits() {
    let (frames, r) = watch(&watch_fixture());
    r.unwrap();
    assert_eq!(frames.len(), 8);
    let a = obj(&frames[0]);
    assert!(matches!(frames[0], WatchFrame::Added(_)));
    assert_eq!(
        (a.namespace(), a.name(), a.uid(), a.resource_version()),
        ("default", "a", "u-a", "10")
    );
    assert_eq!(a.creation_timestamp(), Some("2025-01-02T03:04:05Z"));
    assert_eq!(a.deletion_timestamp(), None);
    assert_eq!(a.labels(), vec![("app".to_string(), "web".to_string())]);
    assert_eq!(a.json(), pod_json("a", "default", "10").as_bytes());
    assert!(matches!(frames[1], WatchFrame::Modified(_)));
    let b = obj(&frames[2]);
    assert!(matches!(frames[2], WatchFrame::Added(_)));
    assert_eq!((b.namespace(), b.name()), ("kube-system", "b"));
    let u = obj(&frames[3]);
    assert_eq!(u.name(), "caf\u{e9}-\u{65e5}\u{672c}-\u{1f600}");
    assert_eq!(u.namespace(), "d\u{e9}v", "escaped field decoded");
    assert_eq!(u.uid(), "");
    assert_eq!(
        u.labels(),
        vec![
            ("k\u{e9}y".to_string(), "v\u{1f680}".to_string()),
            ("quote".to_string(), "a\"b\nc\u{e9}".to_string()),
        ]
    );
    // The stored JSON is still the raw (escaped) text and parses.
    let v: serde_json::Value = serde_json::from_slice(&u.json()).unwrap();
    assert_eq!(v["metadata"]["namespace"], "d\u{e9}v");
    assert_eq!(
        frames[4],
        WatchFrame::Bookmark {
            resource_version: "14".into(),
            initial_events_end: false
        }
    );
    assert!(matches!(frames[5], WatchFrame::Deleted(_)));
    assert_eq!(obj(&frames[5]).resource_version(), "15");
    assert_eq!(
        frames[6],
        WatchFrame::Bookmark {
            resource_version: "16".into(),
            initial_events_end: true
        }
    );
    match &frames[7] {
        WatchFrame::Error { status } => {
            let v: serde_json::Value = serde_json::from_slice(status).unwrap();
            assert_eq!(v["code"], 410);
            assert_eq!(v["reason"], "Expired");
        }
        f => panic!("{f:?}"),
    }
}

#[test]
fn error_504_status_line() {
    let line = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 20000, current: 10245","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}}"#;
    let mut body = line.to_vec();
    body.push(b'\n');
    let (frames, r) = watch(&body);
    r.unwrap();
    let obj_start = line.windows(9).position(|w| w == b"\"object\":").unwrap() + 9;
    assert_eq!(
        frames,
        vec![WatchFrame::Error {
            status: line[obj_start..line.len() - 1].into()
        }]
    );
}

#[test]
fn realistic_stream_all_splits() {
    let events = 40;
    let body = kubelive_sim::watch_event_stream(3, events);
    let (frames, r) = watch(&body);
    r.unwrap();
    assert_eq!(frames.len(), events);
    // Agrees with serde_json on every object.
    for (line, f) in body.split(|&c| c == b'\n').zip(&frames) {
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        match f {
            WatchFrame::Bookmark {
                resource_version, ..
            } => assert_eq!(
                v["object"]["metadata"]["resourceVersion"],
                **resource_version
            ),
            f => {
                let o = obj(f);
                let m = &v["object"]["metadata"];
                assert_eq!(m["name"], o.name());
                assert_eq!(m["namespace"], o.namespace());
                assert_eq!(m["uid"], o.uid());
                assert_eq!(m["resourceVersion"], o.resource_version());
                assert_eq!(
                    serde_json::from_slice::<serde_json::Value>(&o.json()).unwrap(),
                    v["object"]
                );
            }
        }
    }
}

#[test]
fn last_document_without_newline_is_emitted() {
    let mut body = watch_fixture();
    body.pop();
    let (frames, r) = watch(&body);
    r.unwrap();
    assert_eq!(frames.len(), 8);
}

// ---------------------------------------------------------------- error cases

#[test]
fn html_page_is_not_json() {
    let body =
        b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body></html>\r\n";
    let (frames, r) = watch(body);
    assert!(frames.is_empty());
    assert_eq!(
        r,
        Err(DecodeError::NotJson {
            snippet: "<html>".into()
        })
    );
    let long = format!(
        "<!DOCTYPE html><html><body>{}</body></html>",
        "x".repeat(500)
    );
    let (_, r) = watch(long.as_bytes());
    match &r {
        Err(DecodeError::NotJson { snippet }) => {
            assert!(snippet.starts_with("<!DOCTYPE html>") && snippet.len() <= 80)
        }
        r => panic!("{r:?}"),
    }
    let msg = r.unwrap_err().to_string();
    assert!(msg.contains("not JSON"), "{msg}");
}

#[test]
fn plain_text_is_not_json() {
    for body in [
        &b"Error: something"[..],
        b"Error: something\n",
        b"404 page not found\n",
    ] {
        let (frames, r) = watch(body);
        assert!(frames.is_empty());
        let text = String::from_utf8_lossy(body).trim_end().to_string();
        assert_eq!(r, Err(DecodeError::NotJson { snippet: text }));
    }
    let (_, r) = list_all(b"Error: something", Limits::default(), PODS);
    assert_eq!(
        r,
        Err(DecodeError::NotJson {
            snippet: "Error: something".into()
        })
    );
    let html = format!("<html>{}</html>", "y".repeat(300));
    let (_, r) = list_all(html.as_bytes(), Limits::default(), PODS);
    assert!(matches!(r, Err(DecodeError::NotJson { .. })), "{r:?}");
}

#[test]
fn malformed_mid_stream_delivers_frames_before() {
    let good = watch_fixture();
    let good_lines = 3;
    let mut body: Vec<u8> = good
        .split_inclusive(|&c| c == b'\n')
        .take(good_lines)
        .flatten()
        .copied()
        .collect();
    let n_frames = watch(&body).0.len();
    for bad in [
        &br#"{"type":"ADDED","object":{"metadata":}}"#[..],
        br#"{"type":"ADDED","object":{"metadata":{"name":"x","resourceVersion":"1"}}"#,
        br#"{"type":"ADDED","object":{"metadata":{"name":"x","resourceVersion":"1"}}}}"#,
        br#"{"type":"ADDED","object":{"metadata":{"name":"x","resourceVersion":01}}}"#,
        br#"{"type":"ADDED","object":{"metadata":{"name":"x","resourceVersion":"1"}},"x":tru}"#,
        b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\tb\",\"resourceVersion\":\"1\"}}}",
        b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\xffb\",\"resourceVersion\":\"1\"}}}",
        br#"{"type":"ADDED","object":{"metadata":{"name":"x","resourceVersion":"1"}}} trailing"#,
    ] {
        let mut b = body.clone();
        b.extend_from_slice(bad);
        b.extend_from_slice(b"\n");
        b.extend_from_slice(&good);
        let (frames, r) = watch(&b);
        assert_eq!(frames.len(), n_frames, "{}", String::from_utf8_lossy(bad));
        assert!(
            matches!(r, Err(DecodeError::Malformed { .. })),
            "{}: {r:?}",
            String::from_utf8_lossy(bad)
        );
    }
    body.clear();
}

#[test]
fn oversized_document_is_too_large_and_bounded() {
    let limits = Limits {
        max_document_bytes: 1000,
    };
    let small = format!(
        "{{\"type\":\"ADDED\",\"object\":{}}}\n",
        pod_json("a", "d", "1")
    );
    let big = format!(
        "{{\"type\":\"ADDED\",\"object\":{{\"metadata\":{{\"name\":\"{}\",\"resourceVersion\":\"1\"}}}}}}\n",
        "x".repeat(5000)
    );
    let body = format!("{small}{big}{small}");
    let (frames, r) = watch_all(body.as_bytes(), limits, PODS);
    assert_eq!(frames.len(), 1);
    assert_eq!(r, Err(DecodeError::TooLarge { limit: 1000 }));
    // A never-ending document: memory stays bounded while it streams in.
    let mut dec = WatchDecoder::new(limits, PODS);
    let mut out = Vec::new();
    let mut r = Ok(());
    dec.feed(b"{\"type\":\"ADDED\",\"object\":{\"a\":\"", &mut out)
        .unwrap();
    for _ in 0..100 {
        r = dec.feed(&[b'z'; 64], &mut out);
        assert!(dec.buffered() <= 1000);
        if r.is_err() {
            break;
        }
    }
    assert_eq!(r, Err(DecodeError::TooLarge { limit: 1000 }));
    assert_eq!(dec.buffered(), 0);
    // The list decoder too.
    let list = format!(
        "{{\"metadata\":{{}},\"items\":[{},{{\"metadata\":{{\"name\":\"{}\",\"resourceVersion\":\"1\"}}}}]}}",
        pod_json("a", "d", "1"),
        "y".repeat(5000)
    );
    let (items, r) = list_all(list.as_bytes(), limits, PODS);
    assert_eq!(items.len(), 1);
    assert_eq!(r, Err(DecodeError::TooLarge { limit: 1000 }));
}

#[test]
fn truncated_last_document() {
    let body = watch_fixture();
    let cut = body.len() - 20;
    let (frames, r) = watch(&body[..cut]);
    assert_eq!(frames.len(), 7);
    match r {
        Err(DecodeError::Truncated { buffered }) => assert!(buffered > 0),
        r => panic!("{r:?}"),
    }
    let list = br#"{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","resourceVersion":"1"}},{"metadata":{"na"#;
    let (items, r) = list_all(list, Limits::default(), PODS);
    assert_eq!(items.len(), 1);
    assert!(matches!(r, Err(DecodeError::Truncated { .. })), "{r:?}");
    let (items, r) = list_all(b"", Limits::default(), PODS);
    assert!(items.is_empty());
    assert!(matches!(r, Err(DecodeError::Truncated { buffered: 0 })));
}

#[test]
fn missing_fields_and_unknown_type() {
    let cases: [(&[u8], DecodeError); 6] = [
        (
            br#"{"type":"ADDED","object":{"metadata":{"resourceVersion":"1"}}}"#,
            DecodeError::MissingField {
                field: "metadata.name",
            },
        ),
        (
            br#"{"type":"ADDED","object":{"metadata":{"name":"a"}}}"#,
            DecodeError::MissingField {
                field: "metadata.resourceVersion",
            },
        ),
        (
            br#"{"type":"ADDED","object":{"kind":"Pod"}}"#,
            DecodeError::MissingField {
                field: "metadata.name",
            },
        ),
        (
            br#"{"type":"SYNC","object":{"metadata":{"name":"a","resourceVersion":"1"}}}"#,
            DecodeError::UnknownEventType {
                event_type: "SYNC".into(),
            },
        ),
        (
            br#"{"object":{"metadata":{"name":"a","resourceVersion":"1"}}}"#,
            DecodeError::MissingField { field: "type" },
        ),
        (
            br#"{"type":"BOOKMARK","object":{"metadata":{}}}"#,
            DecodeError::MissingField {
                field: "metadata.resourceVersion",
            },
        ),
    ];
    for (line, want) in cases {
        let mut b = line.to_vec();
        b.push(b'\n');
        let (frames, r) = watch(&b);
        assert!(frames.is_empty());
        assert_eq!(r, Err(want));
    }
    let (_, r) = watch(b"{\"type\":\"ADDED\"}\n");
    assert_eq!(r, Err(DecodeError::MissingField { field: "object" }));
}

#[test]
fn fed_again_after_error_repeats_it() {
    let mut dec = WatchDecoder::new(Limits::default(), PODS);
    let mut out = Vec::new();
    let e = dec.feed(b"nope\n", &mut out).unwrap_err();
    assert_eq!(dec.feed(b"{}\n", &mut out), Err(e.clone()));
    assert_eq!(dec.finish(&mut out), Err(e));
}

// ---------------------------------------------------------------- list bodies

fn list_body(n: usize, meta_first: bool, cont: &str) -> (Vec<u8>, Vec<serde_json::Value>) {
    let mut rng = Rng::new(9);
    let pods: Vec<Value> = (0..n)
        .map(|i| sim_pod(rng.below(1000), i as u64, 500))
        .collect();
    let items: Vec<String> = pods.iter().map(|p| p.to_string()).collect();
    let meta = format!(
        "\"metadata\":{{\"resourceVersion\":\"500\",\"continue\":\"{cont}\",\"remainingItemCount\":1234}}"
    );
    let items = format!("\"items\":[{}]", items.join(","));
    let body = if meta_first {
        format!("{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",{meta},{items}}}")
    } else {
        format!("{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",{items},{meta}}}\n")
    };
    (body.into_bytes(), pods)
}

#[test]
fn list_body_several_pages_all_splits() {
    for meta_first in [true, false] {
        let (body, pods) = list_body(40, meta_first, "eyJydiI6NTAwfQ");
        let (items, r) = list_all(&body, Limits::default(), PODS);
        assert_eq!(
            r.unwrap(),
            ListMeta {
                resource_version: Some("500".into()),
                continue_token: Some("eyJydiI6NTAwfQ".into()),
                remaining_item_count: Some(1234),
                status: None,
                table: false,
            }
        );
        assert_eq!(items.len(), pods.len());
        for (o, p) in items.iter().zip(&pods) {
            assert_eq!(p["metadata"]["name"], o.name());
            assert_eq!(
                serde_json::from_slice::<serde_json::Value>(&o.json()).unwrap(),
                *p
            );
        }
    }
}

/// Items are parsed where they lie when the input holds them whole, and found first
/// (then parsed) when a chunk cuts them: both ways give the same items and the same
/// error, however the body is cut. The bad items below come after good ones, and the
/// good ones hold multi-byte characters that some cuts split.
#[test]
fn list_items_whole_or_cut_give_the_same_items_and_errors() {
    let good = |name: &str| pod_json(name, "ns-é", "1");
    let bad_items = [
        // malformed inside an otherwise whole item
        r#"{"metadata":{"name":"m","resourceVersion":"1",}}"#.to_string(),
        // brackets that never close
        r#"{"metadata":{"name":"m","resourceVersion":"1"]"#.to_string(),
        // a control character in a string
        "{\"metadata\":{\"name\":\"m\u{1}\",\"resourceVersion\":\"1\"}}".replace("\\u{1}", "\u{1}"),
        // not an object
        "[1,2]".to_string(),
        // missing identity
        r#"{"metadata":{"resourceVersion":"1"}}"#.to_string(),
    ];
    for bad in &bad_items {
        let body = format!(
            "{{\"metadata\":{{\"resourceVersion\":\"9\"}},\"items\":[{},{},{bad},{}]}}",
            good("a-ü"),
            good("b-✓"),
            good("c")
        );
        let (items, r) = list_all(body.as_bytes(), Limits::default(), PODS);
        assert_eq!(items.len(), 2, "{bad}");
        assert_eq!(items[1].name(), "b-✓");
        assert!(r.is_err(), "{bad}: {r:?}");
    }
    // Invalid UTF-8 in the third item: the first two are kept, the error says where.
    let mut body = format!(
        "{{\"metadata\":{{}},\"items\":[{},{},",
        good("a"),
        good("b")
    )
    .into_bytes();
    let item = good("c-X");
    let at = body.len() + item.find("c-X").unwrap() + 2;
    body.extend_from_slice(item.as_bytes());
    body[at] = 0xff;
    body.extend_from_slice(b"]}");
    let (items, r) = list_all(&body, Limits::default(), PODS);
    assert_eq!(items.len(), 2);
    assert_eq!(
        r,
        Err(DecodeError::Malformed {
            offset: at,
            reason: "invalid UTF-8"
        })
    );
    // Whole and good: every item, in order, with its characters intact.
    let body = format!(
        "{{\"metadata\":{{}},\"items\":[{},{},{}]}}",
        good("a-ü"),
        good("b-✓"),
        good("c")
    );
    let (items, r) = list_all(body.as_bytes(), Limits::default(), PODS);
    assert!(r.is_ok());
    let names: Vec<&str> = items.iter().map(|o| o.name()).collect();
    assert_eq!(names, ["a-ü", "b-✓", "c"]);
    assert!(items.iter().all(|o| o.namespace() == "ns-é"));
}

/// Cut in two anywhere, a list gives what it gives whole: the item the cut splits is
/// carried over and completed from the second piece, and the items after it are read
/// from that piece in place, good or bad.
#[test]
fn a_list_cut_in_two_anywhere_gives_what_it_gives_whole() {
    let good = |name: &str| pod_json(name, "ns-é", "1");
    let last = [
        good("d"),
        r#"{"metadata":{"name":"m","resourceVersion":"1",}}"#.to_string(),
        r#"{"metadata":{"name":"m","resourceVersion":"1"]"#.to_string(),
        r#"{"metadata":{"resourceVersion":"1"}}"#.to_string(),
    ];
    for item in &last {
        let body = format!(
            "{{\"metadata\":{{\"resourceVersion\":\"9\",\"remainingItemCount\":2}},\"items\":[{},{},{},{item}]}}",
            good("a-ü"),
            good("b-✓"),
            good("c")
        );
        let whole = list_with(body.as_bytes(), &[body.len()], Limits::default(), PODS);
        for cut in 1..body.len() {
            let two = list_with(
                body.as_bytes(),
                &[cut, body.len() - cut],
                Limits::default(),
                PODS,
            );
            assert_eq!(two, whole, "cut at {cut} of {item}");
        }
    }
}

#[test]
fn list_empty_continue_null_items_and_whitespace() {
    let body = b" {\n  \"kind\" : \"PodList\" ,\r\n \"metadata\" : { \"resourceVersion\" : \"7\" , \"continue\" : \"\" } ,\n \"items\" : null \n}\n";
    let (items, r) = list_all(body, Limits::default(), PODS);
    assert!(items.is_empty());
    assert_eq!(
        r.unwrap(),
        ListMeta {
            resource_version: Some("7".into()),
            continue_token: None,
            remaining_item_count: None,
            status: None,
            table: false,
        }
    );
    let body = b"{\"items\":[ ],\"metadata\":{}}";
    assert_eq!(
        list_all(body, Limits::default(), PODS).1.unwrap(),
        ListMeta::default()
    );
    let body = b"{\"items\":[],\"metadata\":{}} x";
    assert!(matches!(
        list_all(body, Limits::default(), PODS).1,
        Err(DecodeError::Malformed { .. })
    ));
    let body = b"{\"items\":[1]}";
    assert!(matches!(
        list_all(body, Limits::default(), PODS).1,
        Err(DecodeError::Malformed { .. })
    ));
}

// ---------------------------------------------------------------- managedFields

#[test]
fn strip_managed_fields_keeps_valid_json() {
    let mf =
        r#"[{"manager":"kubectl","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]"#;
    let variants = [
        format!(r#"{{"metadata":{{"managedFields":{mf},"name":"a","resourceVersion":"1"}}}}"#),
        format!(r#"{{"metadata":{{"name":"a","managedFields":{mf},"resourceVersion":"1"}}}}"#),
        format!(r#"{{"metadata":{{"name":"a","resourceVersion":"1","managedFields":{mf}}}}}"#),
        format!(
            r#"{{"metadata" : {{ "name" : "a" , "resourceVersion":"1" ,  "managedFields" : {mf} }} }}"#
        ),
        format!(
            r#"{{"metadata":{{"name":"a","managedFields":{mf},"managedFields":{mf},"resourceVersion":"1"}}}}"#
        ),
        format!(
            r#"{{"metadata":{{"name":"a","resourceVersion":"1","managedFields":{mf},"managedFields":[]}}}}"#
        ),
    ];
    let strip = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: true,
        columns: ColumnKind::Generic,
    };
    for v in &variants {
        let o = Object::parse(v.as_bytes(), &strip).unwrap();
        let parsed: serde_json::Value = serde_json::from_slice(&o.json())
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.json())));
        assert!(
            parsed["metadata"].get("managedFields").is_none(),
            "{parsed}"
        );
        assert_eq!((o.name(), o.resource_version()), ("a", "1"));
        let kept = Object::parse(v.as_bytes(), &ParseOptions::default()).unwrap();
        assert_eq!(kept.json(), minify(v).as_bytes());
    }
    let only = format!(r#"{{"metadata":{{"managedFields":{mf}}}}}"#);
    let e = Object::parse(only.as_bytes(), &strip).unwrap_err();
    assert_eq!(
        e,
        DecodeError::MissingField {
            field: "metadata.name"
        }
    );
    // A realistic pod shrinks and keeps everything else.
    let p = sim_pod(1, 0, 1);
    let text = p.to_string();
    let o = Object::parse(
        text.as_bytes(),
        &ParseOptions {
            columns: ColumnKind::Pod,
            ..strip
        },
    )
    .unwrap();
    let mut expect = p.clone();
    expect["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("managedFields");
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&o.json()).unwrap(),
        expect
    );
    assert!(o.json().len() < text.len() * 8 / 10);
    assert!(o.heap_bytes() < text.len());
}

#[test]
fn stripped_managed_fields_are_still_validated() {
    // Dropped managedFields (and members identity metadata leaves out) are skipped
    // without compaction notes, not without checks: whatever is malformed in them is
    // the same error as when they are kept.
    let strip = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: true,
        columns: ColumnKind::Generic,
    };
    let identity = ParseOptions {
        metadata: kubelive_core::KeptMetadata::Identity,
        ..strip
    };
    for bad in [
        r#"[{"manager":tru}]"#,
        r#"[{"manager" "x"}]"#,
        r#"[{"manager":"a\qb"}]"#,
        "[{\"manager\":\"a\u{1}b\"}]",
        r#"[{"fieldsV1":{"f:a":{},}}]"#,
        r#"[{"fieldsV1":{"f:a":{}]}"#,
        r#"[{"fieldsV1":{"f:a":01}}]"#,
    ] {
        let v =
            format!(r#"{{"metadata":{{"name":"a","managedFields":{bad},"resourceVersion":"1"}}}}"#);
        let stripped = Object::parse(v.as_bytes(), &strip).map(|o| o.json().into_owned());
        let kept =
            Object::parse(v.as_bytes(), &ParseOptions::default()).map(|o| o.json().into_owned());
        assert!(
            matches!(stripped, Err(DecodeError::Malformed { .. })),
            "{v}: {stripped:?}"
        );
        assert_eq!(stripped, kept, "{v}");
        // So are labels and the like left out of identity metadata.
        let labels = v.replace("managedFields", "labels");
        let dropped = Object::parse(labels.as_bytes(), &identity).map(|o| o.json().into_owned());
        let kept = Object::parse(labels.as_bytes(), &ParseOptions::default())
            .map(|o| o.json().into_owned());
        assert!(matches!(dropped, Err(DecodeError::Malformed { .. })));
        assert_eq!(dropped, kept, "{labels}");
    }
    // Pretty-printed managedFields leave no trace, nor does their whitespace.
    let pretty = "{\"metadata\": {\n  \"name\": \"a\",\n  \"managedFields\": [\n    {\"manager\": \"k\", \"fieldsV1\": {\"f:x\": { }}}\n  ],\n  \"resourceVersion\": \"1\"\n}}";
    let o = Object::parse(pretty.as_bytes(), &strip).unwrap();
    assert_eq!(
        o.json().as_ref(),
        br#"{"metadata":{"name":"a","resourceVersion":"1"}}"#
    );
}

// ---------------------------------------------------------------- columns

/// A pod's fallback cells but its name and age, as kubectl prints them: (ready,
/// status, restarts, node).
type Cols = (String, String, String, String);

fn pod_columns(json: &str) -> Cols {
    let o = Object::parse(json.as_bytes(), &PODS).unwrap();
    let c: Vec<String> = o
        .fallback_cells()
        .expect("an object has fallback cells")
        .map(|c| c.to_string())
        .collect();
    assert_eq!(c.len(), ColumnKind::Pod.columns().len(), "{c:?}");
    (c[1].clone(), c[2].clone(), c[3].clone(), c[5].clone())
}

fn cols(ready: u16, containers: u16, restarts: u32, status: &str, node: &str) -> Cols {
    let node = if node.is_empty() { "<none>" } else { node };
    (
        format!("{ready}/{containers}"),
        status.into(),
        restarts.to_string(),
        node.into(),
    )
}

#[test]
fn pod_columns_like_kubectl() {
    let meta = r#""metadata":{"name":"p","namespace":"default","resourceVersion":"9","creationTimestamp":"2025-03-01T10:00:00Z"}"#;
    let running = format!(
        r#"{{"kind":"Pod",{meta},"spec":{{"containers":[{{"name":"app","image":"nginx","livenessProbe":{{"httpGet":{{"path":"/","port":80}}}}}},{{"name":"side"}}],"nodeName":"node-1"}},"status":{{"phase":"Running","conditions":[{{"type":"Ready","status":"True"}}],"containerStatuses":[{{"name":"app","state":{{"running":{{"startedAt":"2025-03-01T10:00:05Z"}}}},"lastState":{{}},"ready":true,"restartCount":1}},{{"name":"side","state":{{"running":{{}}}},"ready":true,"restartCount":2}}]}}}}"#
    );
    assert_eq!(pod_columns(&running), cols(2, 2, 3, "Running", "node-1"));

    let crash = format!(
        r#"{{{meta},"spec":{{"nodeName":"node-2","containers":[{{"name":"app"}},{{"name":"side"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"app","state":{{"waiting":{{"reason":"CrashLoopBackOff","message":"back-off 5m0s"}}}},"lastState":{{"terminated":{{"exitCode":1,"reason":"Error"}}}},"ready":false,"restartCount":42}},{{"name":"side","state":{{"running":{{}}}},"ready":true,"restartCount":0}}]}}}}"#
    );
    assert_eq!(
        pod_columns(&crash),
        cols(1, 2, 42, "CrashLoopBackOff", "node-2")
    );

    let terminating = running.replace(
        r#""creationTimestamp":"2025-03-01T10:00:00Z""#,
        r#""creationTimestamp":"2025-03-01T10:00:00Z","deletionTimestamp":"2025-03-02T00:00:00Z","deletionGracePeriodSeconds":30"#,
    );
    let o = Object::parse(terminating.as_bytes(), &PODS).unwrap();
    assert_eq!(o.deletion_timestamp(), Some("2025-03-02T00:00:00Z"));
    assert_eq!(
        pod_columns(&terminating),
        cols(2, 2, 3, "Terminating", "node-1")
    );

    let pending = format!(
        r#"{{{meta},"spec":{{"containers":[{{"name":"app"}}],"schedulerName":"default-scheduler"}},"status":{{"phase":"Pending","conditions":[{{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/3 nodes are available"}}],"qosClass":"BestEffort"}}}}"#
    );
    assert_eq!(pod_columns(&pending), cols(0, 1, 0, "Pending", ""));

    let evicted = format!(
        r#"{{{meta},"spec":{{"containers":[{{"name":"app"}}],"nodeName":"n"}},"status":{{"phase":"Failed","reason":"Evicted","containerStatuses":[{{"name":"app","state":{{"terminated":{{"exitCode":137,"reason":"OOMKilled"}}}},"ready":false,"restartCount":0}}]}}}}"#
    );
    assert_eq!(pod_columns(&evicted), cols(0, 1, 0, "OOMKilled", "n"));
    let evicted_no_containers = format!(
        r#"{{{meta},"spec":{{"containers":[{{"name":"app"}}]}},"status":{{"phase":"Failed","reason":"Evicted","containerStatuses":null}}}}"#
    );
    assert_eq!(
        pod_columns(&evicted_no_containers),
        cols(0, 1, 0, "Evicted", "")
    );

    // Realistic generated pods (running, pending, crash-looping) agree with a
    // serde_json reading.
    let mut rng = Rng::new(5);
    for i in 0..50 {
        let mut params = kubelive_sim::PodParams::random(&mut rng, "shop", "web", "5d8f7c9b", i);
        params.phase = ["Running", "Pending", "Failed"][i as usize % 3].into();
        params.ready = i % 3 == 0;
        params.restarts = (i % 5) as u32 * 7;
        let mut p = kubelive_sim::pod(&params);
        p["metadata"]["resourceVersion"] = "1".into();
        let c = pod_columns(&p.to_string());
        let cs = p["status"]["containerStatuses"].as_array().unwrap();
        let want_ready = cs.iter().filter(|c| c["ready"] == true).count() as u16;
        let want_restarts: u64 = cs.iter().map(|c| c["restartCount"].as_u64().unwrap()).sum();
        let want_status = cs
            .iter()
            .find_map(|c| c["state"]["waiting"]["reason"].as_str())
            .unwrap_or(p["status"]["phase"].as_str().unwrap());
        assert_eq!(
            c,
            cols(
                want_ready,
                1,
                want_restarts as u32,
                want_status,
                p["spec"]["nodeName"].as_str().unwrap()
            )
        );
    }
}

#[test]
fn deployment_columns() {
    let opts = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: false,
        columns: ColumnKind::for_resource("deployments"),
    };
    let d = r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"shop","resourceVersion":"77","generation":3},"spec":{"replicas":5,"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"containers":[{"name":"a"}]}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}}},"status":{"observedGeneration":3,"replicas":5,"updatedReplicas":4,"readyReplicas":3,"availableReplicas":2,"conditions":[{"type":"Available","status":"True"}]}}"#;
    let cells = |o: &Object| -> Vec<String> {
        o.fallback_cells()
            .expect("an object has fallback cells")
            .map(|c| c.to_string())
            .collect()
    };
    let o = Object::parse(d.as_bytes(), &opts).unwrap();
    assert_eq!(o.fallback_kind(), Some(ColumnKind::Deployment));
    assert_eq!(cells(&o), ["web", "3/5", "4", "2", "<unknown>"]);
    assert_eq!(o.fallback_cells().unwrap().nth(2), Some(Cell::Int(4)));
    let fresh = r#"{"metadata":{"name":"web","resourceVersion":"1","creationTimestamp":"2024-01-01T00:00:00Z"},"spec":{"template":{}},"status":{}}"#;
    let o = Object::parse(fresh.as_bytes(), &opts).unwrap();
    assert_eq!(cells(&o), ["web", "0/1", "0", "0", "2024-01-01T00:00:00Z"]);
    let generic = Object::parse(d.as_bytes(), &ParseOptions::default()).unwrap();
    assert_eq!(generic.fallback_kind(), Some(ColumnKind::Generic));
    assert_eq!(cells(&generic), ["web", "<unknown>"]);
    let names: Vec<String> = ColumnKind::Deployment
        .columns()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["Name", "Ready", "Up-to-date", "Available", "Age"]);
    for kind in [ColumnKind::Pod, ColumnKind::Deployment, ColumnKind::Generic] {
        let columns = kind.columns();
        assert_eq!(columns.len(), kind.column_count());
        assert!(columns[kind.age_index()].is_age());
        assert_eq!(columns.iter().filter(|c| c.is_age()).count(), 1);
        assert!(columns[0].is_name() && columns.iter().all(|c| c.priority == 0));
    }
}

// ---------------------------------------------------------------- properties

fn mutate(rng: &mut Rng, body: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        if body.is_empty() {
            body.push(b'{');
        }
        let at = rng.below(body.len() as u64) as usize;
        match rng.below(7) {
            0 => body[at] = rng.below(256) as u8,
            1 => {
                let pick = b"{}[]\",:\\\n 0tfn";
                body[at] = pick[rng.below(pick.len() as u64) as usize]
            }
            2 => {
                body.remove(at);
            }
            3 => body.insert(at, b"{}[]\",:\\\n"[rng.below(9) as usize]),
            4 => body.truncate(at),
            5 => {
                let end = (at + rng.below(64) as usize).min(body.len());
                let piece = body[at..end].to_vec();
                let to = rng.below(body.len() as u64) as usize;
                body.splice(to..to, piece);
            }
            _ => body.insert(at, 0xe9),
        }
    }
}

fn random_sizes(rng: &mut Rng, len: usize) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut left = len;
    let max = [1, 5, 64, 1000, 70_000][rng.below(5) as usize];
    while left > 0 {
        let n = (1 + rng.below(max) as usize).min(left);
        sizes.push(n);
        left -= n;
    }
    sizes
}

#[test]
fn arbitrary_bytes_and_mutations_never_panic_and_stay_bounded() {
    let mut rng = Rng::new(0xfeed);
    let stream = kubelive_sim::watch_event_stream(11, 6);
    let fixture = watch_fixture();
    let (list, _) = list_body(5, true, "c");
    let limits = Limits {
        max_document_bytes: 3000,
    };
    for round in 0..300 {
        let mut body = match round % 4 {
            0 => stream.clone(),
            1 => fixture.clone(),
            2 => list.clone(),
            _ => (0..rng.below(3000)).map(|_| rng.below(256) as u8).collect(),
        };
        mutate(&mut rng, &mut body);
        let lim = if round % 3 == 0 {
            limits
        } else {
            Limits::default()
        };
        for opts in [
            PODS,
            ParseOptions {
                metadata: kubelive_core::KeptMetadata::All,
                strip_managed_fields: true,
                columns: ColumnKind::Pod,
            },
        ] {
            let whole = watch_with(&body, &[body.len()], lim, opts);
            let sizes = random_sizes(&mut rng, body.len());
            assert_eq!(watch_with(&body, &sizes, lim, opts), whole, "round {round}");
            let whole = list_with(&body, &[body.len()], lim, opts);
            assert_eq!(list_with(&body, &sizes, lim, opts), whole, "round {round}");
            for f in &whole.0 {
                // Whatever was accepted is valid JSON.
                serde_json::from_slice::<serde::de::IgnoredAny>(&f.json()).unwrap();
            }
        }
    }
}

#[test]
fn accepted_documents_are_valid_json() {
    // Anything the decoder accepts, serde_json accepts too (mutation-based).
    let mut rng = Rng::new(77);
    let base = watch_fixture();
    for _ in 0..2000 {
        let mut body = base.clone();
        mutate(&mut rng, &mut body);
        let (frames, _) = watch_with(&body, &[body.len()], Limits::default(), PODS);
        let lines: Vec<&[u8]> = body
            .split(|&c| c == b'\n')
            .filter(|l| l.iter().any(|c| !c.is_ascii_whitespace()))
            .collect();
        for (f, line) in frames.iter().zip(lines) {
            assert!(
                serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok(),
                "accepted invalid JSON: {} -> {f:?}",
                String::from_utf8_lossy(line)
            );
            // The stored object is the line's object, byte for byte but whitespace.
            if let WatchFrame::Added(o) | WatchFrame::Modified(o) | WatchFrame::Deleted(o) = f {
                let json = o.json();
                let line = minify(&String::from_utf8_lossy(line)).into_bytes();
                assert!(
                    line.windows(json.len()).any(|w| w == json.as_ref()),
                    "{} not in {}",
                    String::from_utf8_lossy(&json),
                    String::from_utf8_lossy(&line)
                );
            }
        }
    }
}

// ---------------------------------------------------------------- stored JSON round trip

/// `json` without insignificant whitespace (what `Object::json` gives back).
fn minify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_str, mut escaped) = (false, false);
    for c in json.chars() {
        if in_str {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_str = c == '"';
            out.push(c);
        }
    }
    out
}

/// Everything an object exposes about its JSON agrees with `expect`.
fn assert_json(o: &Object, expect: &str) {
    assert_eq!(o.json().as_ref(), expect.as_bytes());
    assert_eq!(o.json_str(), expect);
    assert_eq!(o.json_len(), expect.len());
    let mut out = b"prefix".to_vec();
    o.write_json(&mut out);
    assert_eq!(&out[6..], expect.as_bytes());
}

/// Decodes `doc` as a lone object, as a list item and as a watch event (with
/// "object" before "type", the optimistic path) and checks the stored JSON of each.
fn round_trip(doc: &str, opts: ParseOptions, expect: &str) -> Object {
    let o = Object::parse(doc.as_bytes(), &opts).unwrap_or_else(|e| panic!("{e}: {doc}"));
    assert_json(&o, expect);
    if doc.contains('\n') {
        // Not a valid watch line: only the list path below.
    } else {
        watch_round_trip(doc, opts, expect);
    }
    let list = format!("{{\"items\":[{doc},{doc}],\"metadata\":{{}}}}");
    let (items, r) = list_all(list.as_bytes(), Limits::default(), opts);
    r.unwrap();
    for o in &items {
        assert_json(o, expect);
    }
    o
}

fn watch_round_trip(doc: &str, opts: ParseOptions, expect: &str) {
    let line = format!("{{\"object\":{doc},\"type\":\"MODIFIED\"}}\n");
    let (frames, r) = watch_with(line.as_bytes(), &[line.len()], Limits::default(), opts);
    r.unwrap();
    assert_json(obj(&frames[0]), expect);
    let line = format!("{{\"type\":\"ADDED\",\"object\":{doc}}}\n{line}");
    let (frames, r) = watch_with(line.as_bytes(), &[line.len()], Limits::default(), opts);
    r.unwrap();
    assert_json(obj(&frames[0]), expect);
    assert_json(obj(&frames[1]), expect);
}

#[test]
fn stored_json_round_trips_generated_objects() {
    let strip = ParseOptions {
        strip_managed_fields: true,
        ..PODS
    };
    let deployments = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: false,
        columns: ColumnKind::Deployment,
    };
    let mut docs: Vec<(Value, ParseOptions)> = Vec::new();
    for i in 0..100u64 {
        docs.push((sim_pod(i % 7, i, 1000 + i), PODS));
        let mut d = kubelive_sim::workload::deployment(
            &format!("ns-{}", i % 3),
            &format!("web-{i}"),
            (i % 5) as u32,
            "5d8f7c9b",
            i * 1000,
        );
        d["metadata"]["resourceVersion"] = (i + 1).to_string().into();
        docs.push((d, deployments));
    }
    for (v, opts) in docs {
        let text = v.to_string();
        let o = round_trip(&text, opts, &text);
        assert!(o.heap_bytes() < text.len(), "compacted");
        let mut stripped = v.clone();
        stripped["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("managedFields");
        let generic = ParseOptions {
            metadata: kubelive_core::KeptMetadata::All,
            strip_managed_fields: true,
            columns: ColumnKind::Generic,
        };
        for opts in [strip, generic] {
            let o = round_trip(&text, opts, &stripped.to_string());
            assert_eq!(o.name(), v["metadata"]["name"]);
        }
    }
    // A whole sim watch stream, every split: objects are the lines' objects verbatim.
    let body = kubelive_sim::watch_event_stream(5, 12);
    let (frames, r) = watch(&body);
    r.unwrap();
    for (line, f) in body.split(|&c| c == b'\n').zip(&frames) {
        if let WatchFrame::Added(o) | WatchFrame::Modified(o) | WatchFrame::Deleted(o) = f {
            let line = std::str::from_utf8(line).unwrap();
            let start = line.find(",\"object\":").unwrap() + 10;
            assert_json(o, &line[start..line.len() - 1]);
        }
    }
}

/// Random JSON with keys and strings chosen to trip up key compaction: dictionary
/// keys, their prefixes and suffixes, escaped spellings, non-ASCII keys, token bytes
/// inside strings, `"key":` text inside values, random whitespace between tokens.
fn adversarial(rng: &mut Rng, depth: u32, out: &mut String) {
    const KEYS: &[&str] = &[
        "name",
        "status",
        ".",
        "f:metadata",
        "f:labels",
        "f:spec",
        "f:containers",
        "f:image",
        "k:{\\\"type\\\":\\\"Ready\\\"}",
        "k:{\\\"type\\\":\\\"Ready\\\"}x",
        "names",
        "xname",
        "nam",
        "f:",
        "f",
        "f:name2",
        "na\\u006de",
        "n\\\"ame",
        "name\\\\",
        "\\\"name\\\"",
        "n\u{e4}m\u{e9}",
        "\u{540d}\u{524d}",
        "\u{1f600}",
        "\u{80}",
        "\u{c0}name",
        "!",
        "#",
        "~",
        "",
        "lastTransitionTime",
        "lastTransitionTimes",
        "terminationGracePeriodSeconds",
        "f:terminationGracePeriodSeconds",
        "f:terminationGracePeriodSecond",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "apiVersion",
        "kind",
    ];
    const STRINGS: &[&str] = &[
        "name",
        "\\\"f:metadata\\\":{}",
        "\\\"name\\\":",
        "\\\"",
        "\\\\",
        "!#$%&'()*/;<=>?@ABCZ^_`|~",
        "\u{80}\u{bf}\u{c0}\u{ff}\u{100}\u{13f}\u{140}",
        "\\u0080\\u00c0\\u0001",
        "\\n\\t\\r\\b\\f\\/",
        "\"",
        "f:spec",
        "k:{\\\"name\\\":\\\"x\\\"}",
        "\u{1f680}",
        "",
    ];
    let ws = |rng: &mut Rng, out: &mut String| {
        if rng.below(6) == 0 {
            out.push_str([" ", "\n", "\t", "\r\n ", "  "][rng.below(5) as usize]);
        }
    };
    let roll = if depth == 0 {
        rng.below(3)
    } else {
        rng.below(8)
    };
    match roll {
        0 => out.push_str(["1", "-2.5e+3", "0", "true", "false", "null"][rng.below(6) as usize]),
        1 | 2 => {
            let s = STRINGS[rng.below(STRINGS.len() as u64) as usize];
            // A bare quote stands for a key name used as a value.
            if s == "\"" {
                out.push('"');
                out.push_str(KEYS[rng.below(KEYS.len() as u64) as usize]);
                out.push('"');
            } else {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
        }
        3 | 4 => {
            out.push('[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, out);
                adversarial(rng, depth - 1, out);
                ws(rng, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, out);
                out.push('"');
                out.push_str(KEYS[rng.below(KEYS.len() as u64) as usize]);
                out.push('"');
                ws(rng, out);
                out.push(':');
                ws(rng, out);
                adversarial(rng, depth - 1, out);
                ws(rng, out);
            }
            out.push('}');
        }
    }
}

#[test]
fn stored_json_round_trips_adversarial_documents() {
    let mut rng = Rng::new(0xc0de);
    let generic = ParseOptions::default();
    let strip = ParseOptions {
        metadata: kubelive_core::KeptMetadata::All,
        strip_managed_fields: true,
        columns: ColumnKind::Pod,
    };
    let mut compacted = 0;
    for round in 0..1000 {
        let mut a = String::new();
        let mut b = String::new();
        let mut c = String::new();
        adversarial(&mut rng, 4, &mut a);
        adversarial(&mut rng, 4, &mut b);
        adversarial(&mut rng, 4, &mut c);
        let doc = format!(
            "{{\"kind\":{a},\"metadata\":{{\"f:name\":{b},\"name\":\"p-{round}\",\"resourceVersion\":\"1\",\"labels\":{{\"name\":\"name\"}}}},\"spec\":{{\"f:spec\":{c}}},\"status\":{{\"phase\":\"name\"}}}}"
        );
        serde_json::from_str::<serde::de::IgnoredAny>(&doc)
            .unwrap_or_else(|e| panic!("{e}: {doc}"));
        for opts in [generic, PODS, strip] {
            let o = round_trip(&doc, opts, &minify(&doc));
            assert_eq!(o.name(), format!("p-{round}"));
            assert_eq!(o.resource_version(), "1");
            assert_eq!(o.labels(), vec![("name".into(), "name".into())]);
            if o.heap_bytes() - std::mem::size_of::<Object>() < o.json_len() {
                compacted += 1;
            }
        }
    }
    assert_eq!(compacted, 3000, "every document has dictionary keys");
}

#[test]
fn a_status_body_is_told_apart_from_a_list_and_from_an_event() {
    // A 200 whose body is a Status (a proxy's, or an apiserver error written after the
    // head): the list decoder hands back the whole body, at every split.
    let status = br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}"#;
    let (items, r) = list_all(status, Limits::default(), PODS);
    assert!(items.is_empty());
    assert_eq!(r.unwrap().status.as_deref(), Some(&status[..]));
    // kind after other members, still a Status.
    let late = br#"{"apiVersion":"v1","metadata":{},"code":500,"kind":"Status"}"#;
    assert_eq!(
        list_all(late, Limits::default(), PODS)
            .1
            .unwrap()
            .status
            .as_deref(),
        Some(&late[..])
    );
    // A list keeps nothing of the kind.
    let (body, _) = list_body(3, true, "");
    assert_eq!(
        list_all(&body, Limits::default(), PODS).1.unwrap().status,
        None
    );
    // A watch line that is a bare Status: an ERROR frame carrying it.
    let mut line = status.to_vec();
    line.push(b'\n');
    let (frames, r) = watch_all(&line, Limits::default(), PODS);
    r.unwrap();
    assert_eq!(
        frames,
        vec![WatchFrame::Error {
            status: status[..].into()
        }]
    );
    // Without "kind":"Status", a document without a type is still an error.
    let (_, r) = watch(b"{\"kind\":\"Pod\",\"object\":{}}\n");
    assert_eq!(r, Err(DecodeError::MissingField { field: "type" }));
}
