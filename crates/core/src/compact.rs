//! Key-dictionary compaction of stored JSON.
//!
//! Outside JSON strings, a valid document only ever contains whitespace, the six
//! structural characters, `"`, number characters and the letters of `true`, `false`
//! and `null`. Every other character is free to mean something else there. While an
//! object is copied into storage, each member key found in [`DICT`] (the whole
//! `"key":`, quotes and colon included, exactly as the server sent it) is replaced by
//! a token:
//!
//! * the first [`SINGLE`] entries by one free ASCII byte ([`TOKENS`]);
//! * the rest by one two-byte character U+0080 + (index - [`SINGLE`]).
//!
//! Storage therefore stays valid UTF-8 (metadata spans into it remain `&str` without
//! checks), and string contents are copied untouched. [`expand`] restores the exact
//! bytes in one pass that tracks whether it is inside a string.
//!
//! The dictionary holds keys common to Pods, Deployments, ReplicaSets, ConfigMaps and
//! Namespaces, managedFields' `f:` keys included, ordered by how often they occur in
//! generated pods (`kubelive_sim::pod_json`): the most frequent get one-byte tokens.

use crate::json::KeyHit;

/// Raw key bytes (as they appear between the quotes, escapes included).
pub(crate) const DICT: [&str; 254] = [
    ".",
    "name",
    "f:name",
    "apiVersion",
    "status",
    "path",
    "lastTransitionTime",
    "lastProbeTime",
    "f:status",
    "type",
    "f:lastTransitionTime",
    "f:lastProbeTime",
    "f:type",
    "key",
    "kind",
    "tolerationSeconds",
    "failureThreshold",
    "successThreshold",
    "timeoutSeconds",
    "periodSeconds",
    "defaultMode",
    "fieldsType",
    "f:httpGet",
    "operation",
    "fieldPath",
    "mountPath",
    "configMap",
    "f:memory",
    "fieldsV1",
    "fieldRef",
    "operator",
    "manager",
    "httpGet",
    "f:path",
    "f:port",
    "scheme",
    "memory",
    "effect",
    "image",
    "items",
    "time",
    "port",
    "uid",
    "ip",
    "creationTimestamp",
    "resourceVersion",
    "containers",
    "metadata",
    "spec",
    "f:terminationGracePeriodSeconds",
    "terminationGracePeriodSeconds",
    "k:{\\\"type\\\":\\\"ContainersReady\\\"}",
    "k:{\\\"type\\\":\\\"Initialized\\\"}",
    "terminationMessagePolicy",
    "terminationMessagePath",
    "f:enableServiceLinks",
    "f:pod-template-hash",
    "f:containerStatuses",
    "serviceAccountToken",
    "f:failureThreshold",
    "k:{\\\"type\\\":\\\"Ready\\\"}",
    "blockOwnerDeletion",
    "enableServiceLinks",
    "serviceAccountName",
    "pod-template-hash",
    "f:ownerReferences",
    "f:imagePullPolicy",
    "f:securityContext",
    "expirationSeconds",
    "containerStatuses",
    "f:readinessProbe",
    "preemptionPolicy",
    "f:containerPort",
    "f:livenessProbe",
    "f:restartPolicy",
    "f:schedulerName",
    "ownerReferences",
    "imagePullPolicy",
    "securityContext",
    "f:generateName",
    "f:volumeMounts",
    "readinessProbe",
    "serviceAccount",
    "f:annotations",
    "f:defaultMode",
    "managedFields",
    "containerPort",
    "livenessProbe",
    "restartPolicy",
    "schedulerName",
    "f:containers",
    "f:conditions",
    "generateName",
    "volumeMounts",
    "restartCount",
    "f:valueFrom",
    "f:mountPath",
    "f:resources",
    "f:configMap",
    "f:dnsPolicy",
    "f:startTime",
    "subresource",
    "annotations",
    "downwardAPI",
    "tolerations",
    "containerID",
    "f:fieldRef",
    "f:protocol",
    "f:requests",
    "f:metadata",
    "controller",
    "conditions",
    "f:volumes",
    "f:hostIPs",
    "namespace",
    "valueFrom",
    "resources",
    "projected",
    "dnsPolicy",
    "startedAt",
    "lastState",
    "startTime",
    "f:labels",
    "f:scheme",
    "f:limits",
    "f:hostIP",
    "f:podIPs",
    "protocol",
    "requests",
    "readOnly",
    "nodeName",
    "priority",
    "qosClass",
    "f:value",
    "f:image",
    "f:ports",
    "f:phase",
    "f:podIP",
    "sources",
    "volumes",
    "running",
    "imageID",
    "started",
    "hostIPs",
    "f:spec",
    "labels",
    "limits",
    "hostIP",
    "podIPs",
    "f:app",
    "f:cpu",
    "f:env",
    "value",
    "ports",
    "ready",
    "state",
    "phase",
    "podIP",
    "f:ip",
    "app",
    "cpu",
    "env",
    "f:deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/revision",
    "f:kubernetes.io/metadata.name",
    "kubernetes.io/metadata.name",
    "f:progressDeadlineSeconds",
    "k:{\\\"type\\\":\\\"PodScheduled\\\"}",
    "progressDeadlineSeconds",
    "f:revisionHistoryLimit",
    "f:fullyLabeledReplicas",
    "f:initialDelaySeconds",
    "revisionHistoryLimit",
    "f:observedGeneration",
    "fullyLabeledReplicas",
    "f:serviceAccountName",
    "f:availableReplicas",
    "initialDelaySeconds",
    "f:tolerationSeconds",
    "observedGeneration",
    "f:successThreshold",
    "f:preemptionPolicy",
    "availableReplicas",
    "f:updatedReplicas",
    "f:lastUpdateTime",
    "f:maxUnavailable",
    "f:timeoutSeconds",
    "f:serviceAccount",
    "updatedReplicas",
    "f:readyReplicas",
    "f:rollingUpdate",
    "f:periodSeconds",
    "maxUnavailable",
    "lastUpdateTime",
    "f:nodeSelector",
    "rollingUpdate",
    "readyReplicas",
    "f:matchLabels",
    "f:tolerations",
    "f:finalizers",
    "nodeSelector",
    "matchLabels",
    "generation",
    "f:replicas",
    "f:selector",
    "f:template",
    "f:strategy",
    "f:maxSurge",
    "finalizers",
    "terminated",
    "finishedAt",
    "f:nodeName",
    "f:priority",
    "f:qosClass",
    "f:readOnly",
    "f:operator",
    "f:message",
    "f:command",
    "subdomain",
    "replicas",
    "selector",
    "message",
    "reason",
    "f:reason",
    "data",
    "f:data",
    "strategy",
    "template",
    "maxSurge",
    "waiting",
    "exitCode",
    "args",
    "f:args",
    "command",
    "f:key",
    "f:effect",
    "hostname",
    "envFrom",
    "affinity",
    "secretName",
    "secret",
    "emptyDir",
    "persistentVolumeClaim",
    "claimName",
    "tcpSocket",
    "exec",
    "startupProbe",
    "initContainers",
    "initContainerStatuses",
    "runAsUser",
    "runAsNonRoot",
    "fsGroup",
    "capabilities",
    "allowPrivilegeEscalation",
];

/// Entries with a one-byte token.
pub(crate) const SINGLE: usize = 93;

/// The one-byte tokens: every ASCII byte that cannot occur outside a string in valid
/// JSON (not whitespace, structure, quote, backslash, number or literal characters).
const TOKENS: [u8; SINGLE] = free_ascii();

const fn free_ascii() -> [u8; SINGLE] {
    let used = b" \t\n\r{}[],:\"\\0123456789-+.eEtruefalsn";
    let mut out = [0u8; SINGLE];
    let mut n = 0;
    let mut c = 0u8;
    while c < 0x80 {
        let mut free = true;
        let mut k = 0;
        while k < used.len() {
            if used[k] == c {
                free = false;
            }
            k += 1;
        }
        if free {
            out[n] = c;
            n += 1;
        }
        c += 1;
    }
    assert!(n == SINGLE);
    out
}

/// What a byte means outside a string in stored JSON.
const CLASS_PLAIN: u8 = 0;
const CLASS_QUOTE: u8 = 1;
const CLASS_SINGLE: u8 = 2;
const CLASS_DOUBLE: u8 = 3;

/// Byte -> class; for one-byte tokens the entry index is in [`SINGLE_INDEX`].
const CLASS: [u8; 256] = classes();
const SINGLE_INDEX: [u8; 128] = single_index();

/// Lead bytes of two-byte tokens: U+0080.. is `C2 80`.., so leads `C2..=C4`.
const LEAD_FIRST: u8 = 0xC2;
const LEAD_LAST: u8 = 0xC2 + ((DICT.len() - SINGLE - 1) / 64) as u8;

const fn classes() -> [u8; 256] {
    let mut t = [CLASS_PLAIN; 256];
    t[b'"' as usize] = CLASS_QUOTE;
    let mut i = 0;
    while i < SINGLE {
        t[TOKENS[i] as usize] = CLASS_SINGLE;
        i += 1;
    }
    let mut l = LEAD_FIRST;
    while l <= LEAD_LAST {
        t[l as usize] = CLASS_DOUBLE;
        l += 1;
    }
    t
}

const fn single_index() -> [u8; 128] {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < SINGLE {
        t[TOKENS[i] as usize] = i as u8;
        i += 1;
    }
    t
}

/// The perfect hash: a multiply of the key's first and last eight bytes and length,
/// top 12 bits. `K` was searched offline; [`TABLE`] is built at compile time and the
/// build fails if two entries collide.
const K: u64 = 0xf8dc_a309_b5b3_9023;
const HASH_BITS: u32 = 12;

#[inline(always)]
const fn hash(w0: u64, w1: u64, len: usize) -> usize {
    ((w0 ^ w1.rotate_left(29) ^ len as u64).wrapping_mul(K) >> (64 - HASH_BITS)) as usize
}

/// First eight bytes (zero-padded) and, for keys longer than eight, the last eight.
pub(crate) const fn words(k: &[u8]) -> (u64, u64) {
    let n = k.len();
    let mut w0 = 0u64;
    let mut i = 0;
    while i < 8 && i < n {
        w0 |= (k[i] as u64) << (8 * i);
        i += 1;
    }
    let mut w1 = 0u64;
    if n > 8 {
        let mut i = 0;
        while i < 8 {
            w1 |= (k[n - 8 + i] as u64) << (8 * i);
            i += 1;
        }
    }
    (w0, w1)
}

/// One dictionary entry as the lookup compares it.
#[derive(Clone, Copy)]
struct Entry {
    w0: u64,
    w1: u64,
    len: u32,
}

const ENTRIES: [Entry; DICT.len()] = entries();

const fn entries() -> [Entry; DICT.len()] {
    let mut out = [Entry {
        w0: 0,
        w1: 0,
        len: 0,
    }; DICT.len()];
    let mut i = 0;
    while i < DICT.len() {
        let k = DICT[i].as_bytes();
        let (w0, w1) = words(k);
        out[i] = Entry {
            w0,
            w1,
            len: k.len() as u32,
        };
        i += 1;
    }
    out
}

/// Hash slot -> entry index + 1 (0: empty).
const TABLE: [u8; 1 << HASH_BITS] = table();

const fn table() -> [u8; 1 << HASH_BITS] {
    assert!(DICT.len() < 255);
    let mut t = [0u8; 1 << HASH_BITS];
    let mut i = 0;
    while i < DICT.len() {
        let k = DICT[i].as_bytes();
        assert!(!k.is_empty());
        let mut j = 0;
        while j < k.len() {
            // Raw key bytes: never a bare quote or a control character.
            assert!(k[j] >= 0x20 && k[j] < 0x80 && (k[j] != b'"' || (j > 0 && k[j - 1] == b'\\')));
            j += 1;
        }
        let (w0, w1) = words(k);
        let h = hash(w0, w1, k.len());
        assert!(t[h] == 0, "dictionary hash collision: pick another K");
        t[h] = (i + 1) as u8;
        i += 1;
    }
    t
}

/// The dictionary index of the raw key `b[start..end]` (between its quotes), if any.
/// Called for every key the scanner passes, so it is branch-light.
#[inline(always)]
pub(crate) fn lookup(b: &[u8], start: usize, end: usize) -> Option<u8> {
    let n = end.wrapping_sub(start);
    if n.wrapping_sub(1) >= MAX_KEY {
        return None;
    }
    let w0 = match b.get(start..start + 8) {
        // Keep only the key's bytes (n >= 1, so the shift is at most 56).
        Some(s) => {
            u64::from_le_bytes(s.try_into().unwrap_or([0; 8])) & (u64::MAX >> (8 * (8 - n.min(8))))
        }
        None => words(b.get(start..end)?).0,
    };
    let w1 = match b.get(end.wrapping_sub(8)..end) {
        Some(s) => {
            u64::from_le_bytes(s.try_into().unwrap_or([0; 8])) & 0u64.wrapping_sub(u64::from(n > 8))
        }
        None => 0,
    };
    let slot = TABLE[hash(w0, w1, n)];
    if slot == 0 {
        return None;
    }
    let idx = usize::from(slot - 1);
    let e = ENTRIES[idx];
    if (e.w0 ^ w0) | (e.w1 ^ w1) | (u64::from(e.len) ^ n as u64) != 0 {
        return None;
    }
    // Up to 16 bytes the two words cover the whole key; past that, the middle.
    if n > 16 {
        let key = b.get(start + 8..end - 8)?;
        let want = DICT[idx].as_bytes().get(8..n - 8)?;
        if key != want {
            return None;
        }
    }
    Some(idx as u8)
}

const MAX_KEY: usize = max_key();

const fn max_key() -> usize {
    let mut m = 0;
    let mut i = 0;
    while i < DICT.len() {
        if DICT[i].len() > m {
            m = DICT[i].len();
        }
        i += 1;
    }
    m
}

/// The hit for entry `idx` at `at`.
#[inline(always)]
pub(crate) fn hit(at: u32, idx: u8) -> KeyHit {
    let [plain, token_len, t0, t1] = HITS[usize::from(idx)];
    KeyHit {
        at,
        plain,
        token_len,
        token: [t0, t1],
    }
}

/// Per entry: `"key":` length, token length, token bytes. A two-byte token is
/// U+0080 + (idx - SINGLE) in UTF-8 (lead C2..=C4).
const HITS: [[u8; 4]; DICT.len()] = hit_table();

const fn hit_table() -> [[u8; 4]; DICT.len()] {
    let mut t = [[0u8; 4]; DICT.len()];
    let mut i = 0;
    while i < DICT.len() {
        let plain = (DICT[i].len() + 3) as u8;
        t[i] = if i < SINGLE {
            [plain, 1, TOKENS[i], 0]
        } else {
            let cp = 0x80 + (i - SINGLE);
            [plain, 2, 0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]
        };
        i += 1;
    }
    t
}

/// Appends the exact JSON that `stored` (compacted by the decoder) stands for.
pub(crate) fn expand(stored: &[u8], out: &mut Vec<u8>) {
    let n = stored.len();
    let mut i = 0;
    let mut run = 0;
    while i < n {
        let c = stored[i];
        match CLASS[usize::from(c)] {
            CLASS_PLAIN => {
                i += 1;
                continue;
            }
            CLASS_QUOTE => {
                // Copy the whole string, escapes and all, up to its closing quote.
                let mut j = i + 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &stored[j.min(n)..]) {
                        Some(k) if stored[j + k] == b'\\' => j += k + 2,
                        Some(k) => {
                            j += k + 1;
                            break;
                        }
                        None => {
                            j = n;
                            break;
                        }
                    }
                }
                i = j.min(n);
                continue;
            }
            class => {
                out.extend_from_slice(&stored[run..i]);
                let idx = if class == CLASS_SINGLE {
                    i += 1;
                    usize::from(SINGLE_INDEX[usize::from(c & 0x7f)])
                } else {
                    let lo = stored.get(i + 1).copied().unwrap_or(0x80);
                    i += 2;
                    SINGLE + ((usize::from(c & 0x1f) << 6) | usize::from(lo & 0x3f)) - 0x80
                };
                out.push(b'"');
                out.extend_from_slice(DICT.get(idx).copied().unwrap_or("").as_bytes());
                out.extend_from_slice(b"\":");
                run = i;
            }
        }
    }
    out.extend_from_slice(&stored[run..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_found_and_round_trips() {
        for (i, k) in DICT.iter().enumerate() {
            let doc = format!("{{\"{k}\":1}}");
            let b = doc.as_bytes();
            assert_eq!(lookup(b, 2, 2 + k.len()), Some(i as u8), "{k}");
            let h = hit(7, i as u8);
            assert_eq!((h.at, usize::from(h.plain)), (7, k.len() + 3));
            assert_eq!(usize::from(h.token_len), if i < SINGLE { 1 } else { 2 });
            let s = std::str::from_utf8(&h.token[..usize::from(h.token_len)]).unwrap();
            let mut out = Vec::new();
            expand(format!("{{{s}1}}").as_bytes(), &mut out);
            assert_eq!(out, b, "{k}");
        }
    }

    #[test]
    fn near_misses_are_not_found() {
        for k in [
            "nam",
            "names",
            "Name",
            "f:nam",
            "f:names",
            "",
            "x",
            "lastTransitionTim",
        ] {
            let doc = format!("\"{k}\"");
            assert_eq!(lookup(doc.as_bytes(), 1, 1 + k.len()), None, "{k}");
        }
        // At the very end of the buffer (short load path).
        assert_eq!(lookup(b"\"name", 1, 5), Some(1));
    }

    #[test]
    fn strings_are_copied_verbatim() {
        let stored = "{\"a\\\"!b\":\"!#\u{80}é\\\\\",\"x\":[\"\\\"\"]}";
        let mut out = Vec::new();
        expand(stored.as_bytes(), &mut out);
        assert_eq!(out, stored.as_bytes());
    }
}
