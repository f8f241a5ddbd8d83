//! CSLC pads: the compliant contact surface of a link (design `docs/design/lattice-model.md` §2).
//!
//! A pad is declared on a link in a body file (`pad:` key of a link) or laid over a link by a
//! project (`pads:`); engines that do not model pads ignore it. Geometry only: stiffnesses come
//! from the pad material's `cslc` block in the material table.

use nalgebra::Isometry3;
use tribo_yaml::Location;

/// The shape of a pad's lattice.
#[derive(Debug, Clone, PartialEq)]
pub enum PadShape {
    /// A rectangular grid of `resolution[0] × resolution[1]` spheres at spacing `spacing`, m,
    /// centred on the pad origin in its XY plane; `layout` says what they sample (pad size =
    /// resolution × spacing for cells, (resolution − 1) × spacing for nodes).
    Flat {
        resolution: [usize; 2],
        spacing: f64,
        layout: PadLayout,
    },
    /// A spherical cap of curvature radius `radius`, m, and base radius `base_radius`, m
    /// (apex at the pad origin, bulging along +Z), sampled by `resolution` cells across the base.
    Dome {
        radius: f64,
        base_radius: f64,
        resolution: usize,
    },
}

/// What a flat pad's spheres stand for (`docs/design/lattice-model.md` §2, "Where a flat pad
/// ends"); the file key `layout:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PadLayout {
    /// `cells` (the default): each sphere the centre of its own `spacing × spacing` cell; the
    /// outermost centres lie half a spacing inside the pad's edges.
    #[default]
    Cells,
    /// `nodes`: the spheres on the grid's nodes, the outermost on the pad's edges; edge spheres
    /// stand for half a cell, corner spheres for a quarter.
    Nodes,
}

impl PadLayout {
    /// Every layout, in the order a message lists them.
    pub const ALL: [PadLayout; 2] = [PadLayout::Cells, PadLayout::Nodes];

    /// The layout a file names `name`, if any.
    pub fn named(name: &str) -> Option<PadLayout> {
        PadLayout::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The file name of this layout.
    pub fn name(self) -> &'static str {
        match self {
            PadLayout::Cells => "cells",
            PadLayout::Nodes => "nodes",
        }
    }
}

/// A pad on a link.
#[derive(Debug, Clone, PartialEq)]
pub struct PadSpec {
    pub shape: PadShape,
    /// Pad frame in the link frame: the contact surface passes through its origin with outward
    /// normal +Z.
    pub pose: Isometry3<f64>,
    /// Where the pad was declared.
    pub location: Location,
}
