//! Arithmetic expressions in project files: numbers a project writes as formulas of its parameters
//! (`translation: [0, 0, drop_height]`, `expected: "speed^2 / (2 * friction(Ground, Slider) * g)"`).
//!
//! Grammar (precedence low → high, `^` right-associative):
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := '-' unary | power
//! power   := atom ('^' unary)?
//! atom    := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
//! ```
//! Functions: `sqrt abs sin cos tan asin acos atan atan2 exp ln log10 min max deg rad`, plus
//! `friction(A, B)`, `static_friction(A, B)`, `dynamic_friction(A, B)` and `restitution(A, B)`,
//! which read the merged material table for materials `A` and `B`. Angles are radians; `deg(x)`
//! converts radians to degrees and `rad(x)` degrees to radians.

use std::fmt;

/// Names an expression can refer to.
pub trait ExprContext {
    /// The value of a variable (a parameter or a constant).
    fn variable(&self, name: &str) -> Option<f64>;
    /// Known variable names, for "did you mean".
    fn variable_names(&self) -> Vec<String>;
    /// A contact-material property (`friction`, `static_friction`, `dynamic_friction`,
    /// `restitution`) of a material pair.
    fn material_property(&self, property: &str, a: &str, b: &str) -> Result<f64, String>;
}

/// A parse or evaluation error at a character offset of the expression text.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Number(f64),
    Name(String, usize),
    Neg(Box<Expr>),
    Binary(char, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>, usize),
}

const MATERIAL_FUNCTIONS: [&str; 4] = ["friction", "static_friction", "dynamic_friction", "restitution"];
const FUNCTIONS: [&str; 15] = [
    "sqrt", "abs", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "ln", "log10", "min", "max", "deg",
];

/// Parse and evaluate `text`.
pub fn evaluate(text: &str, ctx: &dyn ExprContext) -> Result<f64, ExprError> {
    let expr = Parser::new(text).parse()?;
    let value = eval(&expr, ctx)?;
    if value.is_nan() {
        return Err(ExprError {
            offset: 0,
            message: format!("`{text}` evaluates to NaN"),
        });
    }
    Ok(value)
}

/// Whether `text` looks like an expression rather than plain text (for fields that take either).
pub fn names_in(text: &str) -> Vec<String> {
    match Parser::new(text).parse() {
        Ok(expr) => {
            let mut out = Vec::new();
            collect_names(&expr, &mut out);
            out
        }
        Err(_) => Vec::new(),
    }
}

fn collect_names(expr: &Expr, out: &mut Vec<String>) {
    match expr {
        Expr::Number(_) => {}
        Expr::Name(n, _) => out.push(n.clone()),
        Expr::Neg(e) => collect_names(e, out),
        Expr::Binary(_, a, b) => {
            collect_names(a, out);
            collect_names(b, out);
        }
        Expr::Call(name, args, _) => {
            if !MATERIAL_FUNCTIONS.contains(&name.as_str()) {
                args.iter().for_each(|a| collect_names(a, out));
            }
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser { text, pos: 0 }
    }

    fn error<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, ExprError> {
        Err(ExprError {
            offset,
            message: message.into(),
        })
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn parse(mut self) -> Result<Expr, ExprError> {
        let expr = self.expr()?;
        self.skip_spaces();
        if let Some(c) = self.peek() {
            return self.error(self.pos, format!("unexpected `{c}` in expression `{}`", self.text));
        }
        Ok(expr)
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.term()?;
        loop {
            if self.eat('+') {
                left = Expr::Binary('+', Box::new(left), Box::new(self.term()?));
            } else if self.eat('-') {
                left = Expr::Binary('-', Box::new(left), Box::new(self.term()?));
            } else {
                return Ok(left);
            }
        }
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut left = self.unary()?;
        loop {
            if self.eat('*') {
                left = Expr::Binary('*', Box::new(left), Box::new(self.unary()?));
            } else if self.eat('/') {
                left = Expr::Binary('/', Box::new(left), Box::new(self.unary()?));
            } else {
                return Ok(left);
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.eat('-') {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.eat('+') {
            return self.unary();
        }
        self.power()
    }

    fn power(&mut self) -> Result<Expr, ExprError> {
        let base = self.atom()?;
        if self.eat('^') {
            return Ok(Expr::Binary('^', Box::new(base), Box::new(self.unary()?)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, ExprError> {
        self.skip_spaces();
        let start = self.pos;
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let inner = self.expr()?;
                if !self.eat(')') {
                    return self.error(self.pos, format!("expected `)` in expression `{}`", self.text));
                }
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(start),
            Some(c) if c.is_alphabetic() || c == '_' => {
                while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    self.pos += self.peek().map_or(1, char::len_utf8);
                }
                let name = self.text[start..self.pos].to_string();
                if self.eat('(') {
                    let mut args = vec![self.expr()?];
                    while self.eat(',') {
                        args.push(self.expr()?);
                    }
                    if !self.eat(')') {
                        return self.error(self.pos, format!("expected `)` after the arguments of `{name}`"));
                    }
                    Ok(Expr::Call(name, args, start))
                } else {
                    Ok(Expr::Name(name, start))
                }
            }
            Some(c) => self.error(start, format!("unexpected `{c}` in expression `{}`", self.text)),
            None => self.error(start, format!("expression `{}` ends too early", self.text)),
        }
    }

    fn number(&mut self, start: usize) -> Result<Expr, ExprError> {
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
            self.pos += 1;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.pos += 1;
            }
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        match self.text[start..self.pos].parse::<f64>() {
            Ok(v) => Ok(Expr::Number(v)),
            Err(_) => self.error(start, format!("bad number `{}`", &self.text[start..self.pos])),
        }
    }
}

fn eval(expr: &Expr, ctx: &dyn ExprContext) -> Result<f64, ExprError> {
    match expr {
        Expr::Number(v) => Ok(*v),
        Expr::Name(name, offset) => ctx.variable(name).ok_or_else(|| {
            let names = ctx.variable_names();
            let hint = tribo_yaml::did_you_mean(name, names.iter().map(String::as_str));
            ExprError {
                offset: *offset,
                message: format!("unknown parameter `{name}`{hint}"),
            }
        }),
        Expr::Neg(e) => Ok(-eval(e, ctx)?),
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval(a, ctx)?, eval(b, ctx)?);
            Ok(match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                '/' => a / b,
                _ => a.powf(b),
            })
        }
        Expr::Call(name, args, offset) => call(name, args, *offset, ctx),
    }
}

fn call(name: &str, args: &[Expr], offset: usize, ctx: &dyn ExprContext) -> Result<f64, ExprError> {
    let fail = |message: String| ExprError { offset, message };
    if MATERIAL_FUNCTIONS.contains(&name) {
        let names: Vec<&str> = args
            .iter()
            .filter_map(|a| match a {
                Expr::Name(n, _) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        if names.len() != 2 || args.len() != 2 {
            return Err(fail(format!(
                "`{name}` takes two material names, e.g. `{name}(Ground, Ball)`"
            )));
        }
        return ctx.material_property(name, names[0], names[1]).map_err(fail);
    }
    let values = args.iter().map(|a| eval(a, ctx)).collect::<Result<Vec<_>, _>>()?;
    let arity = |n: usize| {
        if values.len() == n {
            Ok(())
        } else {
            Err(fail(format!("`{name}` takes {n} argument(s), found {}", values.len())))
        }
    };
    let one = |f: fn(f64) -> f64| -> Result<f64, ExprError> {
        arity(1)?;
        Ok(f(values[0]))
    };
    match name {
        "sqrt" => one(f64::sqrt),
        "abs" => one(f64::abs),
        "sin" => one(f64::sin),
        "cos" => one(f64::cos),
        "tan" => one(f64::tan),
        "asin" => one(f64::asin),
        "acos" => one(f64::acos),
        "atan" => one(f64::atan),
        "exp" => one(f64::exp),
        "ln" => one(f64::ln),
        "log10" => one(f64::log10),
        "deg" => one(f64::to_degrees),
        "rad" => one(f64::to_radians),
        "atan2" => {
            arity(2)?;
            Ok(values[0].atan2(values[1]))
        }
        "min" | "max" if !values.is_empty() => {
            let init = values[0];
            Ok(values[1..]
                .iter()
                .fold(init, |m, &v| if name == "min" { m.min(v) } else { m.max(v) }))
        }
        _ => {
            let known = FUNCTIONS
                .iter()
                .chain(MATERIAL_FUNCTIONS.iter())
                .chain(["rad"].iter())
                .copied();
            let hint = tribo_yaml::did_you_mean(name, known);
            Err(fail(format!("unknown function `{name}`{hint}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ctx;
    impl ExprContext for Ctx {
        fn variable(&self, name: &str) -> Option<f64> {
            match name {
                "g" => Some(9.81),
                "speed" => Some(2.0),
                "pi" => Some(std::f64::consts::PI),
                _ => None,
            }
        }
        fn variable_names(&self) -> Vec<String> {
            vec!["g".into(), "speed".into(), "pi".into()]
        }
        fn material_property(&self, property: &str, a: &str, b: &str) -> Result<f64, String> {
            match (property, a, b) {
                ("friction", "Ground", "Box") => Ok(0.5),
                ("restitution", "Ground", "Ball") => Ok(0.8),
                _ => Err(format!("no {property} for {a}/{b}")),
            }
        }
    }

    fn ev(text: &str) -> Result<f64, ExprError> {
        evaluate(text, &Ctx)
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(ev("1 + 2 * 3").ok(), Some(7.0));
        assert_eq!(ev("-2^2").ok(), Some(-4.0));
        assert_eq!(ev("2^3^2").ok(), Some(512.0));
        assert_eq!(ev("(1 + 2) * 3").ok(), Some(9.0));
        assert_eq!(ev("1e-3 * 2").ok(), Some(0.002));
        assert_eq!(ev("max(1, 5, 3) - min(4, 2)").ok(), Some(3.0));
    }

    #[test]
    fn parameters_functions_and_materials() {
        let stop = ev("speed^2 / (2 * friction(Ground, Box) * g)").expect("eval");
        assert!((stop - 4.0 / (2.0 * 0.5 * 9.81)).abs() < 1e-15);
        assert!((ev("restitution(Ground, Ball)^2").expect("eval") - 0.64).abs() < 1e-15);
        assert!((ev("deg(atan(0.5))").expect("eval") - 26.565_051_177_077_99).abs() < 1e-12);
        assert!((ev("sin(rad(30))").expect("eval") - 0.5).abs() < 1e-15);
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(
            ev("sped * 2").expect_err("unknown").message,
            "unknown parameter `sped` (did you mean `speed`?)"
        );
        assert_eq!(
            ev("sqr(2)").expect_err("unknown").message,
            "unknown function `sqr` (did you mean `sqrt`?)"
        );
        assert!(ev("1 +").is_err());
        assert!(ev("(1 + 2").is_err());
        assert!(ev("1 2").is_err());
        assert!(ev("friction(Ground)").is_err());
        assert!(ev("sqrt(-1)").is_err(), "NaN is an error");
    }
}
