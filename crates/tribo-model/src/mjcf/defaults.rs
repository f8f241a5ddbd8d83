//! Default classes (MuJoCo's XML reference, *default*): a `<default>` element holds attribute
//! values for the elements named inside it (`<geom>`, `<joint>`, `<mesh>`, …); a nested
//! `<default class="name">` starts from its parent's values and overrides some. The top-level
//! class is `main`. An element takes the class its `class` attribute names, else the `childclass`
//! of the nearest enclosing body that has one, else `main`; its own attributes override the
//! class's.

use std::collections::BTreeMap;

use nalgebra::Vector3;
use tribo_yaml::{Diagnostic, Error, Location};

use super::xml::{Attr, Element};

/// The class every element falls back to.
pub(crate) const MAIN: &str = "main";

/// Every class's attribute values by element tag, each class's already merged over its parent's.
#[derive(Debug, Default)]
pub(crate) struct Defaults {
    classes: BTreeMap<String, BTreeMap<String, Vec<Attr>>>,
}

impl Defaults {
    /// The classes of the `<default>` elements directly under `<mujoco>`.
    pub fn read(mujoco: &Element) -> Result<Defaults, Error> {
        let mut out = Defaults::default();
        out.classes.insert(MAIN.to_string(), BTreeMap::new());
        for top in mujoco.children_named("default") {
            let name = top.attr("class").map_or(MAIN, |a| a.value.as_str()).to_string();
            let start = out.classes.get(MAIN).cloned().unwrap_or_default();
            out.class(top, name, start, true)?;
        }
        Ok(out)
    }

    fn class(
        &mut self,
        element: &Element,
        name: String,
        mut values: BTreeMap<String, Vec<Attr>>,
        top: bool,
    ) -> Result<(), Error> {
        if !top && self.classes.contains_key(&name) {
            return Err(Diagnostic::error(
                element.at.clone(),
                format!("default class `{name}` is defined twice"),
            ));
        }
        for child in element.children.iter().filter(|c| c.tag != "default") {
            super::schema::check_attributes(child)?;
            let tag_values = values.entry(child.tag.clone()).or_default();
            for attr in &child.attrs {
                tag_values.retain(|a| a.name != attr.name);
                tag_values.push(attr.clone());
            }
        }
        self.classes.insert(name, values.clone());
        for nested in element.children_named("default") {
            let Some(class) = nested.attr("class") else {
                return Err(Diagnostic::error(
                    nested.at.clone(),
                    "a nested <default> needs a `class` name",
                ));
            };
            self.class(nested, class.value.clone(), values.clone(), false)?;
        }
        Ok(())
    }

    /// The class name an element uses: its `class`, else `inherited` (the enclosing bodies'
    /// `childclass`, or `main`). An unknown name is an error naming the closest class.
    pub fn class_of<'a>(&self, element: &'a Element, inherited: &'a str) -> Result<&'a str, Error> {
        match element.attr("class") {
            Some(class) => {
                self.check_class(class)?;
                Ok(class.value.as_str())
            }
            None => Ok(inherited),
        }
    }

    /// An error if `attr` (a `class` or `childclass`) names no class.
    pub fn check_class(&self, attr: &Attr) -> Result<(), Error> {
        if self.classes.contains_key(&attr.value) {
            return Ok(());
        }
        let hint = tribo_yaml::did_you_mean(&attr.value, self.classes.keys().map(String::as_str));
        Err(Diagnostic::error(
            attr.at.clone(),
            format!("no default class `{}`{hint}", attr.value),
        ))
    }

    /// The element's attributes over its class's values for its tag.
    pub fn resolve<'a>(&'a self, element: &'a Element, inherited: &'a str) -> Result<Attrs<'a>, Error> {
        let class = self.class_of(element, inherited)?;
        let defaults = self
            .classes
            .get(class)
            .and_then(|c| c.get(&element.tag))
            .map_or(&[][..], Vec::as_slice);
        Ok(Attrs { element, defaults })
    }
}

/// An element's attributes with its class's values behind them.
pub(crate) struct Attrs<'a> {
    pub element: &'a Element,
    defaults: &'a [Attr],
}

impl<'a> Attrs<'a> {
    /// The element's own attributes, for elements without defaults (`<compiler>`, `<body>`).
    pub fn own(element: &'a Element) -> Attrs<'a> {
        Attrs { element, defaults: &[] }
    }

    /// The element's own attribute, else its class's.
    pub fn get(&self, name: &str) -> Option<&'a Attr> {
        self.element
            .attr(name)
            .or_else(|| self.defaults.iter().find(|a| a.name == name))
    }

    pub fn at(&self) -> Location {
        self.element.at.clone()
    }

    pub fn text(&self, name: &str) -> Option<&'a str> {
        self.get(name).map(|a| a.value.as_str())
    }

    /// The numbers of attribute `name` (between `min` and `max` of them), with the attribute.
    pub fn numbers(&self, name: &str, min: usize, max: usize) -> Result<Option<(Vec<f64>, &'a Attr)>, Error> {
        let Some(attr) = self.get(name) else {
            return Ok(None);
        };
        let values = numbers(attr)?;
        if values.len() < min || values.len() > max {
            let count = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(Diagnostic::error(
                attr.at.clone(),
                format!(
                    "<{}> `{name}` needs {count} numbers, not {}",
                    self.element.tag,
                    values.len()
                ),
            ));
        }
        Ok(Some((values, attr)))
    }

    pub fn number(&self, name: &str) -> Result<Option<f64>, Error> {
        Ok(self.numbers(name, 1, 1)?.map(|(v, _)| v[0]))
    }

    pub fn vector3(&self, name: &str) -> Result<Option<Vector3<f64>>, Error> {
        Ok(self.numbers(name, 3, 3)?.map(|(v, _)| Vector3::new(v[0], v[1], v[2])))
    }

    /// A `true`/`false` attribute (`auto` and absence give `None`).
    pub fn flag(&self, name: &str) -> Result<Option<bool>, Error> {
        let Some(attr) = self.get(name) else {
            return Ok(None);
        };
        match attr.value.as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            "auto" => Ok(None),
            other => Err(Diagnostic::error(
                attr.at.clone(),
                format!("`{name}` is `{other}`: expected true, false or auto"),
            )),
        }
    }

    /// The value of a keyword attribute, checked against `choices` (a close spelling suggested).
    pub fn keyword(&self, name: &str, choices: &[&str]) -> Result<Option<&'a str>, Error> {
        let Some(attr) = self.get(name) else {
            return Ok(None);
        };
        if choices.contains(&attr.value.as_str()) {
            return Ok(Some(attr.value.as_str()));
        }
        let hint = tribo_yaml::did_you_mean(&attr.value, choices.iter().copied());
        Err(Diagnostic::error(
            attr.at.clone(),
            format!(
                "<{}> `{name}` is `{}`: expected one of {}{hint}",
                self.element.tag,
                attr.value,
                choices.join(", ")
            ),
        ))
    }
}

/// The finite numbers of an attribute's value, separated by white space.
pub(crate) fn numbers(attr: &Attr) -> Result<Vec<f64>, Error> {
    attr.value
        .split_whitespace()
        .map(|word| match word.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(Diagnostic::error(
                attr.at.clone(),
                format!("`{}`: `{word}` is not a finite number", attr.name),
            )),
        })
        .collect()
}
