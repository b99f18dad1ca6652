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
/// The element that says how far a load is ([`mirror_progress`]).
const PROGRESS_ID: &str = "shardlens_progress";

/// Starts the app in the page (called by `main` in a wasm build).
pub fn start() {
    // The same module runs in the page's workers (web/worker.js), which have no page to draw on.
    if web_sys::window().is_none() {
        return;
    }
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

/// A font the page fetches beside itself the first time keys on screen need it, never on first paint, and
/// adds after egui's own fonts (`assets::install_fallback_font`).
pub struct Fallback {
    /// What the page's `data-fonts` attribute lists once it is in (its tests wait for it).
    pub tag: &'static str,
    url: &'static str,
    /// A character of keys that needs this font.
    pub wants: fn(char) -> bool,
    /// The reader's language asks for it.
    language: fn() -> bool,
}

/// The page's fallback fonts: WenQuanYi Micro Hei for Han, kana and Hangul (Apache-2.0) and Symbola for emoji
/// and symbols (Unicode 9's, monochrome: egui draws glyphs in one colour; "free for any use"), each with its
/// licence beside it (`scripts/web.sh build` copies them from Debian's fonts-wqy-microhei and fonts-symbola).
pub const FALLBACKS: [Fallback; 2] = [
    Fallback {
        tag: "cjk",
        url: "fonts/wqy-microhei.ttc",
        wants: is_cjk,
        language: language_wants_cjk,
    },
    Fallback {
        tag: "emoji",
        url: "fonts/Symbola_hint.ttf",
        wants: is_emoji,
        language: || false,
    },
];

/// A fallback font's load: asked the first time keys (or the reader's language) need it.
enum FontLoad {
    NotAsked,
    Loading,
    Ready(Vec<u8>),
    Installed,
    Failed,
}

thread_local! {
    static FONTS: std::cell::RefCell<[FontLoad; 2]> =
        const { std::cell::RefCell::new([FontLoad::NotAsked, FontLoad::NotAsked]) };
}

/// Fetches each fallback font that `wanted(font)` says the keys need (or the reader's language asks for), and
/// installs it once it is in; the page's `data-fonts` attribute lists the fonts in ("cjk emoji").
pub fn fonts_tick(ctx: &egui::Context, wanted: impl Fn(&Fallback) -> bool) {
    for (i, font) in FALLBACKS.iter().enumerate() {
        FONTS.with(|fonts| {
            let mut fonts = fonts.borrow_mut();
            let state = &mut fonts[i];
            match &*state {
                FontLoad::NotAsked if wanted(font) || (font.language)() => {
                    *state = FontLoad::Loading;
                    let ctx = ctx.clone();
                    let url = font.url;
                    wasm_bindgen_futures::spawn_local(async move {
                        let fetched = fetch_bytes(url).await;
                        FONTS.with(|fonts| {
                            fonts.borrow_mut()[i] = match fetched {
                                Ok(bytes) => FontLoad::Ready(bytes),
                                Err(e) => {
                                    web_sys::console::warn_1(
                                        &format!("shardlens: no font for some keys ({url}: {e}); they show as boxes").into(),
                                    );
                                    FontLoad::Failed
                                }
                            };
                        });
                        ctx.request_repaint();
                    });
                }
                FontLoad::Ready(_) => {
                    if let FontLoad::Ready(bytes) = std::mem::replace(state, FontLoad::Installed) {
                        super::assets::install_fallback_font(ctx, font.tag, bytes);
                        if let Some(root) = web_sys::window()
                            .and_then(|w| w.document())
                            .and_then(|d| d.document_element())
                        {
                            let had = root.get_attribute("data-fonts").unwrap_or_default();
                            let now = format!("{had} {}", font.tag);
                            let _ = root.set_attribute("data-fonts", now.trim());
                        }
                    }
                }
                FontLoad::NotAsked | FontLoad::Loading | FontLoad::Installed | FontLoad::Failed => {}
            }
        });
    }
}

/// Whether the reader's browser asks for Chinese, Japanese or Korean first.
fn language_wants_cjk() -> bool {
    let language = web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_default();
    ["zh", "ja", "ko"].iter().any(|l| language.starts_with(l))
}

/// The bytes at `url` (beside the page).
async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| format!("{e:?}"))?;
    let response: web_sys::Response = response.dyn_into().map_err(|e| format!("{e:?}"))?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let buffer = response.array_buffer().map_err(|e| format!("{e:?}"))?;
    let buffer = wasm_bindgen_futures::JsFuture::from(buffer)
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

impl App {
    /// Whether the keys on screen have a character that `font` is for (the editor's text, its first 64 KB, or
    /// a loaded set's top keys), which the built-in fonts lack.
    pub(super) fn needs_font(&self, font: &Fallback) -> bool {
        let cjk = |text: &str| text.chars().any(font.wants);
        match self.data.keys() {
            super::data::Keys::Text(text) => {
                let mut end = text.len().min(64 << 10);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                cjk(&text[..end])
            }
            super::data::Keys::Data(_) => self
                .report()
                .is_some_and(|r| r.analysis.top_keys.iter().any(|k| cjk(&k.key))),
        }
    }
}

/// Emoji and pictographic symbols (egui's own emoji font has a subset of them: 🙂 is not in it).
fn is_emoji(c: char) -> bool {
    matches!(c, '\u{2600}'..='\u{27BF}' | '\u{2B00}'..='\u{2BFF}' | '\u{1F000}'..='\u{1FAFF}')
}

/// Han, kana, Hangul, CJK punctuation and full-width forms.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7AF}' | '\u{F900}'..='\u{FAFF}' | '\u{FF00}'..='\u{FFEF}'
        | '\u{20000}'..='\u{2FA1F}')
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

/// Says a load's progress in the page's progress bar for screen readers (`#shardlens_progress`): its share
/// done as `aria-valuenow` (when known) and the status line's text as `aria-valuetext`; emptied when no load
/// runs. Written only when it changes, and only by a drawn frame, so it also tells that the page drew while
/// the load ran (tests/web/e2e.mjs).
pub fn mirror_progress(progress: Option<(Option<f32>, String)>) {
    thread_local! {
        static SHOWN: std::cell::RefCell<Option<(Option<f32>, String)>> = const { std::cell::RefCell::new(None) };
    }
    SHOWN.with(|shown| {
        if *shown.borrow() == progress {
            return;
        }
        let element = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(PROGRESS_ID));
        if let Some(element) = element {
            let (now, text) = match &progress {
                Some((fraction, text)) => (
                    fraction.map(|f| format!("{:.0}", (f * 100.0).clamp(0.0, 100.0))),
                    text.as_str(),
                ),
                None => (None, ""),
            };
            let _ = match now {
                Some(now) => element.set_attribute("aria-valuenow", &now),
                None => element.remove_attribute("aria-valuenow"),
            };
            let _ = element.set_attribute("aria-valuetext", text);
            element.set_text_content(Some(text));
        }
        *shown.borrow_mut() = progress;
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
