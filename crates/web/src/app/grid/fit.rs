//! Which columns the table shows in the width it has: every column shrinks (its text
//! ends in an ellipsis) down to its floor; past that, columns are hidden, the wide
//! ones (`kubectl get -o wide`, priority > 0) first and then the least important,
//! never the name or the status. A hidden column's cells are in the detail panel.

use kubelive_table::Column;

/// The least widths (px) of the columns' width classes: style.css's `--floor-*`,
/// read from the page so that the stylesheet says them once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Floors {
    pub name: f64,
    pub mid: f64,
    pub num: f64,
    pub text: f64,
}

impl Floors {
    /// `column`'s floor (px), by its width class.
    pub fn of(&self, column: &Column) -> f64 {
        match column.width_class() {
            "w-name" => self.name,
            "w-mid" => self.mid,
            "w-num" => self.num,
            _ => self.text,
        }
    }
}

/// The column that says how an object is doing, shown whatever the width: one titled
/// Status, else Phase, else the first status-like one.
fn status_column(cols: &[Column]) -> Option<usize> {
    let titled = |t: &str| cols.iter().position(|c| c.title.eq_ignore_ascii_case(t));
    titled("status")
        .or_else(|| titled("phase"))
        .or_else(|| cols.iter().position(|c| c.status_like))
}

/// Which of `cols` fit in `room` px (the row's width for its cells), each at least
/// at its floor. When they do not all fit, `marker` px go to the header's note of
/// how many are hidden, and columns are hidden until the rest fit: first the wide
/// ones (priority > 0), then the others, each from the right (kubectl prints the
/// more telling columns first); the name and the status column never. `true`:
/// shown.
pub fn fit_columns(cols: &[Column], floors: &Floors, room: f64, marker: f64) -> Vec<bool> {
    let mut shown = vec![true; cols.len()];
    let mut used: f64 = cols.iter().map(|c| floors.of(c)).sum();
    if used <= room {
        return shown;
    }
    let room = room - marker;
    let status = status_column(cols);
    let kept = |i: usize| cols[i].is_name || Some(i) == status;
    let wide = (0..cols.len()).rev().filter(|&i| cols[i].priority > 0);
    let rest = (0..cols.len()).rev().filter(|&i| cols[i].priority <= 0);
    for i in wide.chain(rest) {
        if used <= room {
            break;
        }
        if !kept(i) {
            shown[i] = false;
            used -= floors.of(&cols[i]);
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubelive_core::{ColumnKind, TableColumn};
    use kubelive_table::view_columns;

    const FLOORS: Floors = Floors {
        name: 150.0,
        mid: 100.0,
        num: 64.0,
        text: 80.0,
    };

    /// The server's pod columns (kubernetes `pkg/printers/internalversion/printers.go`,
    /// `podColumnDefinitions`): priority 1 for IP, Node, Nominated Node, Readiness Gates.
    fn pod_columns(wide: bool) -> Vec<Column> {
        let def = |name: &str, priority| TableColumn {
            name: name.into(),
            column_type: kubelive_core::ColumnType::String,
            format: if name == "Name" {
                "name".into()
            } else {
                String::new()
            },
            description: String::new(),
            priority,
        };
        let defs = [
            def("Name", 0),
            def("Ready", 0),
            def("Status", 0),
            def("Restarts", 0),
            def("Age", 0),
            def("IP", 1),
            def("Node", 1),
            def("Nominated Node", 1),
            def("Readiness Gates", 1),
        ];
        view_columns(Some(&defs), ColumnKind::Pod, true, wide)
    }

    fn titles(cols: &[Column], shown: &[bool]) -> Vec<String> {
        cols.iter()
            .zip(shown)
            .filter(|(_, s)| **s)
            .map(|(c, _)| c.title.clone())
            .collect()
    }

    #[test]
    fn every_column_shows_while_all_fit_at_their_floors() {
        let cols = pod_columns(true);
        let all: f64 = cols.iter().map(|c| FLOORS.of(c)).sum();
        assert!(fit_columns(&cols, &FLOORS, all, 40.0).iter().all(|s| *s));
        assert!(fit_columns(&cols, &FLOORS, 5000.0, 40.0).iter().all(|s| *s));
    }

    #[test]
    fn the_wide_columns_go_first_then_the_rightmost_never_name_or_status() {
        let cols = pod_columns(true);
        let all: f64 = cols.iter().map(|c| FLOORS.of(c)).sum();
        // One px short: the marker's room and the last wide column's floor go.
        let shown = fit_columns(&cols, &FLOORS, all - 1.0, 40.0);
        let t = titles(&cols, &shown);
        assert!(!t.contains(&"Readiness Gates".to_string()), "{t:?}");
        assert!(t.contains(&"Age".to_string()), "{t:?}");
        // Narrower: every wide column is gone before any other.
        let priority0: f64 = cols
            .iter()
            .filter(|c| c.priority == 0)
            .map(|c| FLOORS.of(c))
            .sum();
        let shown = fit_columns(&cols, &FLOORS, priority0 + 40.0, 40.0);
        assert_eq!(
            titles(&cols, &shown),
            ["Namespace", "Name", "Ready", "Status", "Restarts", "Age"]
        );
        // A phone's width: Name and Status, whatever else goes.
        let shown = fit_columns(&cols, &FLOORS, 300.0, 40.0);
        assert_eq!(titles(&cols, &shown), ["Name", "Status"]);
        // Narrower than they are: they stay (the table scrolls sideways).
        let shown = fit_columns(&cols, &FLOORS, 100.0, 40.0);
        assert_eq!(titles(&cols, &shown), ["Name", "Status"]);
    }

    #[test]
    fn what_goes_is_taken_from_the_right_of_the_priority_0_columns() {
        let cols = pod_columns(false);
        // Namespace 100 + Name 150 + Ready 100 + Status 100 = 450 (mid and name
        // floors); Restarts 80 (text), Age 64 (a number): Age goes.
        let shown = fit_columns(&cols, &FLOORS, 450.0 + 80.0 + 40.0, 40.0);
        assert_eq!(
            titles(&cols, &shown),
            ["Namespace", "Name", "Ready", "Status", "Restarts"]
        );
    }

    #[test]
    fn a_kind_without_a_status_column_keeps_its_first_status_like_one() {
        // The server's Deployment columns: Ready says how it is doing.
        let def = |name: &str| TableColumn {
            name: name.into(),
            column_type: kubelive_core::ColumnType::String,
            format: if name == "Name" {
                "name".into()
            } else {
                String::new()
            },
            description: String::new(),
            priority: 0,
        };
        let defs = [
            def("Name"),
            def("Ready"),
            def("Up-to-date"),
            def("Available"),
            def("Age"),
        ];
        let cols = view_columns(Some(&defs), ColumnKind::Deployment, false, false);
        let shown = fit_columns(&cols, &FLOORS, 10.0, 40.0);
        assert_eq!(titles(&cols, &shown), ["Name", "Ready"]);
        // The fallback printer's columns (no table from the server) fit the same way.
        let cols = view_columns(None, ColumnKind::Deployment, false, false);
        let shown = fit_columns(&cols, &FLOORS, 10.0, 40.0);
        assert_eq!(titles(&cols, &shown), ["Name", "Ready"]);
    }
}
