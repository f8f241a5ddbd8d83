//! `--shard K/N`: which grid points one machine of a sweep runs.
//!
//! Shard K of N takes the points whose 0-based grid index `i` has `i mod N = K − 1` — points K,
//! K+N, K+2N, … counting from 1 — round-robin rather than in contiguous blocks. Neighbouring grid
//! points cost alike (the first swept parameter varies slowest, so a parameter that makes runs long
//! — a finer time step, a longer walk, more bodies — makes a whole block long); round-robin spreads
//! every such block over all shards, so they finish at about the same time, whereas contiguous
//! blocks would hand one shard all the slow points. The choice depends only on the grid (its
//! parameters and values in command-line order) and on K and N, so every machine that runs the
//! same command agrees on it.

use std::fmt;

/// Shard `index` of `count` (1 ≤ index ≤ count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Shard `index` of `count`, if 1 ≤ index ≤ count.
    pub fn new(index: usize, count: usize) -> Option<Shard> {
        (1..=count).contains(&index).then_some(Shard { index, count })
    }

    /// `K/N` as the command line writes it: whole numbers with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let expected = || format!("expected K/N, shard K of N (whole numbers, 1 ≤ K ≤ N), found `{text}`");
        let (k, n) = text.split_once('/').ok_or_else(expected)?;
        let number = |s: &str| s.trim().parse::<usize>().map_err(|_| expected());
        let (k, n) = (number(k)?, number(n)?);
        if n == 0 {
            return Err(format!("`{text}`: N, the number of shards, must be at least 1"));
        }
        if k == 0 {
            return Err(format!(
                "`{text}`: shards are numbered from 1 to N, so the first is `1/{n}` (a 0-based index, \
                 such as Kubernetes' JOB_COMPLETION_INDEX, needs 1 added)"
            ));
        }
        Shard::new(k, n).ok_or_else(|| format!("`{text}`: there is no shard {k} of {n} (K must be at most N)"))
    }

    /// K, from 1.
    pub fn index(self) -> usize {
        self.index
    }

    /// N.
    pub fn count(self) -> usize {
        self.count
    }

    /// The 0-based indices of this shard's points in a grid of `points` points, in grid order;
    /// none when the grid has fewer points than K.
    pub fn points(self, points: usize) -> Vec<usize> {
        (self.index - 1..points).step_by(self.count).collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_of_n_parses_and_prints_back() {
        let shard = Shard::parse("2/3");
        assert_eq!(shard, Ok(Shard { index: 2, count: 3 }));
        assert_eq!(shard.map(|s| s.to_string()), Ok("2/3".to_string()));
        assert_eq!(Shard::parse(" 1 / 1 "), Ok(Shard { index: 1, count: 1 }));
    }

    #[test]
    fn bad_text_zero_and_k_above_n_are_refused_with_the_reason() {
        for text in ["", "2", "1/", "/2", "a/b", "1/2/3", "-1/2", "1.5/2", "1,2"] {
            let e = Shard::parse(text).err().unwrap_or_default();
            assert!(e.starts_with("expected K/N"), "{text}: {e}");
        }
        let e = Shard::parse("0/4").err().unwrap_or_default();
        assert!(e.contains("numbered from 1") && e.contains("`1/4`"), "{e}");
        let e = Shard::parse("5/4").err().unwrap_or_default();
        assert_eq!(e, "`5/4`: there is no shard 5 of 4 (K must be at most N)");
        let e = Shard::parse("0/0").err().unwrap_or_default();
        assert!(e.contains("at least 1"), "{e}");
    }

    #[test]
    fn shards_take_the_grid_round_robin_and_cover_it_once() {
        let of = |k, n, points| Shard::new(k, n).map(|s| s.points(points));
        assert_eq!(of(1, 3, 8), Some(vec![0, 3, 6]));
        assert_eq!(of(2, 3, 8), Some(vec![1, 4, 7]));
        assert_eq!(of(3, 3, 8), Some(vec![2, 5]));
        assert_eq!(of(4, 4, 3), Some(vec![]), "more shards than points: the last is empty");
        assert_eq!(of(1, 1, 3), Some(vec![0, 1, 2]));
        for n in 1..=7 {
            let mut all: Vec<usize> = (1..=n)
                .filter_map(|k| Shard::new(k, n))
                .flat_map(|s| {
                    let points = s.points(20);
                    assert!(points.iter().all(|&p| p % n == s.index() - 1));
                    points
                })
                .collect();
            all.sort_unstable();
            assert_eq!(all, (0..20).collect::<Vec<_>>(), "{n} shards");
        }
    }
}
