//! The page: starts the same [`App`] in the browser (eframe's web runner on the page's `<canvas>`), and says
//! what went wrong in the page itself when it cannot (no WebGL, a panic), where a reader without a console
//! sees it. `scripts/web.sh build` writes the page (web/index.html) around it; docs/web.md.

use wasm_bindgen::JsCast as _;

use super::App;

/// The canvas the page draws on, and the element that says "loading…" until the first frame.
const CANVAS_ID: &str = "shardlens_canvas";
const STATUS_ID: &str = "shardlens_status";
/// The element that holds the chart in words ([`mirror`]).
const SUMMARY_ID: &str = "shardlens_summary";

/// Starts the app in the page (called by `main` in a wasm build).
pub fn start() {
    // Panics go to the browser's console with their message (and the status element, below).
    eframe::WebLogger::init(log::LevelFilter::Warn).ok();
    let runner = eframe::WebRunner::new();
    wasm_bindgen_futures::spawn_local(async move {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let canvas = document
            .get_element_by_id(CANVAS_ID)
            .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok());
        let Some(canvas) = canvas else {
            say(
                &document,
                &format!("shardlens: the page has no <canvas id=\"{CANVAS_ID}\">"),
            );
            return;
        };
        let started = runner
            .start(
                canvas,
                eframe::WebOptions::default(),
                Box::new(|cc| {
                    let mut app = App::new(cc);
                    app.set_embed(in_an_iframe_widget());
                    // A share link wins over what the page remembered; Undo brings that back.
                    if let Some(link) = page_link() {
                        app.open_link(&link);
                    }
                    Ok(Box::new(app))
                }),
            )
            .await;
        match started {
            Ok(()) => {
                if let Some(status) = document.get_element_by_id(STATUS_ID) {
                    status.remove();
                }
            }
            Err(e) => say(
                &document,
                &format!(
                    "shardlens cannot start in this browser: {}. It needs WebGL (docs/web.md).",
                    e.as_string().unwrap_or_else(|| format!("{e:?}"))
                ),
            ),
        }
    });
}

/// The chart in words ([`super::chart_words::in_words`]) in the page's `#shardlens_summary` element, for screen
/// readers (the canvas is a picture to them) and the page's tests; written only when it changes.
pub fn mirror(text: Option<String>) {
    thread_local! {
        static SHOWN: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    }
    let Some(text) = text else {
        return;
    };
    SHOWN.with(|shown| {
        if shown.borrow().as_deref() == Some(text.as_str()) {
            return;
        }
        let element = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(SUMMARY_ID));
        if let Some(element) = element {
            element.set_text_content(Some(&text));
        }
        *shown.borrow_mut() = Some(text);
    });
}

/// The page's address without its fragment: the base of the links Copy link makes here.
pub fn page_url() -> Option<String> {
    let href = web_sys::window()?.location().href().ok()?;
    Some(href.split('#').next().unwrap_or(&href).to_owned())
}

/// Whether the page was opened as the article widget (`?embed` in its address).
fn in_an_iframe_widget() -> bool {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    search
        .trim_start_matches('?')
        .split('&')
        .any(|p| p == "embed" || p.starts_with("embed="))
}

/// The share link the page was opened with, if its fragment holds one.
fn page_link() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    crate::source::link::is_link(&hash).then_some(hash)
}

/// Shows `text` in the status element (or the console when there is none).
fn say(document: &web_sys::Document, text: &str) {
    match document.get_element_by_id(STATUS_ID) {
        Some(status) => status.set_text_content(Some(text)),
        None => web_sys::console::error_1(&text.into()),
    }
}
