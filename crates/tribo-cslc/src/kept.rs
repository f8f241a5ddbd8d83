//! Storage kept from one step to the next for lists whose items borrow from the step.
//!
//! A step's target frames and target lists hold references into the step's input, so the lists
//! cannot outlive the step; their allocations can. [`KeptList`] holds such a list's storage,
//! empty, between steps: [`KeptList::take`] hands it out for the step's items and
//! [`KeptList::keep`] takes it back, so that a step allocates nothing once the lists have grown.

/// An empty vector with `list`'s allocation, for items of another type of the same size and
/// alignment (another lifetime of the same type): `collect` of an emptied vector's `into_iter`
/// reuses its allocation when the layouts agree (the standard library's in-place collection),
/// and allocates anew — correctly, only slower — when they do not.
pub fn recycled<T, U>(mut list: Vec<T>) -> Vec<U> {
    list.clear();
    list.into_iter().filter_map(|_| None).collect()
}

/// The storage of a list of `T`s, empty between steps (module docs). `T` is the list's item
/// type at the `'static` lifetime; the step's items are the same type at the step's lifetime.
pub struct KeptList<T>(Vec<T>);

impl<T> KeptList<T> {
    /// The storage as an empty list of the step's items.
    pub fn take<U>(&mut self) -> Vec<U> {
        recycled(std::mem::take(&mut self.0))
    }

    /// Keeps `list`'s storage (its items are dropped) for the next [`KeptList::take`].
    pub fn keep<U>(&mut self, list: Vec<U>) {
        self.0 = recycled(list);
    }
}

impl<T> Default for KeptList<T> {
    fn default() -> Self {
        KeptList(Vec::new())
    }
}

/// A copy holds no items (there are none between steps) and its own, empty storage.
impl<T> Clone for KeptList<T> {
    fn clone(&self) -> Self {
        KeptList::default()
    }
}

impl<T> std::fmt::Debug for KeptList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeptList {{ capacity: {} }}", self.0.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::KeptList;

    /// A list of borrowed items taken, filled, kept and taken again in later scopes (the items
    /// of each scope borrowing that scope's values) reuses one allocation.
    #[test]
    fn a_kept_list_reuses_its_storage_across_lifetimes() {
        let mut kept: KeptList<&'static f64> = KeptList::default();
        let mut first_storage = None;
        for k in 0..4 {
            let values = [f64::from(k), 2.0, 3.0];
            let mut list: Vec<&f64> = kept.take();
            assert!(list.is_empty());
            list.extend(values.iter());
            assert_eq!(list.iter().copied().sum::<f64>(), f64::from(k) + 5.0);
            let storage = list.as_ptr().cast::<()>();
            assert_eq!(
                *first_storage.get_or_insert(storage),
                storage,
                "scope {k} allocated anew"
            );
            kept.keep(list);
        }
    }
}
