//! The font every plot and pressure map draws its text with: DejaVu Sans, embedded in the binary
//! (`fonts/DejaVuSans.ttf`, licence in `fonts/LICENSE-DejaVu.txt`) and rasterised by plotters'
//! pure-Rust `ab_glyph` path, so that neither building nor running tribo needs fontconfig,
//! FreeType or any font installed on the machine.

use std::sync::OnceLock;

use plotters::style::FontStyle;

/// The family name plots ask for; SVG files name it in their `<text>` elements, so a viewer with
/// another sans-serif font still shows the labels.
pub const FAMILY: &str = "sans-serif";

static DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// Registers the embedded font under [`FAMILY`] (once per process). Every function that draws
/// text calls this first.
pub fn ensure_registered() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS)
                .map_err(|_| "the embedded DejaVu Sans font could not be read".to_string())
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_font_registers_and_measures_text() {
        ensure_registered().expect("font");
        let font = plotters::style::FontDesc::new(FAMILY.into(), 20.0, FontStyle::Normal);
        let (w, h) = font.box_size("steps/s 0.25").expect("layout");
        assert!(w > 60 && h > 10, "a 12-character label at 20 px measured {w}×{h} px");
    }
}
