//! The Kubernetes release the sim answers as: 1.27 to 1.37 (the newest, the default).
//!
//! Each method is one behaviour a list/watch client can observe that changed between
//! those releases, with where it comes from. Feature gates count at their default for the
//! release (`pkg/features/kube_features.go`,
//! `staging/src/k8s.io/apiserver/pkg/features/kube_features.go`, and the gates' pages in
//! kubernetes/website `content/en/docs/reference/command-line-tools-reference/
//! feature-gates/`); the `--feature-gates` flag of `kubelive-sim serve` overrides the two
//! the sim models (`WatchList`, `WatchListCompression`).
//!
//! Not modelled, because a client sees no difference at the defaults or the sim has no
//! way to show it: the watch cache's history window (`max(75 s, --request-timeout + 15 s)`
//! from 1.33, 75 s before: the same at the default 60 s request timeout); where LISTs are
//! served from (`ConsistentListFromCache`, beta 1.31, GA 1.34; `ListFromCacheSnapshot`,
//! beta 1.34): same answers; the 429 `storage is (re)initializing` while a watch cache
//! initializes (`ResilientWatchCacheInitialization`, beta 1.31, GA 1.34): the sim's caches
//! never initialize after the start.

use std::fmt;
use std::str::FromStr;

use crate::negotiate::AggregatedVersion;

/// A kube-apiserver release, 1.`minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    minor: u8,
}

impl Default for Release {
    fn default() -> Self {
        Release::NEWEST
    }
}

impl Release {
    pub const OLDEST: Release = Release { minor: 27 };
    pub const NEWEST: Release = Release { minor: 37 };

    /// Release 1.`minor`, if the sim can answer as it.
    pub fn new(minor: u8) -> Result<Release, String> {
        let r = Release { minor };
        if (Release::OLDEST..=Release::NEWEST).contains(&r) {
            Ok(r)
        } else {
            Err(format!(
                "Kubernetes 1.{minor} is not one the sim answers as: choose 1.{} to 1.{}",
                Release::OLDEST.minor,
                Release::NEWEST.minor
            ))
        }
    }

    /// Every release the sim answers as, oldest first.
    pub fn all() -> impl Iterator<Item = Release> {
        (Release::OLDEST.minor..=Release::NEWEST.minor).map(|minor| Release { minor })
    }

    pub fn minor(self) -> u8 {
        self.minor
    }

    /// `gitVersion` of `/version` (`staging/src/k8s.io/component-base/version/base.go`
    /// fills it from the build; the sim's build names itself).
    pub fn git_version(self) -> String {
        format!("v1.{}.0-kubelive-sim", self.minor)
    }

    /// Whether the `WatchList` gate is on by default: streaming lists
    /// (`sendInitialEvents=true`) are served, else refused with 422. Alpha and off
    /// 1.27-1.31, beta and on 1.32, off again 1.33 (kubernetes #131359), on from 1.34
    /// (#132704): kubernetes/website `feature-gates/WatchList.md`.
    pub fn watch_list_default(self) -> bool {
        self.minor == 32 || self.minor >= 34
    }

    /// Whether `sendInitialEvents` also requires `allowWatchBookmarks=true` (422
    /// otherwise). The validation in staging/src/k8s.io/apimachinery/pkg/apis/meta/
    /// internalversion/validation/validation.go no longer checks it (its test
    /// `watch-sendInitialEvents-no-allowWatchBookmark`: checking it broke watches from
    /// `resourceVersion=0` once those were defaulted into streaming lists); the 1.28-era
    /// report kube-rs/version-rs#46 (a plain `?watch=true` refused with 422 on a cluster
    /// with WatchList on) is the older check. Taken as present up to 1.28.
    pub fn initial_events_require_bookmarks(self) -> bool {
        self.minor <= 28
    }

    /// Whether the initial-events-end bookmark comes right after the last initial event
    /// (kubernetes #127012, 1.32: `processInterval` in staging/src/k8s.io/apiserver/pkg/
    /// storage/cacher/cache_watcher.go sends the interval's `initialEventsEndBookmark`).
    /// Before, it was the first bookmark the cacher's bookmark timer (`dispatchEvents`,
    /// `wait.Jitter(time.Second, 0.25)`) handed the watcher once the cache reached
    /// `bookmarkAfterResourceVersion` (`nextBookmarkTime` schedules such a watcher
    /// "immediately"); it queues behind the changes dispatched meanwhile, which therefore
    /// reach the client first.
    pub fn end_bookmark_right_after_initial_events(self) -> bool {
        self.minor >= 32
    }

    /// Whether a streaming list asked as a Table is refused with 406: kubernetes #126996
    /// (1.32) negotiates streaming lists with `watchListEndpointRestrictions` in
    /// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go, which refuses the
    /// `Table` transform; #132817 (merged July 2025, 1.34) serves them as Tables again.
    /// Before 1.32 nothing refused it: the watch handler converts every event, the end
    /// bookmark too, to a one-row Table as in any Table watch.
    pub fn refuses_table_streaming_lists(self) -> bool {
        self.minor == 32 || self.minor == 33
    }

    /// Whether the `WatchListCompression` gate is on by default: streaming-list responses
    /// are gzipped, one gzip member per flush (`perFlushGzipWriter` in staging/src/k8s.io/
    /// apiserver/pkg/endpoints/handlers/watch.go). Beta and on from 1.37 (kubernetes
    /// #139308, #140140; website `feature-gates/WatchListCompression.md`).
    pub fn watch_list_compression_default(self) -> bool {
        self.minor >= 37
    }

    /// The aggregated discovery versions `/api` and `/apis` serve: `apidiscovery.k8s.io/
    /// v2beta1` (beta, on since 1.27), `v2` from 1.30 (KEP-3352 GA), `v2beta1` gone from
    /// 1.33 (`AggregatedDiscoveryRemoveBetaType`, on by default from 1.33: website
    /// `feature-gates/AggregatedDiscoveryRemoveBetaType.md`).
    pub fn aggregated_discovery(self) -> &'static [AggregatedVersion] {
        match self.minor {
            ..=29 => &[AggregatedVersion::V2Beta1],
            30..=32 => &[AggregatedVersion::V2, AggregatedVersion::V2Beta1],
            _ => &[AggregatedVersion::V2],
        }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl FromStr for Release {
    type Err = String;

    /// `1.27`, `v1.27`, `1.27.3` and `v1.27.3-anything` name release 1.27.
    fn from_str(s: &str) -> Result<Release, String> {
        let bad = || {
            format!(
                "bad Kubernetes version {s:?}: expected 1.MINOR (e.g. 1.32, v1.32, 1.32.4), 1.{} to 1.{}",
                Release::OLDEST.minor,
                Release::NEWEST.minor
            )
        };
        let v = s.trim();
        let v = v.strip_prefix('v').unwrap_or(v);
        let mut parts = v.splitn(3, '.');
        let (Some(major), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(bad());
        };
        if let Some(patch) = parts.next() {
            let digits = patch.split(['-', '+']).next().unwrap_or("");
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
        }
        let number = |t: &str| {
            (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<u32>().ok())
                .flatten()
        };
        match (number(major), number(minor)) {
            (Some(1), Some(m)) => Release::new(u8::try_from(m).map_err(|_| bad())?),
            (Some(_), Some(_)) => Err(bad()),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_users_write() {
        for s in [
            "1.27",
            "v1.27",
            "1.27.3",
            "v1.27.16",
            "v1.27.0-rc.1",
            " 1.27 ",
        ] {
            assert_eq!(s.parse::<Release>(), Ok(Release { minor: 27 }), "{s}");
        }
        assert_eq!("1.37".parse::<Release>(), Ok(Release::NEWEST));
        for s in [
            "", "1", "1.", "2.27", "1.x", "1.27.", "1.27.a", "v", "1.-3", "1.999999",
        ] {
            assert!(s.parse::<Release>().is_err(), "{s:?}");
        }
        let err = "1.26".parse::<Release>().unwrap_err();
        assert!(err.contains("1.27 to 1.37"), "{err}");
        assert!("1.38".parse::<Release>().is_err());
    }

    #[test]
    fn default_is_the_newest() {
        assert_eq!(Release::default().to_string(), "1.37");
        assert_eq!(Release::all().count(), 11);
    }
}
