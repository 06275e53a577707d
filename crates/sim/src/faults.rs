//! Faults as data: a [`FaultPlan`] applied by the model (so the in-process harness and the
//! HTTP server see the same faults), and its `--faults SPEC` parser.
//!
//! SPEC: comma-separated items, each `name`, `name=value` or `action@seconds`:
//!
//! | item | meaning |
//! |---|---|
//! | `cut=P` | each watch ends cleanly (terminating chunk) at a random byte, probability P |
//! | `abort=P` | each watch ends abruptly (no terminating chunk) at a random byte |
//! | `cut-within=BYTES` | cut/abort points are drawn from `0..BYTES` (default 65536) |
//! | `split=P` | each event chunk is split at random points with probability P |
//! | `nobookmarks` / `nobookmarks=P` | withhold bookmarks from a watch (all, or with probability P) |
//! | `lag=N` | a lagging replica N versions behind serves non-consistent reads and watches |
//! | `lag-chance=P` | fraction of requests that hit the lagging replica (default 1) |
//! | `429=P`, `500=P`, `503=P` | a list/watch request fails with that status (Status JSON + Retry-After) |
//! | `retry-after=S` | the Retry-After seconds for those (default 1) |
//! | `html=P` | a list/watch request gets an HTML 502 page from a "proxy" |
//! | `malformed=P` | a watch emits one malformed document and ends |
//! | `drip=BYTES/MS` | slow drip: watch bytes come at most BYTES per MS milliseconds |
//! | `proxy-cut-every=MS` | a flaky proxy cuts every watch after about MS of life (± 50%): mid-document, after an HTML error page, or after a truncated line |
//! | `silent=P` | each watch goes silent (open, no bytes, never ends) at a random moment in its first `silent-within` ms, with probability P |
//! | `silent-within=MS` | the window for `silent=P` (default 10000) |
//! | `compact@S` | compaction at S seconds of simulated time (repeatable) |
//! | `restart@S` | server restart (store kept, watches dropped) at S seconds |
//! | `silent@S` | at S seconds every open watch (and every later one) goes silent: the connection stays open, nothing more is sent, no bookmarks, no end |
//!
//! `none` or an empty SPEC is no faults. Example: `cut=0.2,split=0.5,429=0.05,compact@30`.

/// A one-shot action scheduled at a simulated time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Compact all history now (continue tokens and old versions expire).
    Compact,
    /// Restart the server: store kept, watches dropped abruptly, watch cache re-initialised.
    Restart,
    /// Every watch goes silent: open, no more bytes, never ends by itself.
    Silent,
}

/// How a flaky proxy ends a watch response (`proxy-cut-every`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutStyle {
    /// Part of a document, then the connection is reset.
    MidDocument,
    /// The proxy's HTML error page in the body, then the connection is reset.
    HtmlPage,
    /// Part of a line, then a clean end of the body.
    TruncatedLine,
}

/// Seeded, scriptable faults. All probabilities are in `0.0..=1.0`.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultPlan {
    pub cut: f64,
    pub abort: f64,
    pub cut_within: u64,
    pub split: f64,
    pub no_bookmarks: f64,
    pub lag: Option<u64>,
    pub lag_chance: f64,
    pub err429: f64,
    pub err500: f64,
    pub err503: f64,
    pub retry_after: u64,
    pub html: f64,
    pub malformed: f64,
    /// (bytes per piece, milliseconds between pieces)
    pub drip: Option<(usize, u64)>,
    /// Every watch is cut by a "proxy" after about this many ms of life (± 50%).
    pub proxy_cut_every_ms: Option<u64>,
    /// Probability that a watch goes silent, somewhere in its first `silent_within_ms`.
    pub silent: f64,
    pub silent_within_ms: u64,
    /// (simulated ms, action), applied once each when time passes them.
    pub at: Vec<(u64, Action)>,
}

impl Default for FaultPlan {
    fn default() -> Self {
        FaultPlan {
            cut: 0.0,
            abort: 0.0,
            cut_within: 65536,
            split: 0.0,
            no_bookmarks: 0.0,
            lag: None,
            lag_chance: 1.0,
            err429: 0.0,
            err500: 0.0,
            err503: 0.0,
            retry_after: 1,
            html: 0.0,
            malformed: 0.0,
            drip: None,
            proxy_cut_every_ms: None,
            silent: 0.0,
            silent_within_ms: 10_000,
            at: Vec::new(),
        }
    }
}

impl FaultPlan {
    /// No faults.
    pub fn none() -> Self {
        Self::default()
    }

    /// Parses a SPEC (see the module docs).
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut p = FaultPlan::default();
        let spec = spec.trim();
        if spec.is_empty() || spec == "none" {
            return Ok(p);
        }
        let prob = |k: &str, v: Option<&str>| -> Result<f64, String> {
            let x: f64 = v
                .unwrap_or("1")
                .parse()
                .map_err(|_| format!("fault {k}: expected a probability, got {v:?}"))?;
            if (0.0..=1.0).contains(&x) {
                Ok(x)
            } else {
                Err(format!("fault {k}: probability {x} not in 0..1"))
            }
        };
        let int = |k: &str, v: Option<&str>| -> Result<u64, String> {
            v.ok_or_else(|| format!("fault {k}: needs a value"))?
                .parse()
                .map_err(|_| format!("fault {k}: expected an integer, got {v:?}"))
        };
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if let Some((action, secs)) = item.split_once('@') {
                let s: f64 = secs
                    .parse()
                    .map_err(|_| format!("fault {item}: bad seconds"))?;
                let ms = (s * 1000.0) as u64;
                let a = match action {
                    "compact" => Action::Compact,
                    "restart" => Action::Restart,
                    "silent" => Action::Silent,
                    _ => return Err(format!("unknown fault action {action:?}")),
                };
                p.at.push((ms, a));
                continue;
            }
            let (k, v) = match item.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (item, None),
            };
            match k {
                "cut" => p.cut = prob(k, v)?,
                "abort" => p.abort = prob(k, v)?,
                "cut-within" => p.cut_within = int(k, v)?.max(1),
                "split" => p.split = prob(k, v)?,
                "nobookmarks" => p.no_bookmarks = prob(k, v)?,
                "lag" => p.lag = Some(int(k, v)?),
                "lag-chance" => p.lag_chance = prob(k, v)?,
                "429" => p.err429 = prob(k, v)?,
                "500" => p.err500 = prob(k, v)?,
                "503" => p.err503 = prob(k, v)?,
                "retry-after" => p.retry_after = int(k, v)?,
                "html" => p.html = prob(k, v)?,
                "malformed" => p.malformed = prob(k, v)?,
                "proxy-cut-every" => p.proxy_cut_every_ms = Some(int(k, v)?.max(1)),
                "silent" => p.silent = prob(k, v)?,
                "silent-within" => p.silent_within_ms = int(k, v)?.max(1),
                "drip" => {
                    let v = v.ok_or("fault drip: needs BYTES/MS")?;
                    let (b, ms) = v.split_once('/').ok_or("fault drip: needs BYTES/MS")?;
                    let b: usize = b.parse().map_err(|_| "fault drip: bad BYTES")?;
                    let ms: u64 = ms.parse().map_err(|_| "fault drip: bad MS")?;
                    p.drip = Some((b.max(1), ms));
                }
                _ => return Err(format!("unknown fault {k:?}")),
            }
        }
        p.at.sort_by_key(|(t, _)| *t);
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_spec() {
        let p = FaultPlan::parse("cut=0.5,abort=0.1,split,nobookmarks,lag=3,429=0.2,retry-after=2,drip=8/50,restart@2.5,compact@1").unwrap();
        assert_eq!(p.cut, 0.5);
        assert_eq!(p.split, 1.0);
        assert_eq!(p.no_bookmarks, 1.0);
        assert_eq!(p.lag, Some(3));
        assert_eq!(p.drip, Some((8, 50)));
        assert_eq!(p.at, vec![(1000, Action::Compact), (2500, Action::Restart)]);
        assert_eq!(FaultPlan::parse("none").unwrap(), FaultPlan::none());
        assert!(FaultPlan::parse("cut=2").is_err());
        assert!(FaultPlan::parse("bogus").is_err());
        let p = FaultPlan::parse("proxy-cut-every=1000,silent=0.5,silent-within=2000,silent@30")
            .unwrap();
        assert_eq!(p.proxy_cut_every_ms, Some(1000));
        assert_eq!((p.silent, p.silent_within_ms), (0.5, 2000));
        assert_eq!(p.at, vec![(30_000, Action::Silent)]);
        assert!(FaultPlan::parse("proxy-cut-every").is_err());
    }
}
