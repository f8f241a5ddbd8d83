//! Small text helpers: HTML escaping, rounding for embedded data, file-name slugs, engine colours.

/// `text` safe inside HTML element content and double-quoted attributes.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// JSON text safe inside a `<script>` element: `<` is written as `\u003c`, so no `</script>`
/// (or `<!--`) can end the element early. The JSON value is unchanged.
pub fn script_json(value: &serde_json::Value) -> String {
    value.to_string().replace('<', "\\u003c")
}

/// `v` rounded to `digits` significant digits (non-finite values become 0, which JSON can hold).
pub fn round_sig(v: f64, digits: usize) -> f64 {
    if !v.is_finite() {
        return 0.0;
    }
    if v == 0.0 {
        return 0.0;
    }
    let text = format!("{v:.prec$e}", prec = digits.saturating_sub(1));
    text.parse().unwrap_or(0.0)
}

/// A JSON number with 5 significant digits.
pub fn num(v: f64) -> serde_json::Value {
    serde_json::json!(round_sig(v, 5))
}

/// Lower-case ASCII letters, digits, `-` and `_`; every other run of characters becomes `_`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_').to_string();
    if trimmed.is_empty() {
        "plot".to_string()
    } else {
        trimmed
    }
}

/// Line colours per engine (index order), distinguishable in print and for common colour
/// blindness (Okabe & Ito, "Color Universal Design", 2002).
pub const PALETTE: [(u8, u8, u8); 8] = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (230, 159, 0),
    (86, 180, 233),
    (240, 228, 66),
    (0, 0, 0),
];

pub fn palette(i: usize) -> (u8, u8, u8) {
    PALETTE[i % PALETTE.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_html("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = serde_json::json!({"name": "</script><script>alert(1)</script>"});
        let text = script_json(&v);
        assert!(!text.contains("</script"));
        let back: serde_json::Value = serde_json::from_str(&text).expect("still JSON");
        assert_eq!(back, v);
    }

    #[test]
    fn rounds_to_significant_digits() {
        assert_eq!(round_sig(0.123456789, 5), 0.12346);
        assert_eq!(round_sig(-98765.4321, 5), -98765.0);
        assert_eq!(round_sig(1.2345678e-7, 5), 1.2346e-7);
        assert_eq!(round_sig(f64::NAN, 5), 0.0);
        assert_eq!(serde_json::json!(round_sig(0.1 + 0.2, 5)).to_string(), "0.3");
    }

    #[test]
    fn slugs_are_file_names() {
        assert_eq!(slug("ball.z"), "ball_z");
        assert_eq!(slug("floor force / N"), "floor_force_n");
        assert_eq!(slug("///"), "plot");
    }
}
