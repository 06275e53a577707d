//! The compaction dictionary ([`DICT`]) and its perfect hash: which member keys the
//! stored copy replaces by tokens ([`crate::compact`]), and how a key is found in it
//! with one multiply, one table load and one compare.
//!
//! The dictionary holds keys common to Pods, Deployments, ReplicaSets, ConfigMaps and
//! Namespaces, managedFields' `f:` keys included, ordered by how often they occur in
//! generated pods (`kubelive_sim::pod_json`): the most frequent get one-byte tokens.

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

/// The perfect hash: a multiply of the key's first and last eight bytes and length,
/// top 12 bits. `K` was searched offline; [`TABLE`] is built at compile time and the
/// build fails if two entries collide.
const K: u64 = 0xf8dc_a309_b5b3_9023;
const HASH_BITS: u32 = 12;

#[inline(always)]
const fn hash(w0: u64, w1: u64, len: usize) -> usize {
    ((w0 ^ w1.rotate_left(29) ^ len as u64).wrapping_mul(K) >> (64 - HASH_BITS)) as usize
}

/// First eight bytes (zero-padded) and, for keys longer than eight, the last eight
/// (little endian).
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

/// One dictionary entry as a lookup compares it.
#[derive(Clone, Copy)]
struct Entry {
    w0: u64,
    w1: u64,
    len: u64,
}

/// Entry index + 1 -> the key's words; 0 is the empty slot, whose length no key has,
/// so a miss costs the same one compare as a hit.
const ENTRIES: [Entry; DICT.len() + 1] = entries();

const fn entries() -> [Entry; DICT.len() + 1] {
    let mut out = [Entry {
        w0: 0,
        w1: 0,
        len: u64::MAX,
    }; DICT.len() + 1];
    let mut i = 0;
    while i < DICT.len() {
        let k = DICT[i].as_bytes();
        let (w0, w1) = words(k);
        out[i + 1] = Entry {
            w0,
            w1,
            len: k.len() as u64,
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

/// The dictionary index of a key of `n` bytes given as its [`words`]. Exact for
/// `n <= 16` (the words are the whole key); a longer key also needs its middle
/// compared ([`lookup`]).
#[inline(always)]
pub(crate) fn index_of_words(w0: u64, w1: u64, n: usize) -> Option<u8> {
    let slot = TABLE[hash(w0, w1, n)];
    let e = ENTRIES[usize::from(slot)];
    if (e.w0 ^ w0) | (e.w1 ^ w1) | (e.len ^ n as u64) != 0 {
        return None;
    }
    Some(slot.wrapping_sub(1))
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
    let idx = index_of_words(w0, w1, n)?;
    // Up to 16 bytes the two words cover the whole key; past that, the middle.
    if n > 16 {
        let key = b.get(start + 8..end - 8)?;
        let want = DICT[usize::from(idx)].as_bytes().get(8..n - 8)?;
        if key != want {
            return None;
        }
    }
    Some(idx)
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
