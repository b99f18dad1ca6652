//! Files in a page, never uploaded: the browser's picker stands in for the native dialog, a dropped file's
//! bytes are read from the browser, and a save is a download. Everything is read inside the page, by the
//! same [`crate::source::open`] as on the desktop (the bytes and the file's name: format detection, errors
//! and warnings word for word), and nothing leaves it (docs/web.md).
//!
//! The picker takes several files for keys and traces, and a folder for File > Open S3 export folder
//! (`webkitdirectory`, which Chromium, Firefox and Safari support): a folder's files come with their paths in
//! it (`webkitRelativePath`), so an S3 export in it reads as the export does on disk. Files picked or dropped
//! together open as one input ([`given`]).
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
use crate::source::open::{Expect, Input};

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
            return Task::spawn_local("download", ctx, 1, move |r| {
                r.send(Outcome::Saved(saved));
            });
        }
        Action::OpenKeys => Expect::Keys,
        Action::OpenFolder => Expect::Folder,
        Action::OpenSession => Expect::Session,
        Action::OpenScenario => Expect::Scenario,
        Action::OpenTrace(options) => Expect::Trace(options.clone()),
    };
    let (task, reporter) = Task::later(ctx);
    let input: web_sys::HtmlInputElement =
        new_element("input").ok_or_else(|| no_picker("no input element"))?;
    input.set_type("file");
    let folder = matches!(request.action, Action::OpenFolder);
    if folder {
        input.set_webkitdirectory(true);
    }
    // Keys and traces may be several files, read into one key set or one trace; a session or a scenario is one.
    input.set_multiple(matches!(
        request.action,
        Action::OpenKeys | Action::OpenTrace(_)
    ));
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
    // The picker ends with files (change) or without (cancel): whichever comes first has the reporter.
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
        let files: Vec<web_sys::File> = picked
            .files()
            .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
            .unwrap_or_default();
        if files.is_empty() {
            reporter.send(Outcome::Nothing);
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let mut read = Vec::with_capacity(files.len());
            for file in &files {
                let path = path_in_pick(file);
                match read_file(file).await {
                    Ok(bytes) => read.push((path, bytes)),
                    Err(reason) => {
                        reporter.send(Outcome::Saved(Err(FileError::Browser { path, reason })));
                        return;
                    }
                }
            }
            reporter.send(given(read, folder, expect));
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

/// A picked file's path: where it lies in the folder picked (`webkitRelativePath`: "export/data/x.json.gz",
/// the folder's own name first), else its name.
fn path_in_pick(file: &web_sys::File) -> PathBuf {
    js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from(file.name()), PathBuf::from)
}

/// What opens files the page was given together: one file (not a folder's) as its bytes; several, or a
/// folder's, as one [`Input::Files`], named by the folder (the first part of their paths) or by their count.
fn given(mut files: Vec<(PathBuf, Arc<[u8]>)>, folder: bool, expect: Expect) -> Outcome {
    if !folder
        && files.len() == 1
        && let Some((name, bytes)) = files.pop()
    {
        return Outcome::Open(Input::Bytes { name, bytes }, expect);
    }
    let top = files
        .first()
        .and_then(|(p, _)| p.components().next())
        .map(|c| PathBuf::from(c.as_os_str()));
    let name = match top {
        Some(top) if folder => top,
        _ => PathBuf::from(format!("{} files", files.len())),
    };
    Outcome::Open(Input::Files { name, files }, expect)
}

/// A file's bytes, read by the browser.
async fn read_file(file: &web_sys::File) -> Result<Arc<[u8]>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(Arc::from(js_sys::Uint8Array::new(&buffer).to_vec()))
}

/// Reads the files dropped on the page in one frame: they come back on the task together ([`given`]: one
/// file as its bytes), to open as whatever they are.
pub(in crate::app) fn dropped(
    files: Vec<egui::DroppedFileHandle>,
    ctx: &egui::Context,
) -> Task<Outcome> {
    let (task, reporter): (Task<Outcome>, Reporter<Outcome>) = Task::later(ctx);
    wasm_bindgen_futures::spawn_local(async move {
        let mut read = Vec::with_capacity(files.len());
        for file in &files {
            let name = file.path().to_path_buf();
            match file.bytes_async().await {
                Ok(bytes) => read.push((name, Arc::from(bytes))),
                Err(reason) => {
                    reporter.send(Outcome::Saved(Err(FileError::Browser {
                        path: name,
                        reason,
                    })));
                    return;
                }
            }
        }
        reporter.send(given(read, false, Expect::Any(Default::default())));
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
