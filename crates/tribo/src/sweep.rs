//! A grid of parameter values × engines.

use std::collections::BTreeMap;
use std::fmt::Display;

use rayon::prelude::*;

use crate::{EngineRun, Error, Project};

/// Parameter axes; the grid is every combination of their values, the first axis varying
/// slowest (as `tribo sweep --param` orders it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grid {
    axes: Vec<(String, Vec<String>)>,
}

impl Grid {
    pub fn new() -> Grid {
        Grid::default()
    }

    /// Add the axis `name` with these values (each as the project file would read it).
    pub fn axis<V: Display>(mut self, name: &str, values: impl IntoIterator<Item = V>) -> Grid {
        self.axes
            .push((name.to_string(), values.into_iter().map(|v| v.to_string()).collect()));
        self
    }

    /// The axes' names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.axes.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Every point: one value per axis, the first axis varying slowest.
    pub fn points(&self) -> Vec<Vec<String>> {
        let mut points = vec![Vec::new()];
        for (_, values) in &self.axes {
            points = points
                .into_iter()
                .flat_map(|p| {
                    values.iter().map(move |v| {
                        let mut next = p.clone();
                        next.push(v.clone());
                        next
                    })
                })
                .collect();
        }
        points
    }

    fn check(&self) -> Result<(), Error> {
        for (i, (name, values)) in self.axes.iter().enumerate() {
            if name.trim().is_empty() {
                return Err(Error::Input("a sweep axis has an empty name".to_string()));
            }
            if values.is_empty() || values.iter().any(|v| v.trim().is_empty()) {
                return Err(Error::Input(format!("sweep axis `{name}` needs values, none empty")));
            }
            if self.axes[..i].iter().any(|(n, _)| n == name) {
                return Err(Error::Input(format!("sweep axis `{name}` is given twice")));
            }
        }
        Ok(())
    }
}

/// One grid point's runs.
#[derive(Debug)]
pub struct SweepPoint {
    /// One value per axis, in the grid's order.
    pub values: Vec<String>,
    /// One run per engine, in the sweep's engine order.
    pub runs: Vec<EngineRun>,
}

/// A finished sweep: every point, in grid order.
#[derive(Debug)]
pub struct Sweep {
    pub parameters: Vec<String>,
    pub engines: Vec<String>,
    pub points: Vec<SweepPoint>,
}

impl Project {
    /// Run every point of `grid` on each of `engines` (none: as [`Project::compare`] chooses),
    /// all runs in parallel. Each point reloads the project with its values as overrides (after
    /// the builder's own), so a parameter that shapes the scene (a mass, a height, a material)
    /// takes effect; every point loads before anything runs, so a bad value is an error up
    /// front. Runs are deterministic: the sweep does not depend on the thread count.
    ///
    /// ```
    /// # fn main() -> Result<(), tribo::Error> {
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/ball/ball.yaml");
    /// let project = tribo::Project::builder(path).time(1.5).load()?;
    /// let grid = tribo::Grid::new().axis("drop_height", [0.5, 1.0]);
    /// let sweep = project.sweep(&grid, &["pgs"])?;
    /// let apexes: Vec<f64> = sweep.points.iter().map(|p| p.runs[0].result.as_ref().unwrap().value("first_apex").unwrap()).collect();
    /// // e² h: the apex after the first bounce scales with the drop height.
    /// assert!((apexes[1] / apexes[0] - 2.0).abs() < 0.05, "{apexes:?}");
    /// # Ok(()) }
    /// ```
    pub fn sweep(&self, grid: &Grid, engines: &[&str]) -> Result<Sweep, Error> {
        grid.check()?;
        let engines = self.engines_or_default(engines)?;
        let names = grid.names();
        let points = grid.points();
        let projects: Vec<Project> = points
            .par_iter()
            .map(|values| {
                let overrides: BTreeMap<String, String> = names
                    .iter()
                    .zip(values)
                    .map(|(n, v)| (n.to_string(), v.clone()))
                    .collect();
                self.reload_with(&overrides)
            })
            .collect::<Result<_, _>>()?;
        let jobs: Vec<(usize, &str)> = (0..projects.len())
            .flat_map(|p| engines.iter().map(move |e| (p, e.as_str())))
            .collect();
        let mut runs = jobs
            .par_iter()
            .map(|&(p, engine)| EngineRun {
                engine: engine.to_string(),
                result: projects[p].run(engine),
            })
            .collect::<Vec<_>>()
            .into_iter();
        let points = points
            .into_iter()
            .map(|values| SweepPoint {
                values,
                runs: runs.by_ref().take(engines.len()).collect(),
            })
            .collect();
        Ok(Sweep {
            parameters: names.iter().map(|n| n.to_string()).collect(),
            engines,
            points,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_vary_the_first_axis_slowest() {
        let grid = Grid::new().axis("a", [1, 2]).axis("b", ["x", "y", "z"]);
        let points = grid.points();
        assert_eq!(points.len(), 6);
        assert_eq!(points[0], ["1", "x"]);
        assert_eq!(points[2], ["1", "z"]);
        assert_eq!(points[3], ["2", "x"]);
    }

    #[test]
    fn bad_axes_are_refused() {
        assert!(Grid::new().axis("a", Vec::<f64>::new()).check().is_err());
        assert!(Grid::new().axis("a", [1]).axis("a", [2]).check().is_err());
        assert!(Grid::new().axis(" ", [1]).check().is_err());
    }
}
