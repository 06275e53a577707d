//! Label and field selectors, parsed like the apiserver does.

use crate::fields;
use crate::resources::ResourceType;

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelReq {
    Eq(String, String),
    NotEq(String, String),
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// A parsed label selector: requirements ANDed together. Empty matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector(pub Vec<LabelReq>);

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 316
        && k.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-_./".contains(&c))
}

fn valid_value(v: &str) -> bool {
    v.len() <= 63
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
}

/// Splits on commas that are not inside parentheses.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

impl LabelSelector {
    /// Parses `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`, comma = AND.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(LabelSelector::default());
        }
        let mut reqs = Vec::new();
        for part in split_top(s) {
            let part = part.trim();
            if part.is_empty() {
                return Err(format!(
                    "unable to parse requirement: found '', expected: identifier (in {s:?})"
                ));
            }
            reqs.push(Self::parse_req(part)?);
        }
        Ok(LabelSelector(reqs))
    }

    fn parse_req(p: &str) -> Result<LabelReq, String> {
        let bad = |why: &str| Err(format!("unable to parse requirement: {why}: {p:?}"));
        if let Some(k) = p.strip_prefix('!') {
            let k = k.trim();
            return if valid_key(k) {
                Ok(LabelReq::NotExists(k.into()))
            } else {
                bad("invalid label key")
            };
        }
        if let Some(i) = p.find("!=") {
            let (k, v) = (p[..i].trim(), p[i + 2..].trim());
            return if valid_key(k) && valid_value(v) {
                Ok(LabelReq::NotEq(k.into(), v.into()))
            } else {
                bad("invalid key or value")
            };
        }
        if let Some(i) = p.find('=') {
            let k = p[..i].trim();
            let v = p[i + 1..].strip_prefix('=').unwrap_or(&p[i + 1..]).trim();
            return if valid_key(k) && valid_value(v) {
                Ok(LabelReq::Eq(k.into(), v.into()))
            } else {
                bad("invalid key or value")
            };
        }
        if let Some(open) = p.find('(') {
            let head = p[..open].trim();
            let Some(body) = p[open + 1..].trim_end().strip_suffix(')') else {
                return bad("missing ')'");
            };
            let mut words = head.split_whitespace();
            let (Some(k), Some(op), None) = (words.next(), words.next(), words.next()) else {
                return bad("expected: key in|notin (values)");
            };
            if !valid_key(k) {
                return bad("invalid label key");
            }
            let vals: Vec<String> = body.split(',').map(|v| v.trim().to_string()).collect();
            if vals.iter().any(|v| !valid_value(v)) {
                return bad("invalid label value");
            }
            return match op {
                "in" => Ok(LabelReq::In(k.into(), vals)),
                "notin" => Ok(LabelReq::NotIn(k.into(), vals)),
                _ => bad("expected 'in' or 'notin'"),
            };
        }
        if valid_key(p) {
            Ok(LabelReq::Exists(p.into()))
        } else {
            bad("invalid label key")
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, labels: &[(String, String)]) -> bool {
        self.matches_with(|k| {
            labels
                .iter()
                .find(|(lk, _)| lk == k)
                .map(|(_, v)| v.as_str())
        })
    }

    /// Matches against a label lookup (`get(key)` is the label's value, if set).
    pub fn matches_with<'a>(&self, get: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.0.iter().all(|r| match r {
            LabelReq::Eq(k, v) => get(k) == Some(v.as_str()),
            LabelReq::NotEq(k, v) => get(k) != Some(v.as_str()),
            LabelReq::Exists(k) => get(k).is_some(),
            LabelReq::NotExists(k) => get(k).is_none(),
            LabelReq::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            LabelReq::NotIn(k, vs) => get(k).is_none_or(|x| vs.iter().all(|v| v != x)),
        })
    }
}

/// A parsed field selector: `field=value`, `field==value`, `field!=value`, comma = AND.
/// The fields allowed depend on the kind ([`crate::fields`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector(pub Vec<(&'static str, bool, String)>);

impl FieldSelector {
    /// Parses `s` for resource type `rt`; an unsupported field is refused with the
    /// apiserver's message.
    pub fn parse(s: &str, rt: &ResourceType) -> Result<Self, String> {
        let s = s.trim();
        let mut out = Vec::new();
        if s.is_empty() {
            return Ok(FieldSelector(out));
        }
        for part in s.split(',') {
            let part = part.trim();
            let (k, eq, v) = if let Some(i) = part.find("!=") {
                (&part[..i], false, &part[i + 2..])
            } else if let Some(i) = part.find('=') {
                let v = &part[i + 1..];
                (&part[..i], true, v.strip_prefix('=').unwrap_or(v))
            } else {
                return Err(format!(
                    "invalid selector: '{s}'; can't understand '{part}'"
                ));
            };
            let k = k.trim();
            fields::check(rt, k)?;
            let field = fields::selectable(rt)
                .iter()
                .find(|f| **f == k)
                .copied()
                .unwrap_or("metadata.name");
            out.push((field, eq, v.trim().to_string()));
        }
        Ok(FieldSelector(out))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `value(field)` gives the object's value of a selectable field.
    pub fn matches<S: AsRef<str>>(&self, value: impl Fn(&'static str) -> S) -> bool {
        self.0
            .iter()
            .all(|(field, eq, v)| (value(field).as_ref() == v) == *eq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn label_syntax() {
        let labels = l(&[("app", "web"), ("tier", "front")]);
        for (sel, want) in [
            ("", true),
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app", true),
            ("!app", false),
            ("!zone", true),
            ("app in (web,db)", true),
            ("app notin (web,db)", false),
            ("zone notin (a)", true),
            ("app=web,tier=back", false),
            ("app in (web, db),tier", true),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&labels),
                want,
                "{sel}"
            );
        }
        assert!(LabelSelector::parse("app in (a").is_err());
        assert!(LabelSelector::parse("a b c").is_err());
        assert!(LabelSelector::parse("app=,").is_err());
    }

    #[test]
    fn fields() {
        use crate::resources::{NAMESPACES, PODS};
        let value = |f: &str| match f {
            "metadata.name" => "p1",
            "metadata.namespace" => "ns",
            "status.phase" => "Running",
            _ => "",
        };
        let sel = |s: &str| FieldSelector::parse(s, &PODS).unwrap();
        assert!(sel("metadata.name=p1").matches(value));
        assert!(!sel("metadata.namespace!=ns").matches(value));
        assert!(sel("status.phase==Running").matches(value));
        assert!(sel("spec.nodeName=").matches(value));
        assert!(FieldSelector::parse("metadata.namespace=a", &NAMESPACES).is_err());
        assert!(FieldSelector::parse("spec.x=1", &PODS).is_err());
    }
}
