//! What the coupling and the records both need to walk a patch sphere by sphere.

use tribo_engine::LinkRef;

/// The distinct links of a pad's targets, sorted (a link may carry several target shapes).
pub fn distinct_links(target_links: &[LinkRef]) -> Vec<LinkRef> {
    let mut links = Vec::with_capacity(target_links.len());
    distinct_links_into(target_links, &mut links);
    links
}

/// [`distinct_links`] into `links` (cleared first), reusing its storage.
pub fn distinct_links_into(target_links: &[LinkRef], links: &mut Vec<LinkRef>) {
    links.clear();
    links.extend_from_slice(target_links);
    links.sort();
    links.dedup();
}

/// The length the per-sphere lists of a patch share: the shortest of `lengths` (they are all
/// the lattice's size; slicing every list to this one length lets a loop run without a bounds
/// check per list).
pub fn common_length(lengths: &[usize]) -> usize {
    lengths.iter().copied().min().unwrap_or(0)
}
