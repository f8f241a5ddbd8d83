//! Device node types that Choreonoid's plugins add to the body format (each plugin registers
//! them with `StdBodyLoader::registerNodeType`), and what tribo does with each.
//!
//! A device that only draws (smoke, rain, …) or whose forces are not contact forces loads with a
//! located note saying it is not simulated, as a Choreonoid simulator without that plugin's
//! simulator item leaves it inert. A device that adds contacts or constraints of its own (tracks,
//! wires, joints between links) would change the contact dynamics: a run without it would be a
//! different machine, so it stays a located error.

/// What tribo does with a plugin device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// Loads with a note: it does not take part in contact dynamics.
    NotSimulated,
    /// Refused: it adds contacts or constraints tribo's engines do not have.
    Unsupported,
}

/// A device node type a Choreonoid plugin defines.
#[derive(Debug, Clone, Copy)]
pub struct PluginDevice {
    pub node_type: &'static str,
    /// The Choreonoid plugin that defines it (`src/<plugin>/` in Choreonoid's sources).
    pub plugin: &'static str,
    /// What it does in Choreonoid, in a few words.
    pub effect: &'static str,
    pub treatment: Treatment,
}

const fn device(
    node_type: &'static str,
    plugin: &'static str,
    effect: &'static str,
    treatment: Treatment,
) -> PluginDevice {
    PluginDevice {
        node_type,
        plugin,
        effect,
        treatment,
    }
}

use Treatment::{NotSimulated, Unsupported};

/// Every plugin device type tribo knows.
pub const PLUGIN_DEVICES: [PluginDevice; 12] = [
    device(
        "SmokeDevice",
        "SceneEffectsPlugin",
        "smoke particles, drawn only",
        NotSimulated,
    ),
    device("FireDevice", "SceneEffectsPlugin", "flames, drawn only", NotSimulated),
    device("RainDevice", "SceneEffectsPlugin", "rain, drawn only", NotSimulated),
    device("SnowDevice", "SceneEffectsPlugin", "snow, drawn only", NotSimulated),
    device(
        "FountainDevice",
        "SceneEffectsPlugin",
        "a water jet, drawn only",
        NotSimulated,
    ),
    device(
        "CompetitorMarker",
        "CompetitionPlugin",
        "a marker for scoring, drawn only",
        NotSimulated,
    ),
    device(
        "RotorDevice",
        "MulticopterPlugin",
        "rotor thrust and torque, applied only by the Multicopter simulator item",
        NotSimulated,
    ),
    device(
        "AGXVehicleContinuousTrackDevice",
        "AGXDynamicsPlugin",
        "a track of links with contacts of their own",
        Unsupported,
    ),
    device(
        "AGXWireDevice",
        "AGXDynamicsPlugin",
        "a wire with contacts of its own",
        Unsupported,
    ),
    device(
        "AGXMagneticJointDevice",
        "AGXDynamicsPlugin",
        "a magnetic joint between two links",
        Unsupported,
    ),
    device(
        "AGXBreakableJointDevice",
        "AGXDynamicsPlugin",
        "a joint between two links that breaks under load",
        Unsupported,
    ),
    device(
        "PxContinuousTrack",
        "PhysXPlugin",
        "a track of links with contacts of their own",
        Unsupported,
    ),
];

/// The plugin device of this node type, if it is one.
pub fn plugin_device(node_type: &str) -> Option<&'static PluginDevice> {
    PLUGIN_DEVICES.iter().find(|d| d.node_type == node_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_types_are_unique_and_found() {
        for (i, d) in PLUGIN_DEVICES.iter().enumerate() {
            assert!(
                PLUGIN_DEVICES[i + 1..].iter().all(|e| e.node_type != d.node_type),
                "{} twice",
                d.node_type
            );
            assert_eq!(plugin_device(d.node_type).map(|e| e.plugin), Some(d.plugin));
        }
        assert!(plugin_device("Smoke").is_none());
    }
}
