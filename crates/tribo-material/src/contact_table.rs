//! The dense, resolved pair table a simulation reads in its inner loop.

use std::collections::BTreeMap;

use tribo_yaml::{Error, Location};

use crate::lookup::{ContactParams, StandIn};
use crate::material::Material;
use crate::names::{canonical, DEFAULT_MATERIAL};
use crate::table::MaterialTable;

/// A material's index in a [`ContactTable`]. Id 0 is always the default material (the material of
/// a link that names none), as in Choreonoid's registry; other ids follow the first use of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaterialId(u16);

impl MaterialId {
    /// The default material.
    pub const DEFAULT: MaterialId = MaterialId(0);

    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// The contact parameters of every pair of the materials a scene uses, precomputed from a merged
/// [`MaterialTable`]: `pair(a, b)` is O(1) and symmetric.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactTable {
    names: Vec<String>,
    ids: BTreeMap<String, MaterialId>,
    materials: Vec<(Material, StandIn)>,
    /// Row-major n × n, `pairs[a·n + b] == pairs[b·n + a]`.
    pairs: Vec<ContactParams>,
}

impl ContactTable {
    /// Assign ids to the distinct names (the default material first, then in first-use order;
    /// `default`, `Default` and the empty name are the default material) and resolve every pair.
    /// Fails only beyond 65 536 distinct names.
    pub fn build<I, S>(table: &MaterialTable, names: I) -> Result<ContactTable, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut ordered = vec![DEFAULT_MATERIAL.to_string()];
        let mut ids = BTreeMap::from([(DEFAULT_MATERIAL.to_string(), MaterialId::DEFAULT)]);
        for name in names {
            let key = canonical(name.as_ref());
            if ids.contains_key(key) {
                continue;
            }
            let id = u16::try_from(ordered.len()).map_err(|_| {
                Error::error(
                    Location::file("<material names>"),
                    format!(
                        "too many distinct material names (at most {})",
                        usize::from(u16::MAX) + 1
                    ),
                )
            })?;
            ids.insert(key.to_string(), MaterialId(id));
            ordered.push(key.to_string());
        }
        let n = ordered.len();
        let materials = ordered
            .iter()
            .map(|name| {
                let (material, stand_in) = table.stand_in(name);
                (material.into_owned(), stand_in)
            })
            .collect();
        // Resolve the upper triangle once and mirror it, so symmetry holds by construction.
        let mut upper: BTreeMap<(usize, usize), ContactParams> = BTreeMap::new();
        for (a, name_a) in ordered.iter().enumerate() {
            for (b, name_b) in ordered.iter().enumerate().skip(a) {
                upper.insert((a, b), table.contact(name_a, name_b));
            }
        }
        let mut pairs = Vec::with_capacity(n * n);
        for a in 0..n {
            for b in 0..n {
                let key = if a <= b { (a, b) } else { (b, a) };
                if let Some(params) = upper.get(&key) {
                    pairs.push(params.clone());
                }
            }
        }
        Ok(ContactTable {
            names: ordered,
            ids,
            materials,
            pairs,
        })
    }

    /// The number of materials (including the default material).
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: the default material is always present.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The id of a name passed to [`build`](Self::build) (or of the default material).
    pub fn id(&self, name: &str) -> Option<MaterialId> {
        self.ids.get(canonical(name)).copied()
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl Iterator<Item = MaterialId> {
        // `build` guarantees len ≤ 65 536, so every index fits a u16.
        (0..self.len()).filter_map(|i| u16::try_from(i).ok()).map(MaterialId)
    }

    /// The name of an id (`Default` for id 0).
    pub fn name(&self, id: MaterialId) -> &str {
        self.names.get(id.index()).map_or(DEFAULT_MATERIAL, String::as_str)
    }

    /// The material values an id uses (its own entry, or the stand-in for a name without one; see
    /// [`MaterialTable::stand_in`]). Engines read material-level keys here (`stiffness`, extras).
    ///
    /// # Panics
    /// If `id` does not come from this table.
    pub fn material(&self, id: MaterialId) -> &Material {
        &self.materials[id.index()].0
    }

    /// Whose values an id uses.
    ///
    /// # Panics
    /// If `id` does not come from this table.
    pub fn stand_in(&self, id: MaterialId) -> StandIn {
        self.materials[id.index()].1
    }

    /// The contact parameters of a pair of ids: O(1), and `pair(a, b) == pair(b, a)`.
    ///
    /// # Panics
    /// If an id does not come from this table.
    pub fn pair(&self, a: MaterialId, b: MaterialId) -> &ContactParams {
        &self.pairs[a.index() * self.len() + b.index()]
    }
}
