//! CronJobs that make Jobs that make Pods, as kube-controller-manager's cronjob and job
//! controllers do.
//!
//! Facts carried over (1.27-1.37):
//! * a CronJob's Job is `<cronjob>-<scheduled time in minutes since the epoch>`
//!   (`pkg/controller/cronjob/utils.go` `getJobName`), owned by the CronJob (controller:
//!   true, blockOwnerDeletion: true); the CronJob's status lists its running Jobs
//!   (`active`, object references) and `lastScheduleTime`, then `lastSuccessfulTime`;
//!   finished Jobs beyond `successfulJobsHistoryLimit` (default 3) are deleted, oldest
//!   first, with background propagation (`cronjob_controllerv2.go`
//!   `removeOldestJobs`), so the garbage collector takes their pods;
//! * a Job's pod is `<job>-<5 random characters>` (generateName), owned by the Job, labelled
//!   `batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name` and the legacy
//!   `controller-uid`, `job-name`; the Job's selector is its controller-uid label
//!   (`pkg/registry/batch/job/strategy.go` `generateSelector`); its status gets
//!   `startTime` and `active` when the pod is made, `ready` when it is ready, and
//!   `succeeded`, `completionTime` and a `Complete` condition when it succeeds
//!   (`pkg/controller/job/job_controller.go`).
//!
//! Not modelled: the `batch.kubernetes.io/job-tracking` finalizer on running pods, the
//! `SuccessCriteriaMet` condition 1.31+ controllers add before `Complete`, the
//! `cronjob-scheduled-timestamp` annotation (1.28+), schedules other than every N
//! minutes.

use std::collections::VecDeque;

use serde_json::{json, Value};

use super::Workload;
use crate::model::Cluster;
use crate::resources::{CRONJOBS, JOBS, PODS};
use crate::util::{epoch_unix_s, timestamp};

/// How long after its start a Job's pod is running and ready.
pub const JOB_POD_START_MS: u64 = 2_000;
/// How long after its start a Job's pod succeeds.
pub const JOB_RUN_MS: u64 = 20_000;
/// `successfulJobsHistoryLimit`'s default.
const SUCCESSFUL_JOBS_HISTORY_LIMIT: usize = 3;

#[derive(Debug, Clone)]
pub(super) struct CronJobState {
    namespace: String,
    name: String,
    uid: String,
    every_min: u64,
    image: String,
    next_ms: u64,
    last_schedule_ms: Option<u64>,
    last_success_ms: Option<u64>,
    /// Its Jobs, oldest first.
    jobs: VecDeque<JobState>,
}

#[derive(Debug, Clone)]
struct JobState {
    name: String,
    uid: String,
    pod: String,
    started_ms: u64,
    stage: JobStage,
}

/// Where a Job is: each stage holds only what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobStage {
    /// Its pod is made, not yet running.
    Starting,
    Running,
    Succeeded {
        at_ms: u64,
    },
}

impl Workload {
    /// Creates CronJob `namespace/name` running every `every_min` minutes (a schedule of
    /// `*/N * * * *`); the workload's [`Workload::tick`] runs its Jobs. Its uid.
    pub fn add_cronjob(
        &mut self,
        c: &mut Cluster,
        namespace: &str,
        name: &str,
        every_min: u64,
        now_ms: u64,
    ) -> Result<String, String> {
        if every_min == 0 || every_min > 59 {
            return Err(format!(
                "a schedule of every {every_min} minutes is not one the sim runs (1 to 59)"
            ));
        }
        let image = format!("registry.example.com/{namespace}/{name}:1.0.0");
        let cj = json!({
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "schedule": format!("*/{every_min} * * * *"),
                "concurrencyPolicy": "Allow",
                "suspend": false,
                "jobTemplate": {"metadata": {"creationTimestamp": null}, "spec": {"template": {
                    "metadata": {"creationTimestamp": null},
                    "spec": {"containers": [container(name, &image)], "restartPolicy": "Never",
                             "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                             "schedulerName": "default-scheduler", "securityContext": {}}}}},
                "successfulJobsHistoryLimit": SUCCESSFUL_JOBS_HISTORY_LIMIT,
                "failedJobsHistoryLimit": 1
            },
            "status": {}
        });
        let r = c.create(CRONJOBS, cj, now_ms).map_err(|e| e.to_string())?;
        self.cronjobs.push(CronJobState {
            namespace: namespace.into(),
            name: name.into(),
            uid: r.uid.clone(),
            every_min,
            image,
            next_ms: next_run_ms(now_ms, every_min),
            last_schedule_ms: None,
            last_success_ms: None,
            jobs: VecDeque::new(),
        });
        Ok(r.uid)
    }

    /// Runs the CronJobs' schedules and their Jobs up to `now_ms`.
    pub(super) fn run_cronjobs(&mut self, c: &mut Cluster, now_ms: u64) {
        for i in 0..self.cronjobs.len() {
            loop {
                let cj = &self.cronjobs[i];
                let job_due = cj.jobs.iter().filter_map(next_change).min();
                let due = job_due.map_or(cj.next_ms, |j| j.min(cj.next_ms));
                if due > now_ms {
                    break;
                }
                if job_due == Some(due) {
                    self.advance_job(c, i, due);
                } else {
                    self.schedule(c, i, due);
                }
            }
        }
    }

    /// The CronJob's scheduled time `at_ms` has come: a Job, its pod, their status.
    fn schedule(&mut self, c: &mut Cluster, i: usize, at_ms: u64) {
        self.cronjobs[i].next_ms = next_run_ms(at_ms, self.cronjobs[i].every_min);
        let suffix = self.rng.alnum(5);
        let cj = &mut self.cronjobs[i];
        let job_name = format!("{}-{}", cj.name, (epoch_unix_s() + at_ms / 1000) / 60);
        let job = json!({
            "metadata": {"name": job_name, "namespace": cj.namespace,
                "ownerReferences": [owner("CronJob", &cj.name, &cj.uid)]},
            "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 6,
                "template": {"spec": {"containers": [container(&cj.name, &cj.image)], "restartPolicy": "Never"}}},
            "status": {}
        });
        let Ok(j) = c.create(JOBS, job, at_ms) else {
            return;
        };
        // The job controller: the selector and template labels the apiserver sets, the pod.
        let labels = json!({"batch.kubernetes.io/controller-uid": j.uid, "batch.kubernetes.io/job-name": job_name,
                            "controller-uid": j.uid, "job-name": job_name});
        let pod_name = format!("{job_name}-{suffix}");
        let pod = json!({
            "metadata": {"name": pod_name, "generateName": format!("{job_name}-"), "namespace": cj.namespace,
                "labels": labels, "ownerReferences": [owner("Job", &job_name, &j.uid)]},
            "spec": {"containers": [container(&cj.name, &cj.image)], "restartPolicy": "Never",
                "terminationGracePeriodSeconds": 30, "nodeName": format!("node-{}", at_ms / 1000 % 3)},
            "status": {"phase": "Pending", "startTime": timestamp(at_ms)}
        });
        let _ = c.create(PODS, pod, at_ms);
        cj.last_schedule_ms = Some(at_ms);
        cj.jobs.push_back(JobState {
            name: job_name,
            uid: j.uid,
            pod: pod_name,
            started_ms: at_ms,
            stage: JobStage::Starting,
        });
        let job = cj.jobs.back().cloned();
        if let Some(job) = job {
            let _ = c.update(JOBS, job_json(&self.cronjobs[i], &job, &labels), at_ms);
        }
        let _ = c.update(CRONJOBS, cronjob_status(&self.cronjobs[i], c), at_ms);
    }

    /// Moves the Job whose change is due at `at_ms` on a stage.
    fn advance_job(&mut self, c: &mut Cluster, i: usize, at_ms: u64) {
        let cj = &mut self.cronjobs[i];
        let Some(k) = cj.jobs.iter().position(|j| next_change(j) == Some(at_ms)) else {
            return;
        };
        let job = &mut cj.jobs[k];
        let ns = cj.namespace.clone();
        let (phase, ready) = match job.stage {
            JobStage::Starting => {
                job.stage = JobStage::Running;
                ("Running", true)
            }
            JobStage::Running => {
                job.stage = JobStage::Succeeded { at_ms };
                cj.last_success_ms = Some(at_ms);
                ("Succeeded", false)
            }
            JobStage::Succeeded { .. } => return,
        };
        let pod_name = job.pod.clone();
        let started = job.started_ms;
        let container = cj.name.clone();
        let _ = c.modify(PODS, &ns, &pod_name, at_ms, |p| {
            p["status"] = pod_status(&container, phase, ready, started, at_ms);
        });
        let job = cj.jobs[k].clone();
        let labels = json!({"batch.kubernetes.io/controller-uid": job.uid, "batch.kubernetes.io/job-name": job.name,
                            "controller-uid": job.uid, "job-name": job.name});
        let _ = c.update(JOBS, job_json(&self.cronjobs[i], &job, &labels), at_ms);
        if phase == "Succeeded" {
            // History: the oldest finished Jobs beyond the limit go (their pods with them).
            let cj = &mut self.cronjobs[i];
            while cj
                .jobs
                .iter()
                .filter(|j| matches!(j.stage, JobStage::Succeeded { .. }))
                .count()
                > SUCCESSFUL_JOBS_HISTORY_LIMIT
            {
                let Some(k) = cj
                    .jobs
                    .iter()
                    .position(|j| matches!(j.stage, JobStage::Succeeded { .. }))
                else {
                    break;
                };
                if let Some(old) = cj.jobs.remove(k) {
                    let _ = c.delete(JOBS, &cj.namespace, &old.name, at_ms);
                }
            }
        }
        let _ = c.update(CRONJOBS, cronjob_status(&self.cronjobs[i], c), at_ms);
    }
}

/// The first run of `*/every_min * * * *` after sim time `after_ms` (cron minutes are
/// wall-clock minutes: those of the hour divisible by `every_min`).
fn next_run_ms(after_ms: u64, every_min: u64) -> u64 {
    let epoch = epoch_unix_s();
    let mut minute = (epoch + after_ms / 1000) / 60 + 1;
    while minute % 60 % every_min != 0 {
        minute += 1;
    }
    (minute * 60).saturating_sub(epoch) * 1000
}

/// When the Job's next change is due (None: finished).
fn next_change(j: &JobState) -> Option<u64> {
    match j.stage {
        JobStage::Starting => Some(j.started_ms + JOB_POD_START_MS),
        JobStage::Running => Some(j.started_ms + JOB_RUN_MS),
        JobStage::Succeeded { .. } => None,
    }
}

fn owner(kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": "batch/v1", "kind": kind, "name": name, "uid": uid,
           "controller": true, "blockOwnerDeletion": true})
}

fn container(name: &str, image: &str) -> Value {
    json!({"name": name, "image": image, "command": ["/bin/sh", "-c", "run-batch"],
           "resources": {}, "terminationMessagePath": "/dev/termination-log",
           "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"})
}

fn pod_status(container: &str, phase: &str, ready: bool, started_ms: u64, at_ms: u64) -> Value {
    let flag = |b: bool| if b { "True" } else { "False" };
    let state = match phase {
        "Running" => json!({"running": {"startedAt": timestamp(at_ms)}}),
        _ => json!({"terminated": {"exitCode": 0, "reason": "Completed",
            "startedAt": timestamp(started_ms + JOB_POD_START_MS), "finishedAt": timestamp(at_ms)}}),
    };
    json!({
        "phase": phase,
        "conditions": [
            {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": timestamp(started_ms)},
            {"type": "Ready", "status": flag(ready), "lastProbeTime": null, "lastTransitionTime": timestamp(at_ms)},
            {"type": "ContainersReady", "status": flag(ready), "lastProbeTime": null, "lastTransitionTime": timestamp(at_ms)},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": timestamp(started_ms)}
        ],
        "startTime": timestamp(started_ms),
        "containerStatuses": [{"name": container, "state": state, "ready": ready, "restartCount": 0,
            "image": "", "imageID": "", "started": ready}]
    })
}

/// A Job of CronJob `cj` as its controller last wrote it.
fn job_json(cj: &CronJobState, job: &JobState, labels: &Value) -> Value {
    let mut status = json!({"startTime": timestamp(job.started_ms)});
    match job.stage {
        JobStage::Starting => {
            status["active"] = json!(1);
            status["ready"] = json!(0);
        }
        JobStage::Running => {
            status["active"] = json!(1);
            status["ready"] = json!(1);
        }
        JobStage::Succeeded { at_ms } => {
            status["ready"] = json!(0);
            status["succeeded"] = json!(1);
            status["completionTime"] = json!(timestamp(at_ms));
            status["conditions"] = json!([{"type": "Complete", "status": "True",
                "lastProbeTime": timestamp(at_ms), "lastTransitionTime": timestamp(at_ms)}]);
        }
    }
    json!({
        "metadata": {"name": job.name, "namespace": cj.namespace, "labels": labels,
            "ownerReferences": [owner("CronJob", &cj.name, &cj.uid)]},
        "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
            "suspend": false,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": job.uid}},
            "template": {"metadata": {"labels": labels},
                "spec": {"containers": [container(&cj.name, &cj.image)], "restartPolicy": "Never"}}},
        "status": status
    })
}

/// The CronJob with its status as the cronjob controller writes it.
fn cronjob_status(cj: &CronJobState, c: &Cluster) -> Value {
    let mut v = c
        .get_value(CRONJOBS, &cj.namespace, &cj.name)
        .unwrap_or_else(|| json!({"metadata": {"name": cj.name, "namespace": cj.namespace}}));
    let active: Vec<Value> = cj
        .jobs
        .iter()
        .filter(|j| !matches!(j.stage, JobStage::Succeeded { .. }))
        .map(|j| {
            let rv = c
                .get_value(JOBS, &cj.namespace, &j.name)
                .and_then(|v| v["metadata"]["resourceVersion"].as_str().map(String::from))
                .unwrap_or_default();
            json!({"kind": "Job", "namespace": cj.namespace, "name": j.name, "uid": j.uid,
                   "apiVersion": "batch/v1", "resourceVersion": rv})
        })
        .collect();
    let mut status = json!({});
    if !active.is_empty() {
        status["active"] = Value::Array(active);
    }
    if let Some(t) = cj.last_schedule_ms {
        status["lastScheduleTime"] = json!(timestamp(t));
    }
    if let Some(t) = cj.last_success_ms {
        status["lastSuccessfulTime"] = json!(timestamp(t));
    }
    v["status"] = status;
    v
}
