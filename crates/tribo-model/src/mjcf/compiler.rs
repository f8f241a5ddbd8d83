//! `<compiler>` settings the import honours (MuJoCo's XML reference, *compiler*): the angle unit
//! (degrees unless `angle="radian"`), the Euler sequence, the mesh directory, whether inertia comes
//! from geoms, and whether a joint with a range is limited. Settings that would change masses
//! (`boundmass`, `boundinertia`, `balanceinertia`, `settotalmass`) and global coordinates are
//! refused, so a model never loads with other masses than MuJoCo gives it.

use std::path::PathBuf;

use tribo_yaml::{Diagnostic, Error};

use super::defaults::Attrs;
use super::xml::Element;

/// When a body's inertia comes from its geoms (`inertiafromgeom`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InertiaFromGeom {
    /// Only for bodies without `<inertial>` (`auto`, the default).
    Auto,
    /// Always, `<inertial>` ignored (`true`).
    Always,
    /// Never (`false`): a body without `<inertial>` has no mass.
    Never,
}

#[derive(Debug, Clone)]
pub(crate) struct Compiler {
    /// Angles in files are degrees (`angle="degree"`, the default).
    pub degrees: bool,
    /// Three of `xyzXYZ`: lower case rotates about the moving frame's axes, upper case about the
    /// fixed frame's.
    pub euler_sequence: [char; 3],
    /// Where mesh files are found (`meshdir`, else `assetdir`), relative to the model file.
    pub mesh_dir: PathBuf,
    pub inertia_from_geom: InertiaFromGeom,
    /// `autolimits` (default true): a joint with a `range` is limited unless `limited="false"`.
    pub auto_limits: bool,
}

impl Compiler {
    /// The settings of every `<compiler>` under `<mujoco>`, later ones overriding earlier ones.
    pub fn read(mujoco: &Element) -> Result<Compiler, Error> {
        let mut out = Compiler {
            degrees: true,
            euler_sequence: ['x', 'y', 'z'],
            mesh_dir: PathBuf::new(),
            inertia_from_geom: InertiaFromGeom::Auto,
            auto_limits: true,
        };
        let mut asset_dir = None;
        let mut mesh_dir = None;
        for element in mujoco.children_named("compiler") {
            let attrs = Attrs::own(element);
            if let Some(angle) = attrs.keyword("angle", &["degree", "radian"])? {
                out.degrees = angle == "degree";
            }
            if let Some(attr) = attrs.get("eulerseq") {
                let chars: Vec<char> = attr.value.chars().collect();
                if chars.len() != 3 || !chars.iter().all(|c| "xyzXYZ".contains(*c)) {
                    return Err(Diagnostic::error(
                        attr.at.clone(),
                        format!("`eulerseq` is `{}`: expected three of x, y, z, X, Y, Z", attr.value),
                    ));
                }
                out.euler_sequence = [chars[0], chars[1], chars[2]];
            }
            if let Some(dir) = attrs.text("meshdir") {
                mesh_dir = Some(PathBuf::from(dir));
            }
            if let Some(dir) = attrs.text("assetdir") {
                asset_dir = Some(PathBuf::from(dir));
            }
            if let Some(mode) = attrs.keyword("inertiafromgeom", &["true", "false", "auto"])? {
                out.inertia_from_geom = match mode {
                    "true" => InertiaFromGeom::Always,
                    "false" => InertiaFromGeom::Never,
                    _ => InertiaFromGeom::Auto,
                };
            }
            if let Some(auto) = attrs.flag("autolimits")? {
                out.auto_limits = auto;
            }
            if let Some(coordinate) = attrs.get("coordinate").filter(|a| a.value != "local") {
                return Err(Diagnostic::error(
                    coordinate.at.clone(),
                    "`coordinate` other than `local` is not supported (MuJoCo dropped global coordinates)",
                ));
            }
            for name in ["boundmass", "boundinertia", "balanceinertia", "settotalmass"] {
                let Some(attr) = attrs.get(name) else { continue };
                let neutral = match name {
                    "balanceinertia" => attr.value == "false",
                    "settotalmass" => attr.value.trim().parse::<f64>().is_ok_and(|x| x <= 0.0),
                    _ => attr.value.trim().parse::<f64>() == Ok(0.0),
                };
                if !neutral {
                    return Err(Diagnostic::error(
                        attr.at.clone(),
                        format!("<compiler {name}> is not supported: it changes the model's masses"),
                    ));
                }
            }
        }
        out.mesh_dir = mesh_dir.or(asset_dir).unwrap_or_default();
        Ok(out)
    }

    /// `value` in radians (a file angle, in degrees unless `angle="radian"`).
    pub fn angle(&self, value: f64) -> f64 {
        if self.degrees {
            value.to_radians()
        } else {
            value
        }
    }
}
