//! CronJobs -> Jobs -> Pods as the cronjob and job controllers make them, and their
//! printers (`pkg/controller/cronjob/`, `pkg/controller/job/`,
//! `pkg/printers/internalversion/printers.go` printJob/printCronJob; the Job's Status
//! column from 1.30, kubernetes#123226).

mod controllers;

use controllers::{cells, cluster, table, workload};
use kubelive_sim::*;
use serde_json::Value;

/// Every minute the CronJob makes a Job `<cronjob>-<minutes since the Unix epoch>` (the
/// sim's time zero is 2025-01-01T00:00:00Z, minute 28928160) owned by it,
/// whose pod (owned by the Job, labelled with its controller-uid and job-name) runs and
/// succeeds; the Job completes, the CronJob lists its running Jobs, and keeps 3 finished.
#[test]
fn a_cronjob_makes_jobs_that_make_pods_that_complete() {
    let mut c = cluster(Release::NEWEST);
    let mut w = workload();
    let cj_uid = w.add_cronjob(&mut c, "batch", "report", 1, 0).unwrap();
    w.tick(&mut c, 59_999);
    assert!(c.names(JOBS).is_empty());
    w.tick(&mut c, 60_000);
    let job = c.get_value(JOBS, "batch", "report-28928161").unwrap();
    let owner = &job["metadata"]["ownerReferences"][0];
    assert_eq!(
        (owner["kind"].as_str(), owner["uid"].as_str()),
        (Some("CronJob"), Some(cj_uid.as_str()))
    );
    assert_eq!(owner["controller"], true);
    let job_uid = job["metadata"]["uid"].as_str().unwrap().to_string();
    assert_eq!(
        job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"],
        job_uid.as_str()
    );
    let pods = c.names(PODS);
    assert_eq!(pods.len(), 1);
    let pod = c.get_value(PODS, "batch", &pods[0].1).unwrap();
    assert!(
        pods[0].1.starts_with("report-28928161-")
            && pods[0].1.len() == "report-28928161-".len() + 5
    );
    assert_eq!(
        pod["metadata"]["ownerReferences"][0]["uid"],
        job_uid.as_str()
    );
    assert_eq!(pod["metadata"]["labels"]["job-name"], "report-28928161");
    assert_eq!(
        pod["metadata"]["labels"]["batch.kubernetes.io/controller-uid"],
        job_uid.as_str()
    );
    let cj = c.get_value(CRONJOBS, "batch", "report").unwrap();
    assert_eq!(cj["status"]["active"][0]["name"], "report-28928161");
    assert_eq!(cj["status"]["lastScheduleTime"], "2025-01-01T00:01:00Z");

    w.tick(&mut c, 60_000 + JOB_RUN_MS);
    let job = c.get_value(JOBS, "batch", "report-28928161").unwrap();
    assert_eq!(job["status"]["succeeded"], 1);
    assert_eq!(job["status"]["conditions"][0]["type"], "Complete");
    assert_eq!(
        c.get_value(PODS, "batch", &pods[0].1).unwrap()["status"]["phase"],
        "Succeeded"
    );
    let cj = c.get_value(CRONJOBS, "batch", "report").unwrap();
    assert!(cj["status"]["active"].is_null());
    assert!(cj["status"]["lastSuccessfulTime"].is_string());

    // Five minutes on: three finished Jobs stay (successfulJobsHistoryLimit), and the
    // deleted ones' pods are collected.
    for m in 2..=6 {
        w.tick(&mut c, m * 60_000 + JOB_RUN_MS);
    }
    c.advance(6 * 60_000 + JOB_RUN_MS + 2 * GC_DELAY_MS);
    let jobs: Vec<String> = c.names(JOBS).into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        jobs,
        ["report-28928164", "report-28928165", "report-28928166"]
    );
    let pods: Vec<String> = c.names(PODS).into_iter().map(|(_, n)| n).collect();
    assert_eq!(pods.len(), 3, "{pods:?}");
    assert!(pods
        .iter()
        .all(|p| jobs.iter().any(|j| p.starts_with(&format!("{j}-")))));
}

/// The Job and CronJob rows as printJob/printCronJob print them; the Job's Status column
/// exists from 1.30 on.
#[test]
fn jobs_and_cronjobs_print_as_the_release_does() {
    for (release, with_status) in [
        (Release::new(29).unwrap(), false),
        (Release::new(30).unwrap(), true),
        (Release::NEWEST, true),
    ] {
        let mut c = cluster(release);
        let mut w = workload();
        w.add_cronjob(&mut c, "batch", "report", 1, 0).unwrap();
        w.tick(&mut c, 60_000 + JOB_POD_START_MS);
        let t = table(&mut c, "/apis/batch/v1/namespaces/batch/jobs", 70_000);
        let names: Vec<&str> = t["columnDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        let mut want = vec![
            "Name",
            "Completions",
            "Duration",
            "Age",
            "Containers",
            "Images",
            "Selector",
        ];
        if with_status {
            want.insert(1, "Status");
        }
        assert_eq!(names, want, "{release:?}");
        let row = &cells(&t)[0];
        let uid = c.get_value(JOBS, "batch", "report-28928161").unwrap()["metadata"]["uid"]
            .as_str()
            .unwrap()
            .to_string();
        let selector = format!("batch.kubernetes.io/controller-uid={uid}");
        let mut expect: Vec<Value> = vec![
            "report-28928161".into(),
            "0/1".into(),
            "10s".into(),
            "10s".into(),
            "report".into(),
            "registry.example.com/batch/report:1.0.0".into(),
            selector.as_str().into(),
        ];
        if with_status {
            expect.insert(1, "Running".into());
        }
        assert_eq!(row, &expect, "{release:?}");

        w.tick(&mut c, 60_000 + JOB_RUN_MS);
        let t = table(&mut c, "/apis/batch/v1/namespaces/batch/jobs", 100_000);
        let row = &cells(&t)[0];
        let i = usize::from(with_status);
        if with_status {
            assert_eq!(row[1], "Complete");
        }
        assert_eq!(
            (row[1 + i].as_str(), row[2 + i].as_str()),
            (Some("1/1"), Some("20s"))
        );

        let t = table(&mut c, "/apis/batch/v1/namespaces/batch/cronjobs", 100_000);
        let names: Vec<&str> = t["columnDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "Name",
                "Schedule",
                "Timezone",
                "Suspend",
                "Active",
                "Last Schedule",
                "Age",
                "Containers",
                "Images",
                "Selector"
            ]
        );
        let row = &cells(&t)[0];
        let expect: Vec<Value> = vec![
            "report".into(),
            "*/1 * * * *".into(),
            "<none>".into(),
            "False".into(),
            0.into(),
            "40s".into(),
            "100s".into(),
            "report".into(),
            "registry.example.com/batch/report:1.0.0".into(),
            "<none>".into(),
        ];
        assert_eq!(row, &expect);
    }
}

/// Deleting the CronJob collects its Jobs, then their pods.
#[test]
fn deleting_a_cronjob_collects_its_jobs_and_their_pods() {
    let mut c = cluster(Release::NEWEST);
    let mut w = workload();
    w.add_cronjob(&mut c, "batch", "report", 1, 0).unwrap();
    w.tick(&mut c, 2 * 60_000 + JOB_POD_START_MS);
    assert_eq!(c.names(JOBS).len(), 2);
    c.delete(CRONJOBS, "batch", "report", 130_000).unwrap();
    c.advance(130_000 + 2 * GC_DELAY_MS);
    assert!(c.names(JOBS).is_empty());
    // The finished pod goes at once, the running one after its grace period.
    c.advance(130_000 + 2 * GC_DELAY_MS + 30_000);
    assert!(c.names(PODS).is_empty());
}

#[test]
fn a_schedule_the_sim_cannot_run_is_refused() {
    let mut c = cluster(Release::NEWEST);
    let mut w = workload();
    assert!(w.add_cronjob(&mut c, "batch", "report", 0, 0).is_err());
    assert!(w.add_cronjob(&mut c, "batch", "report", 60, 0).is_err());
}

/// printJob's Status: Complete before Failed before Terminating before Suspended before
/// FailureTarget; SuccessCriteriaMet only from 1.34 (kubernetes#132832), Running before.
#[test]
fn job_status_follows_the_conditions_and_the_release() {
    use kubelive_sim::printers::{Cell, TableConvertor};
    use serde_json::json;
    let job = |conditions: Value, deleting: bool| {
        let mut j = json!({"metadata": {"name": "j", "creationTimestamp": "2025-01-01T00:00:00Z"},
                           "spec": {"completions": 2}, "status": {"succeeded": 1, "conditions": conditions}});
        if deleting {
            j["metadata"]["deletionTimestamp"] = json!("2025-01-01T00:01:00Z");
        }
        j
    };
    let cond = |ty: &str, status: &str| json!({"type": ty, "status": status});
    let status_of = |release: Release, j: &Value| -> String {
        let row = TableConvertor::for_kind_in("batch", "Job", release).row(j);
        match &row.cells[1] {
            Cell::Str(s) => s.to_string(),
            other => panic!("{other:?}"),
        }
    };
    let r33 = Release::new(33).unwrap();
    let r34 = Release::new(34).unwrap();
    let cases = [
        (
            json!([cond("Failed", "True"), cond("Complete", "True")]),
            false,
            "Complete",
            "Complete",
        ),
        (json!([cond("Failed", "True")]), true, "Failed", "Failed"),
        (
            json!([cond("Suspended", "True")]),
            true,
            "Terminating",
            "Terminating",
        ),
        (
            json!([cond("FailureTarget", "True"), cond("Suspended", "True")]),
            false,
            "Suspended",
            "Suspended",
        ),
        (
            json!([
                cond("SuccessCriteriaMet", "True"),
                cond("FailureTarget", "True")
            ]),
            false,
            "FailureTarget",
            "FailureTarget",
        ),
        (
            json!([cond("SuccessCriteriaMet", "True")]),
            false,
            "Running",
            "SuccessCriteriaMet",
        ),
        (
            json!([cond("Complete", "False")]),
            false,
            "Running",
            "Running",
        ),
    ];
    for (conditions, deleting, at33, at34) in &cases {
        let j = job(conditions.clone(), *deleting);
        assert_eq!(status_of(r33, &j), *at33, "{j}");
        assert_eq!(status_of(r34, &j), *at34, "{j}");
    }
    let row = TableConvertor::for_kind_in("batch", "Job", r33).row(&job(json!([]), false));
    assert_eq!(row.cells[2], Cell::Str("1/2".into()));
}
