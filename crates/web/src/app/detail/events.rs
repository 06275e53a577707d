//! The related events of the detail panel: each `Event` object (core `v1`, as the
//! `/api/v1/namespaces/<ns>/events` collection serves them, whichever API recorded
//! them) read into what `kubectl describe` shows — type, reason, age, source and
//! message — and ordered newest first.
//!
//! Events recorded through `events.k8s.io/v1` carry `eventTime` and
//! `series.{count,lastObservedTime}` instead of `firstTimestamp`, `lastTimestamp` and
//! `count`; both forms are read.

use crate::time::{human_duration, parse_rfc3339};
use std::cmp::Ordering;

/// The field selector of an object's events.
pub fn selector_for(uid: &str) -> String {
    format!("involvedObject.uid={uid}")
}

/// One event as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    /// The Event object's own name (a stable key).
    pub name: String,
    /// `Normal` or `Warning`.
    pub kind: String,
    pub reason: String,
    pub message: String,
    /// `kubelet, node-3`, `default-scheduler`.
    pub source: String,
    /// How many times it happened (at least 1).
    pub count: u64,
    /// Unix seconds, when it first and last happened (if the event says).
    pub first: Option<f64>,
    pub last: Option<f64>,
}

/// The members of a JSON object the panel reads, typed as the API types them: absent
/// or `null` is None; a member of another type makes the whole event unreadable
/// (`Err`), as a typed decoder refuses it.
struct Members<'a>(&'a serde_json::Map<String, serde_json::Value>);

impl<'a> Members<'a> {
    fn of(v: Option<&'a serde_json::Value>) -> Result<Option<Members<'a>>, ()> {
        match v {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::Object(m)) => Ok(Some(Members(m))),
            Some(_) => Err(()),
        }
    }

    fn text(&self, key: &str) -> Result<Option<String>, ()> {
        match self.0.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(()),
        }
    }

    fn count(&self, key: &str) -> Result<Option<u64>, ()> {
        match self.0.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or(()),
        }
    }

    fn object(&self, key: &str) -> Result<Option<Members<'a>>, ()> {
        Members::of(self.0.get(key))
    }
}

/// RFC 3339 with optional fractional seconds (`MicroTime`), to Unix seconds.
fn timestamp(s: Option<&String>) -> Option<f64> {
    let s = s?;
    let whole = parse_rfc3339(s)?;
    let frac = s
        .get(19..)
        .and_then(|rest| rest.strip_prefix('.'))
        .map(|rest| {
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            format!("0.{digits}").parse::<f64>().unwrap_or(0.0)
        })
        .unwrap_or(0.0);
    Some(whole + frac)
}

/// The first of `options` that is set and not empty.
fn first_of(options: [&Option<String>; 2]) -> String {
    options
        .into_iter()
        .flatten()
        .find(|s| !s.is_empty())
        .cloned()
        .unwrap_or_default()
}

impl EventRow {
    /// Reads an Event object; None if it is not one (no JSON object).
    pub fn from_json(json: &str) -> Option<EventRow> {
        let doc: serde_json::Value = serde_json::from_str(json).ok()?;
        let v = Members::of(Some(&doc)).ok()??;
        let meta = v.object("metadata").ok()?;
        let meta_text = |k: &str| match &meta {
            Some(m) => m.text(k),
            None => Ok(None),
        };
        let (name, created) = (
            meta_text("name").ok()?,
            meta_text("creationTimestamp").ok()?,
        );
        let series = v.object("series").ok()?;
        let (series_count, series_last) = match &series {
            Some(s) => (s.count("count").ok()?, s.text("lastObservedTime").ok()?),
            None => (None, None),
        };
        let source = v.object("source").ok()?;
        let (src_component, src_host) = match &source {
            Some(s) => (s.text("component").ok()?, s.text("host").ok()?),
            None => (None, None),
        };
        let kind = v.text("type").ok()?;
        let reason = v.text("reason").ok()?;
        let message = v.text("message").ok()?;
        let reporting_component = v.text("reportingComponent").ok()?;
        let reporting_instance = v.text("reportingInstance").ok()?;
        let event_count = v.count("count").ok()?;
        let first_timestamp = v.text("firstTimestamp").ok()?;
        let last_timestamp = v.text("lastTimestamp").ok()?;
        let event_time = v.text("eventTime").ok()?;
        let first = timestamp(first_timestamp.as_ref())
            .or_else(|| timestamp(event_time.as_ref()))
            .or_else(|| timestamp(created.as_ref()));
        let last = timestamp(series_last.as_ref())
            .or_else(|| timestamp(last_timestamp.as_ref()))
            .or_else(|| timestamp(event_time.as_ref()))
            .or(first);
        let count = series_count.or(event_count).unwrap_or(1).max(1);
        let component = first_of([&src_component, &reporting_component]);
        let host = first_of([&src_host, &reporting_instance]);
        let source = match (component.is_empty(), host.is_empty()) {
            (false, false) => format!("{component}, {host}"),
            (false, true) => component,
            (true, _) => host,
        };
        Some(EventRow {
            name: name.unwrap_or_default(),
            kind: kind.unwrap_or_default(),
            reason: reason.unwrap_or_default(),
            message: message.unwrap_or_default().trim_end().to_string(),
            source,
            count,
            first,
            last,
        })
    }

    /// The age as `kubectl describe` writes it: `45s`, or `2m (x5 over 10m)` for a
    /// repeated event.
    pub fn age(&self, now: f64) -> String {
        let since = |t: Option<f64>| {
            t.map(|t| human_duration(now - t))
                .unwrap_or_else(|| "<unknown>".to_string())
        };
        if self.count > 1 {
            format!(
                "{} (x{} over {})",
                since(self.last),
                self.count,
                since(self.first)
            )
        } else {
            since(self.first.or(self.last))
        }
    }

    /// CSS class of its type: `ev-normal`, `ev-warning`, else `ev-other`.
    pub fn class(&self) -> &'static str {
        match self.kind.as_str() {
            "Normal" => "ev-normal",
            "Warning" => "ev-warning",
            _ => "ev-other",
        }
    }
}

/// Newest first: by when each last happened, then by name (events without a time
/// last).
pub fn newest_first(rows: &mut [EventRow]) {
    rows.sort_by(|a, b| match (a.last, b.last) {
        (Some(x), Some(y)) => y
            .partial_cmp(&x)
            .unwrap_or(Ordering::Equal)
            .then_with(|| a.name.cmp(&b.name)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.name.cmp(&b.name),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_of_the_wrong_type_makes_the_event_unreadable_and_null_is_absent() {
        let ok = r#"{"metadata":{"name":"e1"},"reason":"Pulled","count":null,"source":null}"#;
        let row = EventRow::from_json(ok).expect("an event");
        assert_eq!(
            (row.name.as_str(), row.reason.as_str(), row.count),
            ("e1", "Pulled", 1)
        );
        for bad in [
            r#"{"metadata":{"name":"e1"},"count":"3"}"#,
            r#"{"metadata":{"name":7}}"#,
            r#"{"metadata":[]}"#,
            r#"{"series":{"count":-1}}"#,
            r#"{"source":"kubelet"}"#,
            r#"["metadata"]"#,
            "not json",
        ] {
            assert_eq!(EventRow::from_json(bad), None, "{bad}");
        }
    }

    fn core(name: &str, reason: &str, count: u64, first: &str, last: &str) -> String {
        format!(
            r#"{{"kind":"Event","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"ns-0","uid":"u-{name}","resourceVersion":"5","creationTimestamp":"{first}"}},"involvedObject":{{"kind":"Pod","namespace":"ns-0","name":"web-1","uid":"pod-uid"}},"reason":"{reason}","message":"msg {reason}\n","source":{{"component":"kubelet","host":"node-3"}},"firstTimestamp":"{first}","lastTimestamp":"{last}","count":{count},"type":"Normal","eventTime":null,"reportingComponent":"kubelet","reportingInstance":"node-3"}}"#
        )
    }

    #[test]
    fn reads_core_events() {
        let row = EventRow::from_json(&core(
            "web-1.a",
            "Pulled",
            1,
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00Z",
        ))
        .unwrap();
        assert_eq!(row.reason, "Pulled");
        assert_eq!(row.message, "msg Pulled");
        assert_eq!(row.source, "kubelet, node-3");
        assert_eq!(row.count, 1);
        assert_eq!(row.class(), "ev-normal");
        assert_eq!(row.age(1_704_067_200.0 + 45.0), "45s");
    }

    #[test]
    fn reads_events_recorded_through_events_k8s_io() {
        let json = r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"web-1.b","namespace":"ns-0","creationTimestamp":"2024-01-01T00:00:00Z"},"involvedObject":{"uid":"pod-uid"},"reason":"BackOff","message":"Back-off restarting failed container","type":"Warning","eventTime":"2024-01-01T00:00:00.250000Z","series":{"count":5,"lastObservedTime":"2024-01-01T00:08:00.500000Z"},"reportingComponent":"kubelet","reportingInstance":"node-1","firstTimestamp":null,"lastTimestamp":null,"source":null,"count":null}"#;
        let row = EventRow::from_json(json).unwrap();
        assert_eq!(row.count, 5);
        assert_eq!(row.source, "kubelet, node-1");
        assert_eq!(row.class(), "ev-warning");
        assert_eq!(row.first, Some(1_704_067_200.25));
        assert_eq!(row.last, Some(1_704_067_680.5));
        assert_eq!(row.age(1_704_067_200.0 + 600.5), "2m (x5 over 10m)");
        assert!(EventRow::from_json("[1]").is_none());
        assert!(EventRow::from_json("nope").is_none());
    }

    #[test]
    fn newest_first_by_last_time_then_name() {
        let t = |m: u32, s: u32| format!("2024-01-01T00:{m:02}:{s:02}Z");
        let mut rows: Vec<EventRow> = [
            core("a", "Scheduled", 1, &t(0, 0), &t(0, 0)),
            core("b", "BackOff", 7, &t(0, 10), &t(9, 0)),
            core("c", "Pulling", 1, &t(0, 5), &t(0, 5)),
            core("d", "Started", 1, &t(0, 5), &t(0, 5)),
        ]
        .iter()
        .map(|j| EventRow::from_json(j).unwrap())
        .collect();
        rows.push(EventRow {
            name: "z".into(),
            kind: String::new(),
            reason: "Odd".into(),
            message: String::new(),
            source: String::new(),
            count: 1,
            first: None,
            last: None,
        });
        newest_first(&mut rows);
        let order: Vec<&str> = rows.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(order, ["BackOff", "Pulling", "Started", "Scheduled", "Odd"]);
        assert_eq!(rows[4].age(0.0), "<unknown>");
        assert_eq!(rows[4].class(), "ev-other");
    }

    #[test]
    fn the_selector_names_the_uid() {
        assert_eq!(selector_for("1-2"), "involvedObject.uid=1-2");
    }
}
