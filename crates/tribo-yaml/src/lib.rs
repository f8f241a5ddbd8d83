//! Located YAML for tribo's file formats.
//!
//! Every format tribo reads (Choreonoid material tables, `.body` models, `.seq` motions, `.cnoid`
//! projects and tribo's own project files) is YAML, and every user-facing error must name the file,
//! line and column of the offending node. `serde_yaml` drops locations after parsing, so this crate
//! builds its own tree from `yaml-rust2`'s marked event stream:
//!
//! - [`Node`]: a value with the [`Location`] it was written at (aliases carry their anchor's
//!   location);
//! - anchors, aliases and `<<` merge keys resolved the way Choreonoid's reader does (see
//!   `docs/design/choreonoid-formats.md` §0: explicit keys always win over merged ones, earlier merge
//!   sources win over later ones, duplicate plain keys are last-wins);
//! - typed reads ([`Node::as_f64`], [`Node::as_vec3`], …) that fail with a located [`Error`] saying
//!   what was expected and what was found;
//! - [`Fields`], a mapping reader that remembers which keys were read so the rest can be kept as
//!   engine-specific extras or reported as unknown with the closest known key ([`closest`]);
//! - [`from_node`]: `#[derive(Deserialize)]` types read from a tree with the same located errors
//!   ([`from_node_with`] and [`ScalarContext`] for formulas and variables, [`Located`] values);
//! - [`flow_scalar_lists`]: the YAML tribo writes (serde_yaml's, one list item per line) with its
//!   lists of numbers and words on one line, as people write them.

mod alias_budget;
mod builder;
mod compact;
mod de;
mod error;
mod fields;
mod flow_indent;
mod load;
mod map_builder;
mod node;
mod suggest;

pub use alias_budget::{ALIAS_NODES_FLOOR, ALIAS_NODES_PER_WRITTEN_NODE};
pub use compact::flow_scalar_lists;
pub use de::{from_node, from_node_with, DeError, Located, Plain, ScalarContext, UnknownKeys};
pub use error::{Diagnostic, Error, Location, Severity};
pub use fields::Fields;
pub use load::{parse_file, parse_file_with_warnings, parse_str, parse_str_with_warnings, Document};
pub use node::{abbreviate, Map, MapEntry, Node, Value};
pub use suggest::{closest, did_you_mean};
