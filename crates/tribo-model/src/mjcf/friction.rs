//! MuJoCo's per-geom friction as tribo materials.
//!
//! A MuJoCo geom carries `friction="slide torsion roll"`, and a contact between two geoms uses,
//! for each of the three, the larger of the two geoms' values (MuJoCo's documentation,
//! *Computation / Contact parameters*: without `priority` or an explicit `<pair>`, the maximum).
//! tribo decides friction per pair of link materials from a material table. So each colliding
//! geom's link gets the material `mjcf_mu_<slide>` (for example `mjcf_mu_0_5` for 0.5), and
//! [`friction_table`] writes a Choreonoid material table defining those materials and, for every
//! pair of them, `friction` = the larger slide value — MuJoCo's rule. A project lists that table
//! under `materials:` to simulate with MuJoCo's friction; a pair with a material outside the table
//! (a tribo floor's `Ground`) falls back to tribo's rule unless the project adds an entry. The
//! torsional and rolling values have no tribo counterpart (tribo's contacts have no rolling or
//! torsional friction) and are listed, not used.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::GeomFriction;

/// The tribo material of a geom whose sliding friction is `slide`: `mjcf_mu_` and the number with
/// its decimal point written `_` (`mjcf_mu_0_5` for 0.5), so that project formulas can name it
/// (`friction(mjcf_mu_0_5, Ground)`).
pub(crate) fn material_name(slide: f64) -> String {
    format!("mjcf_mu_{slide}").replace('.', "_")
}

/// A Choreonoid material table (YAML) with one material per distinct sliding friction among
/// `frictions` (`roughness` = that friction) and one `contact_materials` entry per pair of them,
/// the same material with itself included, whose `friction` is the larger of the two (MuJoCo's
/// rule, module docs). Give the frictions of every MJCF model of a scene, so that pairs between
/// models are in the table too.
pub fn friction_table(frictions: &[GeomFriction]) -> String {
    let mut slides: BTreeMap<String, f64> = BTreeMap::new();
    for f in frictions {
        slides.insert(material_name(f.friction[0]), f.friction[0]);
    }
    let mut by_value: Vec<(&String, f64)> = slides.iter().map(|(n, v)| (n, *v)).collect();
    by_value.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut out = String::from(
        "# MuJoCo geom friction as tribo materials: a contact uses the larger of the two geoms' sliding\n\
         # friction, as MuJoCo does; MuJoCo's contacts have no restitution.\nmaterials:\n",
    );
    for (name, slide) in &by_value {
        let _ = writeln!(out, "  - {{ name: {name}, roughness: {slide} }}");
    }
    out.push_str("contact_materials:\n");
    for (i, (a, slide_a)) in by_value.iter().enumerate() {
        for (b, slide_b) in &by_value[i..] {
            let _ = writeln!(
                out,
                "  - {{ materials: [{a}, {b}], friction: {}, restitution: 0 }}",
                slide_a.max(*slide_b)
            );
        }
    }
    out
}
