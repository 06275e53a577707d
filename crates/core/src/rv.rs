//! resourceVersion: an opaque string, compared only for equality.

use std::fmt;
use std::sync::Arc;

/// An opaque resourceVersion as the server sent it. Never parsed, never ordered:
/// equality is the only comparison the protocol allows.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ResourceVersion(Arc<str>);

impl ResourceVersion {
    pub fn new(s: &str) -> Self {
        ResourceVersion(Arc::from(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ResourceVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.0)
    }
}

impl fmt::Display for ResourceVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
