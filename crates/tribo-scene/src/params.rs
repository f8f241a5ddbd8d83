//! Named project parameters with defaults that a command line can override (`--set NAME=VALUE`).

use std::collections::BTreeMap;

use tribo_yaml::{closest, Diagnostic, Fields, Location, Node, Value};

/// A parameter value: a number (SI unless the name says otherwise, like `angle_deg`) or a word
/// (`pad: flat`).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Number(f64),
    Text(String),
}

impl ParamValue {
    /// A command-line value: a number if it parses as one, else text.
    pub fn parse(text: &str) -> ParamValue {
        match text.trim().parse::<f64>() {
            Ok(v) if !text.trim().is_empty() => ParamValue::Number(v),
            _ => ParamValue::Text(text.trim().to_string()),
        }
    }

    pub fn as_number(&self) -> Option<f64> {
        match self {
            ParamValue::Number(v) => Some(*v),
            ParamValue::Text(_) => None,
        }
    }

    /// As it would be written in a file name or a table.
    pub fn display(&self) -> String {
        match self {
            ParamValue::Number(v) => format!("{v}"),
            ParamValue::Text(t) => t.clone(),
        }
    }
}

/// One declared parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub default: ParamValue,
    /// The value in force (the default unless overridden).
    pub value: ParamValue,
    /// Allowed words for a text parameter (empty: any).
    pub choices: Vec<String>,
    pub doc: String,
    pub location: Location,
}

/// The project's parameters in declaration order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parameters {
    pub list: Vec<Parameter>,
}

impl Parameters {
    /// Read `parameters:`: each entry is `name: default` or
    /// `name: {default: V, choices: [..], doc: "..."}`.
    pub fn read(node: Option<&Node>) -> Result<Parameters, Diagnostic> {
        let mut list = Vec::new();
        let Some(node) = node.filter(|n| !n.is_null()) else {
            return Ok(Parameters { list });
        };
        for entry in &node.as_map()?.entries {
            let (default, choices, doc) = match &entry.value.value {
                Value::Map(_) => {
                    let f = Fields::new(&entry.value, "a parameter")?;
                    let default = scalar_value(f.required(&["default"])?)?;
                    let choices = match f.get_value(&["choices"]) {
                        Some(n) => n.as_name_list()?.into_iter().map(str::to_string).collect(),
                        None => Vec::new(),
                    };
                    let doc = f.str_opt(&["doc"])?.unwrap_or_default().to_string();
                    f.reject_unknown("a parameter", &["default", "choices", "doc"])?;
                    (default, choices, doc)
                }
                _ => (scalar_value(&entry.value)?, Vec::new(), String::new()),
            };
            if let (ParamValue::Text(t), false) = (&default, choices.is_empty()) {
                if !choices.contains(t) {
                    return Err(entry
                        .value
                        .error(format!("default `{t}` is not one of {}", choices.join(", "))));
                }
            }
            list.push(Parameter {
                name: entry.key.clone(),
                value: default.clone(),
                default,
                choices,
                doc,
                location: entry.key_location.clone(),
            });
        }
        Ok(Parameters { list })
    }

    /// Apply `NAME=VALUE` overrides; an unknown name or a value of the wrong kind is an error
    /// naming the closest known parameter or choice.
    pub fn apply_overrides(
        &mut self,
        overrides: &BTreeMap<String, String>,
        origin: &Location,
    ) -> Result<(), Diagnostic> {
        for (name, text) in overrides {
            let names: Vec<&str> = self.list.iter().map(|p| p.name.as_str()).collect();
            let hint = closest(name, names.iter().copied())
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            let known = if names.is_empty() {
                "this project has none".to_string()
            } else {
                names.join(", ")
            };
            let param = self.list.iter_mut().find(|p| &p.name == name).ok_or_else(|| {
                Diagnostic::error(
                    origin.clone(),
                    format!("unknown parameter `{name}`{hint}; known parameters: {known}"),
                )
            })?;
            let value = ParamValue::parse(text);
            match (&param.default, &value) {
                (ParamValue::Number(_), ParamValue::Number(v)) if !v.is_finite() => {
                    return Err(Diagnostic::error(
                        origin.clone(),
                        format!(
                            "parameter `{name}` (--set {name}={}): expected a finite number, found `{}`",
                            text.trim(),
                            text.trim()
                        ),
                    ))
                }
                (ParamValue::Number(_), ParamValue::Text(t)) => {
                    return Err(Diagnostic::error(
                        origin.clone(),
                        format!("parameter `{name}` is a number, found `{t}`"),
                    ))
                }
                (ParamValue::Text(_), _) if !param.choices.is_empty() => {
                    let word = value.display();
                    if !param.choices.contains(&word) {
                        let hint = tribo_yaml::did_you_mean(&word, param.choices.iter().map(String::as_str));
                        return Err(Diagnostic::error(
                            origin.clone(),
                            format!(
                                "parameter `{name}` is one of {}, found `{word}`{hint}",
                                param.choices.join(", ")
                            ),
                        ));
                    }
                    param.value = ParamValue::Text(word);
                }
                (ParamValue::Text(_), _) => param.value = ParamValue::Text(value.display()),
                _ => param.value = value,
            }
        }
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.list.iter().find(|p| p.name == name).map(|p| &p.value)
    }
}

/// A number, else a word. A number that is not finite (`.inf`, `1e400`) is an error rather than
/// the word `.inf`.
fn scalar_value(node: &Node) -> Result<ParamValue, Diagnostic> {
    if let Ok(v) = node.as_f64() {
        return node.as_finite().map(|_| ParamValue::Number(v));
    }
    match &node.value {
        Value::Scalar { text, .. } => Ok(ParamValue::Text(text.clone())),
        _ => Err(node.error(format!(
            "expected a number or a word as a parameter value, found {}",
            node.kind_name()
        ))),
    }
}
