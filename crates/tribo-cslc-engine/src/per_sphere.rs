//! What the coupling and the records both need to walk a patch sphere by sphere.

use tribo_engine::LinkRef;

/// The distinct links of a pad's targets, sorted (a link may carry several target shapes).
pub fn distinct_links(target_links: &[LinkRef]) -> Vec<LinkRef> {
    let mut links = target_links.to_vec();
    links.sort();
    links.dedup();
    links
}

/// The length the per-sphere lists of a patch share: the shortest of `lengths` (they are all
/// the lattice's size; slicing every list to this one length lets a loop run without a bounds
/// check per list).
pub fn common_length(lengths: &[usize]) -> usize {
    lengths.iter().copied().min().unwrap_or(0)
}
