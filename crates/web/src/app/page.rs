//! The page around the app: the window and its timers, the listeners the app keeps
//! on it, and [`Kept`], which spares a part of the page renders that cannot change it.

use super::Msg;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::html::Scope;
use yew::prelude::*;

/// A DOM event listener removed on drop.
struct Listener {
    target: web_sys::EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}

fn listen(
    target: &web_sys::EventTarget,
    kind: &'static str,
    f: impl FnMut(web_sys::Event) + 'static,
) -> Listener {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new(f);
    let _ = target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
    Listener {
        target: target.clone(),
        kind,
        closure,
    }
}

pub fn window() -> web_sys::Window {
    web_sys::window().expect("the app runs in a window")
}

pub fn performance() -> Option<web_sys::Performance> {
    window().performance()
}

pub fn location_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// Runs `f` at the next animation frame, or within 300 ms if frames are not coming
/// (a hidden tab), whichever is first.
pub fn next_frame(f: impl Fn() + 'static) {
    let f = Rc::new(f);
    let once = Rc::new(std::cell::Cell::new(false));
    let make = |f: Rc<dyn Fn()>, once: Rc<std::cell::Cell<bool>>| {
        Closure::once_into_js(move || {
            if !once.replace(true) {
                f()
            }
        })
    };
    let w = window();
    let _ = w.request_animation_frame(make(f.clone(), once.clone()).unchecked_ref());
    let _ =
        w.set_timeout_with_callback_and_timeout_and_arguments_0(make(f, once).unchecked_ref(), 300);
}

/// The app's listeners on the window and the document, and its clock: removed when
/// the app goes.
#[derive(Default)]
pub struct Page {
    listeners: Vec<Listener>,
    interval: Option<(i32, Closure<dyn FnMut()>)>,
}

impl Page {
    /// Listens for the hash, the window's size and keys, and ticks every 500 ms.
    pub fn start(link: &Scope<super::App>) -> Page {
        let mut page = Page::default();
        let w = window();
        let l = link.clone();
        page.listeners.push(listen(&w, "hashchange", move |_| {
            l.send_message(Msg::HashChanged)
        }));
        let l = link.clone();
        page.listeners.push(listen(&w, "resize", move |_| {
            l.send_message(Msg::Grid(super::grid::Msg::Resize))
        }));
        if let Some(doc) = w.document() {
            let l = link.clone();
            page.listeners.push(listen(&doc, "keydown", move |e| {
                if let Ok(k) = e.dyn_into::<KeyboardEvent>() {
                    l.send_message(Msg::Key(k));
                }
            }));
        }
        let l = link.clone();
        let tick = Closure::<dyn FnMut()>::new(move || {
            l.send_message(Msg::Frames(super::frames::Msg::Tick))
        });
        if let Ok(handle) = w.set_interval_with_callback_and_timeout_and_arguments_0(
            tick.as_ref().unchecked_ref(),
            500,
        ) {
            page.interval = Some((handle, tick));
        }
        page
    }

    /// Removes the listeners and stops the clock.
    pub fn stop(&mut self) {
        self.listeners.clear();
        if let Some((handle, _)) = self.interval.take() {
            window().clear_interval_with_handle(handle);
        }
    }
}

/// A part of the page that is rendered again only when its stamp changes, whatever
/// its content: the parent bumps the stamp when the part may show something new, and
/// a render that only moves the table's rows (a scrolling frame) leaves the header,
/// and what else it holds, alone (no diff, no DOM write, no repaint).
#[derive(Properties)]
pub struct KeptProps {
    pub stamp: u64,
    pub content: Html,
}

/// Equal by stamp alone: that is the point.
impl PartialEq for KeptProps {
    fn eq(&self, other: &KeptProps) -> bool {
        self.stamp == other.stamp
    }
}

/// See [`KeptProps`].
#[function_component(Kept)]
pub fn kept(p: &KeptProps) -> Html {
    p.content.clone()
}
