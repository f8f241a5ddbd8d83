//! Geometry that gave no collision shape, repeated in every run summary: a link whose mesh could
//! not be read (an unsupported format, …) would otherwise fall through the floor with nothing
//! said at run time.

use tribo_scene::Scene;

/// One warning per piece of geometry a scene body's file gave that no engine collides
/// ([`tribo_model::Link::uncollided`]), naming body, link and where the geometry is; a link left
/// with no collision shape at all is said to pass through everything.
pub fn uncollided_warnings(scene: &Scene) -> Vec<String> {
    let mut out = Vec::new();
    for body in &scene.bodies {
        for link in &body.model.links {
            for note in &link.uncollided {
                let consequence = if link.shapes.is_empty() {
                    "it has no collision shape at all and passes through everything"
                } else {
                    "it collides with its other shapes only"
                };
                out.push(format!(
                    "body `{}` link `{}`: {}: {} ({consequence})",
                    body.name, link.name, note.location, note.message
                ));
            }
        }
    }
    out
}
