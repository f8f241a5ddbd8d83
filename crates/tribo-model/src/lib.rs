//! Bodies and motions for tribo.
//!
//! - [`Body`]: the validated link tree every engine consumes (SI units, radians).
//! - [`load_body`] / [`parse_body`]: Choreonoid's `ChoreonoidBody` format (`.body`), versions
//!   1.0 and 2.0.
//! - [`JointMotion`] and [`load_motion`] / [`parse_motion`]: Choreonoid `.seq` joint motions.
//! - [`load_mjcf`] / [`parse_mjcf`]: MuJoCo MJCF models (`.xml`), their geoms' friction as a
//!   material table ([`MjcfModel`]).
//! - [`BodySummary`]: what `tribo check` prints about a body.
//! - [`write_body`] / [`write_body_with`]: a `Body` written back as a `.body` file that loads to
//!   the same model (`tribo import`).

mod body;
mod body_file;
mod extra_joint;
mod load;
mod mesh;
mod mesh_file;
mod mjcf;
mod motion;
mod pad;
mod seq_file;
mod solid;
mod summary;
mod urdf;
mod validate;
mod write_body;

pub use body::{Body, Geometry, Joint, JointKind, Link, Shape, DEFAULT_MATERIAL};
pub use body_file::{load_body, parse_body, read_project_pad};
pub use extra_joint::{refuse_closed_loops, ExtraJoint, ExtraJointKind};
pub use load::{is_mjcf, is_urdf, load_model};
pub use mesh::{Mesh, MeshCollision, MeshMassProperties};
pub use mesh_file::{load_mesh_file, MeshFileError};
pub use mjcf::{friction_table, load_mjcf, load_mjcf_model, parse_mjcf, parse_mjcf_model, GeomFriction, MjcfModel};
pub use motion::{JointMotion, ZmpSeq};
pub use pad::{PadLayout, PadShape, PadSpec};
pub use seq_file::{load_motion, parse_motion};
pub use summary::{BodySummary, LinkSummary};
pub use urdf::{load_urdf, parse_urdf, pose as urdf_origin_pose, without_visuals as urdf_without_visuals};
pub use validate::{rigid_groups, validate, RigidGroups};
pub use write_body::{write_body, write_body_with, BodyFile, BodyFileOptions, MeshResource};
