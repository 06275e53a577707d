//! The view's state in the URL hash, so views can be bookmarked and shared:
//! `#r=v1/pods&ns=default&q=app%3Dweb&sort=-restarts` (`&stream=1`: streaming list).

/// What the user is looking at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewState {
    /// `v1/pods`, `apps/v1/deployments`, `<group>/<version>/<plural>`.
    pub resource: String,
    /// `None`: all namespaces.
    pub namespace: Option<String>,
    pub filter: String,
    /// `name`, `-restarts` (see `table::Sort`).
    pub sort: String,
    /// Sync with a streaming list (`sendInitialEvents`) instead of paginated LIST.
    pub streaming: bool,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            resource: "v1/pods".to_string(),
            namespace: None,
            filter: String::new(),
            sort: "name".to_string(),
            streaming: false,
        }
    }
}

impl ViewState {
    /// Reads a hash (with or without the leading `#`); unknown keys are ignored.
    pub fn from_hash(hash: &str) -> ViewState {
        let mut v = ViewState::default();
        let hash = hash.strip_prefix('#').unwrap_or(hash);
        let hash = hash.strip_prefix('/').unwrap_or(hash);
        let hash = hash.strip_prefix('?').unwrap_or(hash);
        for pair in hash.split('&').filter(|p| !p.is_empty()) {
            let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
            let val = decode(val);
            match k {
                "r" if !val.is_empty() => v.resource = val,
                "ns" if !val.is_empty() => v.namespace = Some(val),
                "q" => v.filter = val,
                "sort" if !val.is_empty() => v.sort = val,
                "stream" => v.streaming = val == "1",
                _ => {}
            }
        }
        v
    }

    pub fn to_hash(&self) -> String {
        let mut out = format!("#r={}", encode(&self.resource));
        if let Some(ns) = &self.namespace {
            out.push_str("&ns=");
            out.push_str(&encode(ns));
        }
        if !self.filter.is_empty() {
            out.push_str("&q=");
            out.push_str(&encode(&self.filter));
        }
        if self.sort != "name" {
            out.push_str("&sort=");
            out.push_str(&encode(&self.sort));
        }
        if self.streaming {
            out.push_str("&stream=1");
        }
        out
    }

    /// The API prefix and plural of the resource: (`/api/v1`, `pods`).
    pub fn api(&self) -> Option<(String, String)> {
        let parts: Vec<&str> = self.resource.split('/').collect();
        match parts.as_slice() {
            [v, plural] if !v.is_empty() && !plural.is_empty() => {
                Some((format!("/api/{v}"), plural.to_string()))
            }
            [g, v, plural] if !g.is_empty() && !v.is_empty() && !plural.is_empty() => {
                Some((format!("/apis/{g}/{v}"), plural.to_string()))
            }
            _ => None,
        }
    }
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 3 <= b.len() => {
                match u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or(""), 16) {
                    Ok(v) => {
                        out.push(v);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_hash() {
        let v = ViewState {
            resource: "apps/v1/deployments".into(),
            namespace: Some("team-a".into()),
            filter: "app=web <b>&x".into(),
            sort: "-age".into(),
            streaming: true,
        };
        let h = v.to_hash();
        assert_eq!(
            h,
            "#r=apps/v1/deployments&ns=team-a&q=app%3Dweb%20%3Cb%3E%26x&sort=-age&stream=1"
        );
        assert_eq!(ViewState::from_hash(&h), v);
        assert_eq!(ViewState::from_hash(""), ViewState::default());
        assert_eq!(ViewState::from_hash("#q=%zz%4").filter, "%zz%4");
    }

    #[test]
    fn resources_map_to_api_prefixes() {
        let mut v = ViewState::default();
        assert_eq!(v.api(), Some(("/api/v1".into(), "pods".into())));
        v.resource = "kubelive.dev/v1/widgets".into();
        assert_eq!(
            v.api(),
            Some(("/apis/kubelive.dev/v1".into(), "widgets".into()))
        );
        v.resource = "bad".into();
        assert_eq!(v.api(), None);
    }
}
