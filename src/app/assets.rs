//! Assets: the window icon and system fonts for CJK and emoji keys as fallbacks.

/// The window icon, from the 256 px render in `assets/`.
pub fn icon() -> Option<egui::IconData> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(include_bytes!(
        "../../assets/icon-256.png"
    )));
    // Palette and low bit depths expand to 8-bit RGB(A).
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        _ => return None,
    };
    Some(egui::IconData {
        rgba,
        width: info.width,
        height: info.height,
    })
}

/// Adds a system font with CJK glyphs and one with emoji as fallbacks, when they are installed. WenQuanYi
/// Micro Hei and Symbola are the fonts the page fetches when it needs them (`web::fonts_tick`, served beside
/// the page by `scripts/web.sh build`), and the .deb recommends them, so the desktop has the same ones where
/// the system has no other. (egui's own emoji font is a subset: 🙂 is not in it.)
pub(super) fn install_fallback_fonts(ctx: &egui::Context) {
    const CANDIDATES: [&str; 6] = [
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
        // WenQuanYi before Droid Sans Fallback: Droid has no Hangul.
        "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
        "/System/Library/Fonts/PingFang.ttc",
        "C:\\Windows\\Fonts\\msyh.ttc",
    ];
    if let Some(bytes) = CANDIDATES.iter().find_map(|p| std::fs::read(p).ok()) {
        install_fallback_font(ctx, "cjk", bytes);
    }
    const EMOJI: [&str; 2] = [
        "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
        "/usr/share/fonts/TTF/Symbola.ttf",
    ];
    if let Some(bytes) = EMOJI.iter().find_map(|p| std::fs::read(p).ok()) {
        install_fallback_font(ctx, "emoji", bytes);
    }
}

/// Adds `bytes` (a TrueType font) after the fonts already there, for the glyphs they lack; `tag` names it.
pub(super) fn install_fallback_font(ctx: &egui::Context, tag: &str, bytes: Vec<u8>) {
    let families = [egui::FontFamily::Proportional, egui::FontFamily::Monospace]
        .into_iter()
        .map(|family| egui::epaint::text::InsertFontFamily {
            family,
            priority: egui::epaint::text::FontPriority::Lowest,
        })
        .collect();
    ctx.add_font(egui::epaint::text::FontInsert::new(
        &format!("{tag}-fallback"),
        egui::FontData::from_owned(bytes),
        families,
    ));
}
