//! Text renderings for `tribo materials`: the merged table, one resolved pair, every resolved pair.

use crate::explain::fmt_num;
use crate::lookup::ContactParams;
use crate::table::MaterialTable;

/// The materials and the contact materials as two aligned text tables.
pub fn table_text(table: &MaterialTable) -> String {
    let material_rows: Vec<Vec<String>> = table
        .materials()
        .iter()
        .map(|m| {
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
        })
        .collect();
    let pair_rows: Vec<Vec<String>> = table
        .pairs()
        .iter()
        .map(|p| {
            let c = &p.contact;
            vec![
                format!("{} · {}", p.names[0], p.names[1]),
                fmt_num(c.static_friction),
                fmt_num(c.dynamic_friction),
                fmt_num(c.restitution),
                c.origin.location.to_string(),
                c.extras.to_text(),
            ]
        })
        .collect();
    let mut out = format!("materials ({})\n", material_rows.len());
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
        &material_rows,
    );
    out += &format!("\ncontact materials ({} pairs)\n", pair_rows.len());
    out += &aligned(
        &["pair", "static μ", "dynamic μ", "restitution", "source", "extras"],
        &pair_rows,
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
    let mut rows = Vec::new();
    for (j, a) in names.iter().enumerate() {
        for b in names.iter().skip(j) {
            let p = table.contact(a, b);
            rows.push(vec![
                format!("{a} · {b}"),
                fmt_num(p.static_friction),
                fmt_num(p.dynamic_friction),
                fmt_num(p.restitution),
                p.source_kind().to_string(),
            ]);
        }
    }
    aligned(&["pair", "static μ", "dynamic μ", "restitution", "source"], &rows)
}

/// Left-aligned columns separated by two spaces, trailing spaces removed.
fn aligned(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let padded: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        format!("  {}\n", padded.join("  ").trim_end())
    };
    let mut out = line(&mut header.iter().copied());
    for row in rows {
        out += &line(&mut row.iter().map(String::as_str));
    }
    out
}
