//! Files in a page, never uploaded: the browser's picker stands in for the native dialog, a dropped file's
//! bytes are read from the browser, and a save is a download. Everything is read inside the page, by the
//! same [`crate::source::open`] as on the desktop (the bytes and the file's name: format detection, errors
//! and warnings word for word), and nothing leaves it (docs/web.md).
//!
//! The browser reads files asynchronously, so each of these is a [`Task`] whose reporter the browser's
//! callback holds ([`Task::later`]): the frame drains what it sends, as for a thread on the desktop.

use std::path::PathBuf;
use std::sync::Arc;

use wasm_bindgen::JsCast as _;
use wasm_bindgen::closure::Closure;

use super::{Action, FileError, Payload, Request};
use crate::app::Outcome;
use crate::app::tasks::{Reporter, Task, TaskError};
use crate::source::open::Expect;

/// Why a picker could not open (no document: the page is not a window).
fn no_picker(what: &str) -> TaskError {
    TaskError::new(
        "picker",
        std::io::Error::other(format!("the browser's file picker cannot open: {what}")),
    )
}

/// Opens the browser's file picker for `request` (an open), or downloads `request`'s save: what happens
/// comes back on the task, as from the desktop's dialog.
pub(in crate::app) fn start(
    request: &Request,
    ctx: &egui::Context,
) -> Result<Task<Outcome>, TaskError> {
    let expect = match &request.action {
        Action::Save(payload) => {
            let name = request.file_name.unwrap_or("shardlens-download");
            let saved = download(name, payload);
            return Task::spawn("download", ctx, 1, move |r| {
                r.send(Outcome::Saved(saved));
            });
        }
        Action::OpenKeys | Action::OpenFolder => Expect::Keys,
        Action::OpenSession => Expect::Session,
        Action::OpenScenario => Expect::Scenario,
        Action::OpenTrace(options) => Expect::Trace(options.clone()),
    };
    let (task, reporter) = Task::later(ctx);
    let input: web_sys::HtmlInputElement =
        new_element("input").ok_or_else(|| no_picker("no input element"))?;
    input.set_type("file");
    let accept: Vec<String> = request
        .filters
        .first()
        .map(|(_, exts)| {
            exts.iter()
                .filter(|e| **e != "*")
                .map(|e| format!(".{e}"))
                .collect()
        })
        .unwrap_or_default();
    if !accept.is_empty() {
        input.set_accept(&accept.join(","));
    }
    // The picker ends with a file (change) or without one (cancel): whichever comes first has the reporter.
    let reporter = std::rc::Rc::new(std::cell::RefCell::new(Some(reporter)));
    let cancelled = std::rc::Rc::clone(&reporter);
    let on_cancel = Closure::once(move || {
        if let Some(reporter) = cancelled.borrow_mut().take() {
            reporter.send(Outcome::Nothing);
        }
    });
    let picked = input.clone();
    let on_change = Closure::once(move || {
        let Some(reporter) = reporter.borrow_mut().take() else {
            return;
        };
        let Some(file) = picked.files().and_then(|files| files.get(0)) else {
            reporter.send(Outcome::Nothing);
            return;
        };
        wasm_bindgen_futures::spawn_local(async move {
            let name = PathBuf::from(file.name());
            let outcome = match read_file(&file).await {
                Ok(bytes) => Outcome::OpenBytes(name, bytes, expect),
                Err(reason) => Outcome::Saved(Err(FileError::Browser { path: name, reason })),
            };
            reporter.send(outcome);
        });
    });
    input.set_onchange(Some(on_change.as_ref().unchecked_ref()));
    input.set_oncancel(Some(on_cancel.as_ref().unchecked_ref()));
    // The closures live as long as the input element; the browser drops them with it once the picker is done.
    on_change.forget();
    on_cancel.forget();
    input.click();
    Ok(task)
}

/// A new element of the page's document (not added to it): `tag`, as the type it is.
fn new_element<E: wasm_bindgen::JsCast>(tag: &str) -> Option<E> {
    let document = web_sys::window()?.document()?;
    document.create_element(tag).ok()?.dyn_into().ok()
}

/// A file's bytes, read by the browser.
async fn read_file(file: &web_sys::File) -> Result<Arc<[u8]>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(Arc::from(js_sys::Uint8Array::new(&buffer).to_vec()))
}

/// Reads a file dropped on the page: its bytes come back on the task as [`Outcome::OpenBytes`].
pub(in crate::app) fn dropped(file: egui::DroppedFileHandle, ctx: &egui::Context) -> Task<Outcome> {
    let (task, reporter): (Task<Outcome>, Reporter<Outcome>) = Task::later(ctx);
    wasm_bindgen_futures::spawn_local(async move {
        let name = file.path().to_path_buf();
        let outcome = match file.bytes_async().await {
            Ok(bytes) => {
                Outcome::OpenBytes(name, Arc::from(bytes), Expect::Any(Default::default()))
            }
            Err(reason) => Outcome::Saved(Err(FileError::Browser { path: name, reason })),
        };
        reporter.send(outcome);
    });
    task
}

/// Saves `payload` as a download called `name` (the browser asks where, or puts it in Downloads).
fn download(name: &str, payload: &Payload) -> Result<String, FileError> {
    let failed = |reason: &str| FileError::Browser {
        path: PathBuf::from(name),
        reason: format!("cannot download: {reason}"),
    };
    let bytes: Vec<u8> = match payload {
        Payload::Bytes(bytes) => bytes.to_vec(),
        Payload::Png(image) => super::png_bytes(image).map_err(|e| failed(&e.to_string()))?,
    };
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    let parts = js_sys::Array::of1(&array);
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(|_| failed("no blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| failed("no URL"))?;
    let anchor: web_sys::HtmlAnchorElement = new_element("a").ok_or_else(|| failed("no link"))?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    // The download has begun by the time a minute is up; then the blob's URL can go.
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    Ok(format!("downloaded {name}"))
}
