//! Engines by name.

use tribo_yaml::closest;

use crate::EngineFactory;

/// The engines a binary was built with, in registration order.
#[derive(Default)]
pub struct Registry {
    factories: Vec<Box<dyn EngineFactory>>,
}

impl Registry {
    pub fn new() -> Self {
        Registry::default()
    }

    pub fn register(&mut self, factory: Box<dyn EngineFactory>) {
        self.factories.push(factory);
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.factories.iter().map(|f| f.name()).collect()
    }

    pub fn factories(&self) -> impl Iterator<Item = &dyn EngineFactory> {
        self.factories.iter().map(|f| f.as_ref())
    }

    /// The engine called `name`, or an error naming the closest known engine.
    pub fn get(&self, name: &str) -> Result<&dyn EngineFactory, String> {
        self.factories
            .iter()
            .find(|f| f.name() == name)
            .map(|f| f.as_ref())
            .ok_or_else(|| {
                let names = self.names();
                let hint = match closest(name, names.iter().copied()) {
                    Some(c) => format!(" (did you mean `{c}`?)"),
                    None => String::new(),
                };
                format!("unknown engine `{name}`{hint}; known engines: {}", names.join(", "))
            })
    }
}
