//! The one list of the contact engines tribo ships.

use tribo_cslc_engine::CslcFactory;
use tribo_engine::{HostFactory, Registry};
use tribo_pgs::PgsFactory;
use tribo_rapier::RapierFactory;

/// Every engine tribo ships, in the order `tribo engines` lists them: `rapier`, `pgs`, and the
/// compliant sphere lattice on each host that can carry it (`cslc` on `pgs`, `cslc-rapier` on
/// `rapier`).
///
/// ```
/// let names = tribo::engines().names();
/// assert_eq!(names, ["rapier", "pgs", "cslc", "cslc-rapier"]);
/// ```
pub fn engines() -> Registry {
    let mut registry = Registry::new();
    registry.register(Box::new(RapierFactory));
    registry.register(Box::new(PgsFactory));
    registry.register(Box::new(CslcFactory::new(
        "cslc",
        "compliant sphere lattice pads (patches, pressure, friction moments) hosted on the pgs engine",
        Box::new(PgsFactory),
    )));
    registry.register(Box::new(CslcFactory::new(
        "cslc-rapier",
        "compliant sphere lattice pads (patches, pressure, friction moments) hosted on the rapier engine",
        Box::new(RapierFactory),
    )));
    registry
}

/// Every engine that can carry a contact extension (`tribo_engine::ContactHost`).
pub fn hosts() -> Vec<Box<dyn HostFactory>> {
    vec![Box::new(PgsFactory), Box::new(RapierFactory)]
}
