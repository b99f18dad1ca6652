//! Assets: the window icon and a system CJK font as a fallback.

use std::sync::Arc;

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

/// Adds a system font with CJK glyphs as a fallback, when one is installed (emoji come with egui). WenQuanYi
/// Micro Hei is the font the page fetches when it needs one (`web::fonts_tick`, served beside the page by
/// `scripts/web.sh build`), and the .deb recommends it, so the desktop has the same one where the system has
/// no other.
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
        install_cjk_font(ctx, bytes);
    }
}

/// Adds `bytes` (a TrueType font with CJK glyphs) after egui's own fonts, for the glyphs they lack.
pub(super) fn install_cjk_font(ctx: &egui::Context, bytes: Vec<u8>) {
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        "cjk-fallback".to_owned(),
        Arc::new(egui::FontData::from_owned(bytes)),
    );
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts
            .families
            .entry(family)
            .or_default()
            .push("cjk-fallback".to_owned());
    }
    ctx.set_fonts(fonts);
}
