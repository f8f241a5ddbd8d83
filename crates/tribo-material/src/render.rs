//! Text renderings for `tribo materials`: the merged table, one resolved pair, every resolved pair.

use crate::explain::fmt_num;
use crate::lookup::ContactParams;
use crate::table::MaterialTable;

/// The materials and the contact materials as two aligned text tables.
pub fn table_text(table: &MaterialTable) -> String {
    let materials = table.materials();
    let pairs = table.pairs();
    let mut out = format!("materials ({})\n", materials.len());
    out += &aligned(
        &[
            "name",
            "roughness",
            "viscosity",
            "stiffness",
            "damping",
            "source",
            "extras",
        ],
        materials.len(),
        |i| {
            let m = &materials[i];
            vec![
                m.name.clone(),
                fmt_num(m.roughness),
                fmt_num(m.viscosity),
                fmt_num(m.stiffness),
                fmt_num(m.damping),
                m.origin
                    .as_ref()
                    .map_or_else(|| "built-in".to_string(), |o| o.location.to_string()),
                m.extras.to_text(),
            ]
        },
    );
    out += &format!("\ncontact materials ({} pairs)\n", pairs.len());
    out += &aligned(
        &["pair", "static μ", "dynamic μ", "restitution", "source", "extras"],
        pairs.len(),
        |i| {
            let p = &pairs[i];
            let c = &p.contact;
            vec![
                format!("{} · {}", p.names[0], p.names[1]),
                fmt_num(c.static_friction),
                fmt_num(c.dynamic_friction),
                fmt_num(c.restitution),
                c.origin.location.to_string(),
                c.extras.to_text(),
            ]
        },
    );
    out
}

/// One resolved pair, with the explanation of each number (for `tribo materials --pair A B`).
pub fn pair_text(a: &str, b: &str, params: &ContactParams) -> String {
    let mut out = format!(
        "{a} · {b}: static friction {}, dynamic friction {}, restitution {} ({})\n",
        fmt_num(params.static_friction),
        fmt_num(params.dynamic_friction),
        fmt_num(params.restitution),
        if params.is_explicit() {
            "explicit entry"
        } else {
            "no entry: fallback rule"
        },
    );
    for line in params.explain() {
        out += &format!("  {line}\n");
    }
    if !params.extras.is_empty() {
        out += &format!("  extras: {}\n", params.extras.to_text());
    }
    out
}

/// Every unordered pair (including self pairs) of `names`, resolved, as an aligned text table.
pub fn resolved_pairs_text(table: &MaterialTable, names: &[&str]) -> String {
    let pairs: Vec<(&str, &str)> = names
        .iter()
        .enumerate()
        .flat_map(|(j, a)| names[j..].iter().map(move |b| (*a, *b)))
        .collect();
    aligned(
        &["pair", "static μ", "dynamic μ", "restitution", "source"],
        pairs.len(),
        |i| {
            let (a, b) = pairs[i];
            let p = table.contact(a, b);
            vec![
                format!("{a} · {b}"),
                fmt_num(p.static_friction),
                fmt_num(p.dynamic_friction),
                fmt_num(p.restitution),
                p.source_kind().to_string(),
            ]
        },
    )
}

/// Left-aligned columns separated by two spaces, trailing spaces removed. Row `i`'s cells come
/// from `row(i)`, formatted once into one flat buffer (no `String` per cell is kept), so a
/// 500 000-pair listing costs about twice its output, not several times that.
fn aligned(header: &[&str], rows: usize, row: impl Fn(usize) -> Vec<String>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    let mut cells = String::new();
    let mut ends: Vec<usize> = Vec::with_capacity(rows * header.len());
    for i in 0..rows {
        let row_cells = row(i);
        for (k, w) in widths.iter_mut().enumerate() {
            let cell = row_cells.get(k).map_or("", String::as_str);
            *w = (*w).max(cell.chars().count());
            cells.push_str(cell);
            ends.push(cells.len());
        }
    }
    let mut out = String::with_capacity(2 * cells.len());
    let mut line = |row: &mut dyn Iterator<Item = &str>| {
        out.push_str("  ");
        let start = out.len();
        for (k, (cell, w)) in row.zip(&widths).enumerate() {
            if k > 0 {
                out.push_str("  ");
            }
            out.push_str(cell);
            let pad = w.saturating_sub(cell.chars().count());
            out.extend(std::iter::repeat_n(' ', pad));
        }
        let trimmed = out[start..].trim_end().len();
        out.truncate(start + trimmed);
        out.push('\n');
    };
    line(&mut header.iter().copied());
    let mut begin = 0;
    for row_ends in ends.chunks(header.len()) {
        let mut row = row_ends.iter().map(|&end| {
            let cell = &cells[begin..end];
            begin = end;
            cell
        });
        line(&mut row);
    }
    out
}
