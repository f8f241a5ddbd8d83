//! What the coupling and the records both need to walk a patch's touched links.

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
