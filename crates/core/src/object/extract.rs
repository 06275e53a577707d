//! What the walk over one object collects ([`Extract`]), and the readers every part
//! of the walk shares.

use crate::error::DecodeError;
use crate::json::{unescape, JResult, Scanner, StrSpan};
use std::borrow::Cow;

/// Validates UTF-8 of a whole document.
pub(crate) fn utf8(b: &[u8]) -> Result<&str, DecodeError> {
    std::str::from_utf8(b).map_err(|e| DecodeError::Malformed {
        offset: e.valid_up_to(),
        reason: "invalid UTF-8",
    })
}

/// A key's bytes, decoded only if it has escapes.
#[inline]
/// Calls `read` with the scanner at the value of `metadata.<field>` of the object
/// `b` (each one, should a key repeat), skipping everything else: the stored copy's
/// readers of labels, annotations and ownerReferences.
pub(crate) fn in_metadata<'b>(
    b: &'b [u8],
    field: &[u8],
    mut read: impl FnMut(&mut Scanner<'b>) -> JResult<()>,
) -> JResult<()> {
    let mut sc = Scanner::new(b);
    if !sc.object_start()? {
        return Ok(());
    }
    let mut first = true;
    while let Some(k) = sc.next_key(&mut first)? {
        if key(b, k).as_ref() != b"metadata" {
            sc.value_dropped()?;
            continue;
        }
        if !sc.object_start()? {
            continue;
        }
        let mut first = true;
        while let Some(k) = sc.next_key(&mut first)? {
            if key(b, k).as_ref() == field {
                read(&mut sc)?;
            } else {
                sc.value_dropped()?;
            }
        }
    }
    Ok(())
}

pub(crate) fn key(b: &[u8], k: StrSpan) -> Cow<'_, [u8]> {
    let raw = &b[k.start..k.end];
    if k.escaped {
        match unescape(raw) {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    } else {
        Cow::Borrowed(raw)
    }
}

/// What the walk over one object collects (absolute positions in the document).
#[derive(Default)]
pub(super) struct Extract {
    pub(super) name: Option<StrSpan>,
    pub(super) namespace: Option<StrSpan>,
    pub(super) uid: Option<StrSpan>,
    pub(super) resource_version: Option<StrSpan>,
    pub(super) creation_timestamp: Option<StrSpan>,
    pub(super) deletion_timestamp: Option<StrSpan>,
    /// Byte ranges to drop from the stored copy (dropped metadata members), in order.
    pub(super) cuts: Vec<(usize, usize)>,
    // Pod columns.
    pub(super) containers: u16,
    pub(super) ready: u16,
    pub(super) restarts: u32,
    pub(super) node: Option<StrSpan>,
    pub(super) phase: Option<StrSpan>,
    pub(super) reason: Option<StrSpan>,
    pub(super) container_reason: Option<StrSpan>,
    // Deployment columns.
    pub(super) replicas: Option<u64>,
    pub(super) ready_replicas: u64,
    pub(super) updated_replicas: u64,
    pub(super) available_replicas: u64,
}

/// Where the walk keeps a metadata member the object is read by (name, namespace,
/// uid, resourceVersion, timestamps): the members [`KeptMetadata::Identity`] keeps.
#[inline]
pub(super) fn identity_slot<'e>(
    ex: &'e mut Extract,
    key: &[u8],
) -> Option<&'e mut Option<StrSpan>> {
    match key {
        b"name" => Some(&mut ex.name),
        b"namespace" => Some(&mut ex.namespace),
        b"uid" => Some(&mut ex.uid),
        b"resourceVersion" => Some(&mut ex.resource_version),
        b"creationTimestamp" => Some(&mut ex.creation_timestamp),
        b"deletionTimestamp" => Some(&mut ex.deletion_timestamp),
        _ => None,
    }
}

pub(super) fn sat(v: u64) -> u32 {
    v.min(u64::from(u32::MAX)) as u32
}
