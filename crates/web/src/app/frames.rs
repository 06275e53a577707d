//! When the app renders. Every render comes from `requestAnimationFrame`: engine
//! events are batched until a frame, never rendered per event; a sync's frames are
//! held back to one per [`SYNC_FRAME_MS`] once the first screen is shown; while the
//! user scrolls, the engine's news is taken at most every [`SCROLL_APPLY_MS`] and the
//! frames between move the rows alone. A timer brings a frame about for fades and a
//! lagging log ([`SWEEP_MS`]), another for slices of sort-key preparation. Each
//! frame's work is a User Timing measure ([`FRAME_MEASURE`]).

use super::page::{next_frame, performance, window};
use crate::time;
use kubelive_core::Event as CoreEvent;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::grid::USER_SCROLL_QUIET_MS;

/// How often fading rows, flashes and a log that is behind are looked at again.
const SWEEP_MS: i32 = 250;
/// The User Timing name of the app's work for one render (a frame's batch of changes,
/// or a scroll), for DevTools and the frame-time benchmark.
const FRAME_MEASURE: &str = "kubelive:frame";
/// Until Synced, once the first screen of rows is shown, the table is brought up to
/// date at most this often: every render re-lays-out and repaints the table and the
/// status bar while the main thread is the sync's bottleneck. The progress still moves
/// several times a second; Synced itself (and a failure) is shown at the next frame.
const SYNC_FRAME_MS: f64 = 200.0;
/// While the user scrolls, the table takes the engine's news (and shows it with the
/// status bar, the counts and the event log) at most this often; the frames between
/// only move the rows. A scrolling frame then costs the rows that scroll in, not the
/// churn's batch and a render of the whole page: the data shown lags the engine by at
/// most this plus a frame, and not at all once the scroll stops.
const SCROLL_APPLY_MS: f64 = 100.0;

pub enum Msg {
    /// The main engine produced events (at most one message per frame; the work waits
    /// for a frame).
    Wake(Wake),
    Frame,
    /// A frame held back during a sync is due.
    HeldFrame,
    /// Time to look at fading rows, flashes and the log again.
    Sweep,
    /// A slice of preparing sort keys (see `grid::PREPARE_SLICE_MS`).
    Prepare,
    /// Ages, countdowns and "N s ago" move with time (every 500 ms).
    Tick,
}

/// The main engine has news for the table (sent once per frame's worth of batches,
/// not once per body chunk).
pub struct Wake {
    pub generation: u64,
    /// The news includes more than rows and pages listed (Synced, a failure, a
    /// relist, columns): shown at the next frame even while frames are held back.
    pub urgent: bool,
}

/// Whether `event` must be shown at the next frame even during a sync.
pub fn is_urgent(event: &CoreEvent) -> bool {
    !matches!(
        event,
        CoreEvent::Added(_)
            | CoreEvent::Modified { .. }
            | CoreEvent::Deleted(_)
            | CoreEvent::PageListed { .. }
    )
}

/// What a frame renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// The engine's news and the whole page.
    Full,
    /// The rows alone, where a scroll moved them (see [`SCROLL_APPLY_MS`]).
    Rows,
    /// Nothing moved.
    Skip,
}

/// What a frame does, from how long ago the user scrolled and the news last shown
/// (ms), and whether news that cannot wait is pending.
fn frame_kind(since_scroll: f64, since_applied: f64, urgent: bool, rows_moved: bool) -> FrameKind {
    if urgent || since_scroll >= USER_SCROLL_QUIET_MS || since_applied >= SCROLL_APPLY_MS {
        FrameKind::Full
    } else if rows_moved {
        FrameKind::Rows
    } else {
        FrameKind::Skip
    }
}

/// What is scheduled, and when frames last ran.
pub struct Frames {
    send: Callback<Msg>,
    frame_scheduled: bool,
    /// A frame held back during a sync is due (a timer, see [`SYNC_FRAME_MS`]).
    held_frame_scheduled: bool,
    /// When the last frame ran (ms, [`time::now_ms`]).
    last_frame_at: f64,
    sweep_scheduled: bool,
    prepare_scheduled: bool,
    /// A frame's update ran; its render is being measured.
    measured: bool,
    /// When a frame last took the engine's news (ms, [`time::now_ms`]).
    applied_at: f64,
    /// The engine's pending news includes something that cannot wait (see [`Wake`]).
    urgent_pending: bool,
    /// Bumped by every update that may change what the header shows (all but frames
    /// that only move the rows): the header is diffed again only then (`page::Kept`).
    pub chrome_stamp: u64,
}

impl Frames {
    pub fn new(send: Callback<Msg>) -> Frames {
        Frames {
            send,
            frame_scheduled: false,
            held_frame_scheduled: false,
            last_frame_at: f64::NEG_INFINITY,
            sweep_scheduled: false,
            prepare_scheduled: false,
            measured: false,
            applied_at: f64::NEG_INFINITY,
            urgent_pending: false,
            chrome_stamp: 0,
        }
    }

    /// What the main engine's sink wakes the app with.
    pub fn waker(&self) -> Callback<Wake> {
        self.send.reform(Msg::Wake)
    }

    /// A new engine: nothing of the old one's news is pending.
    pub fn restart(&mut self) {
        self.urgent_pending = false;
    }

    /// The engine woke the app; `urgent`: with news that cannot wait.
    pub fn woken(&mut self, urgent: bool) {
        self.urgent_pending |= urgent;
    }

    /// Whether a sync's news may wait for [`SYNC_FRAME_MS`] after the last frame: not
    /// `synced` yet, and the first screen of rows already `shown`.
    pub fn hold(&self, synced: bool, shown: bool) -> bool {
        !synced && shown && time::now_ms() - self.last_frame_at < SYNC_FRAME_MS
    }

    /// What the frame that runs `now` does; `user_scrolled_at` (ms), `rows_moved`: a
    /// scroll moved the row window.
    pub fn kind(&self, now: f64, user_scrolled_at: f64, rows_moved: bool) -> FrameKind {
        frame_kind(
            now - user_scrolled_at,
            now - self.applied_at,
            self.urgent_pending,
            rows_moved,
        )
    }

    /// The frame that runs `now` takes the engine's news (and is measured).
    pub fn take_news(&mut self, now: f64) {
        self.applied_at = now;
        self.urgent_pending = false;
        self.chrome_stamp += 1;
        self.last_frame_at = now;
        self.start_measure();
    }

    pub fn schedule_frame(&mut self) {
        if self.frame_scheduled {
            return;
        }
        self.frame_scheduled = true;
        let send = self.send.clone();
        next_frame(move || send.emit(Msg::Frame));
    }

    /// The scheduled frame runs.
    pub fn frame_runs(&mut self) {
        self.frame_scheduled = false;
    }

    /// A frame [`SYNC_FRAME_MS`] after the last one (see [`Self::hold`]).
    pub fn schedule_held_frame(&mut self) {
        if self.held_frame_scheduled || self.frame_scheduled {
            return;
        }
        self.held_frame_scheduled = true;
        let send = self.send.clone();
        let delay = (self.last_frame_at + SYNC_FRAME_MS - time::now_ms()).max(0.0);
        let cb = Closure::once_into_js(move || send.emit(Msg::HeldFrame));
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(
            cb.unchecked_ref(),
            delay.ceil() as i32,
        );
    }

    /// The held frame's timer fired: the frame is asked for.
    pub fn held_frame_due(&mut self) {
        self.held_frame_scheduled = false;
        self.schedule_frame();
    }

    /// A slice of preparing sort keys after a timeout.
    pub fn schedule_prepare(&mut self) {
        if self.prepare_scheduled {
            return;
        }
        self.prepare_scheduled = true;
        let send = self.send.clone();
        let cb = Closure::once_into_js(move || send.emit(Msg::Prepare));
        let _ =
            window().set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 0);
    }

    pub fn prepare_scheduled(&self) -> bool {
        self.prepare_scheduled
    }

    /// The scheduled slice runs.
    pub fn prepare_runs(&mut self) {
        self.prepare_scheduled = false;
    }

    /// Frames run at the next animation frame; this timer only brings one about when
    /// nothing else will (rows to fade, flashes to end, log lines to show).
    pub fn schedule_sweep(&mut self) {
        if self.sweep_scheduled {
            return;
        }
        self.sweep_scheduled = true;
        let send = self.send.clone();
        let cb = Closure::once_into_js(move || send.emit(Msg::Sweep));
        let _ = window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), SWEEP_MS);
    }

    /// The sweep's timer fired: a frame is asked for.
    pub fn sweep_due(&mut self) {
        self.sweep_scheduled = false;
        self.schedule_frame();
    }

    /// Marks the start of work that ends with a render (measured in [`Self::end_measure`]).
    pub fn start_measure(&mut self) {
        if let Some(p) = performance() {
            self.measured = p.mark(FRAME_MEASURE).is_ok();
        }
    }

    /// After the render: the measure, from the mark.
    pub fn end_measure(&mut self) {
        if std::mem::take(&mut self.measured) {
            if let Some(p) = performance() {
                let _ = p.measure_with_start_mark(FRAME_MEASURE, FRAME_MEASURE);
                // Observers and DevTools have seen it; the buffer must not grow.
                p.clear_marks_with_mark_name(FRAME_MEASURE);
                p.clear_measures_with_measure_name(FRAME_MEASURE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn while_the_user_scrolls_news_waits_its_turn_and_frames_move_the_rows() {
        let quiet = USER_SCROLL_QUIET_MS;
        // Not scrolling (or long ago): every frame takes the news.
        assert_eq!(
            frame_kind(f64::INFINITY, 0.0, false, false),
            FrameKind::Full
        );
        assert_eq!(frame_kind(quiet, 0.0, false, true), FrameKind::Full);
        // Scrolling, news taken 30 ms ago: the rows move alone, or nothing renders.
        assert_eq!(frame_kind(10.0, 30.0, false, true), FrameKind::Rows);
        assert_eq!(frame_kind(10.0, 30.0, false, false), FrameKind::Skip);
        // Its turn comes: the news is at most SCROLL_APPLY_MS old, scrolling or not.
        assert_eq!(
            frame_kind(10.0, SCROLL_APPLY_MS, false, true),
            FrameKind::Full
        );
        // News that cannot wait (Synced, a failure, a relist, columns) never does.
        assert_eq!(frame_kind(10.0, 1.0, true, false), FrameKind::Full);
    }
}
