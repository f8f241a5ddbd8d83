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
//!
//! Text rules:
//! - Any Unicode whitespace separates tokens, not only ASCII spaces: an ideographic space (U+3000,
//!   what a Japanese input method types) or a no-break space is read as a space.
//! - Other characters that are not part of the grammar are errors naming the character and its
//!   code point; look-alikes of the operators (`×`, `÷`, `−`, full-width forms such as `＋`) get
//!   a "did you mean".
//! - Numbers and results must be finite: `1e400` is "expected a finite number, found `1e400`",
//!   and a formula that evaluates to ±∞ or NaN (`1/0`, `sqrt(-1)`) is an error.
//! - Nesting is limited to [`MAX_DEPTH`] levels (parentheses, signs, calls and chained operators
//!   each count one), so hostile input cannot exhaust the stack.
//! - Error offsets ([`ExprError::offset`]) count characters, not bytes, like the columns of
//!   `tribo_yaml::Location`.

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
    /// Why a known `name` has no number (a parameter whose value is a word), for the message;
    /// `None` when the name is simply unknown.
    fn not_a_number(&self, _name: &str) -> Option<String> {
        None
    }
}

/// How deep an expression may nest: parentheses, unary signs, function calls and chained
/// binary operators each count one level. Formulas in project files need a handful.
pub const MAX_DEPTH: usize = 128;

/// A parse or evaluation error at a character offset of the expression text.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    /// 0-based, in characters (not bytes) from the start of the text.
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
    if !value.is_finite() {
        let what = if value.is_nan() { "NaN" } else { "infinity" };
        return Err(ExprError {
            offset: 0,
            message: format!("`{}` evaluates to {what}; a value must be a finite number", shown(text)),
        });
    }
    Ok(value)
}

/// The expression as quoted in messages: long texts are cut after 40 characters.
fn shown(text: &str) -> String {
    tribo_yaml::abbreviate(text)
}

/// `c` for a message: the character itself, plus its code point when it is not plain ASCII, plus
/// the operator it looks like.
fn describe_char(c: char) -> String {
    let code = if c.is_ascii_graphic() {
        format!("`{c}`")
    } else if c.is_control() || c.is_whitespace() {
        format!("character U+{:04X}", u32::from(c))
    } else {
        format!("`{c}` (U+{:04X})", u32::from(c))
    };
    match look_alike(c) {
        Some(ascii) => format!("{code} (did you mean `{ascii}`?)"),
        None => code,
    }
}

/// The ASCII character a non-ASCII operator or digit stands for.
fn look_alike(c: char) -> Option<char> {
    match c {
        '×' | '·' | '∙' | '⋅' => Some('*'),
        '÷' | '∕' => Some('/'),
        '−' | '–' | '—' | '‐' => Some('-'),
        // Full-width forms of ASCII (U+FF01..U+FF5E, as a Japanese input method types them).
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFF01 + 0x21),
        _ => None,
    }
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

/// A parsed subtree and its height (the evaluator recurses that deep).
struct Tree {
    expr: Expr,
    height: usize,
}

impl Tree {
    fn leaf(expr: Expr) -> Tree {
        Tree { expr, height: 1 }
    }
}

struct Parser<'a> {
    text: &'a str,
    /// Byte position in `text` (always at a character boundary).
    pos: usize,
    /// How many `unary` levels are open (every recursion of the grammar passes through it).
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser { text, pos: 0, depth: 0 }
    }

    /// Characters before byte position `at`.
    fn column(&self, at: usize) -> usize {
        self.text.get(..at).map_or(0, |head| head.chars().count())
    }

    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, ExprError> {
        Err(ExprError {
            offset: self.column(at),
            message: message.into(),
        })
    }

    fn too_deep<T>(&self, at: usize) -> Result<T, ExprError> {
        self.error(
            at,
            format!(
                "expression `{}` is nested too deeply (at most {MAX_DEPTH} levels of parentheses, signs, \
                 function calls and chained operators)",
                shown(self.text)
            ),
        )
    }

    /// A node over `children`, one level higher than the highest of them.
    fn node(&self, expr: Expr, children: &[usize], at: usize) -> Result<Tree, ExprError> {
        let height = 1 + children.iter().copied().max().unwrap_or(0);
        if height > MAX_DEPTH {
            return self.too_deep(at);
        }
        Ok(Tree { expr, height })
    }

    fn binary(&self, op: char, a: Tree, b: Tree, at: usize) -> Result<Tree, ExprError> {
        self.node(
            Expr::Binary(op, Box::new(a.expr), Box::new(b.expr)),
            &[a.height, b.height],
            at,
        )
    }

    /// Skip whitespace, ASCII or not (U+3000 IDEOGRAPHIC SPACE, U+00A0 NO-BREAK SPACE, …).
    fn skip_spaces(&mut self) {
        while let Some(c) = self.peek().filter(|c| c.is_whitespace()) {
            self.pos += c.len_utf8();
        }
    }

    fn peek(&self) -> Option<char> {
        self.text.get(self.pos..).and_then(|rest| rest.chars().next())
    }

    /// Step over `c`, which [`peek`](Self::peek) returned.
    fn advance(&mut self, c: char) {
        self.pos += c.len_utf8();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        if self.peek() == Some(c) {
            self.advance(c);
            true
        } else {
            false
        }
    }

    fn parse(mut self) -> Result<Expr, ExprError> {
        let tree = self.expr()?;
        self.skip_spaces();
        if let Some(c) = self.peek() {
            return self.error(
                self.pos,
                format!("unexpected {} in expression `{}`", describe_char(c), shown(self.text)),
            );
        }
        Ok(tree.expr)
    }

    fn expr(&mut self) -> Result<Tree, ExprError> {
        let mut left = self.term()?;
        loop {
            self.skip_spaces();
            let at = self.pos;
            let op = if self.eat('+') {
                '+'
            } else if self.eat('-') {
                '-'
            } else {
                return Ok(left);
            };
            let right = self.term()?;
            left = self.binary(op, left, right, at)?;
        }
    }

    fn term(&mut self) -> Result<Tree, ExprError> {
        let mut left = self.unary()?;
        loop {
            self.skip_spaces();
            let at = self.pos;
            let op = if self.eat('*') {
                '*'
            } else if self.eat('/') {
                '/'
            } else {
                return Ok(left);
            };
            let right = self.unary()?;
            left = self.binary(op, left, right, at)?;
        }
    }

    /// Every recursion of the grammar passes through here, so the depth is checked here.
    fn unary(&mut self) -> Result<Tree, ExprError> {
        self.skip_spaces();
        if self.depth >= MAX_DEPTH {
            return self.too_deep(self.pos);
        }
        self.depth += 1;
        let result = self.signed();
        self.depth -= 1;
        result
    }

    fn signed(&mut self) -> Result<Tree, ExprError> {
        let at = self.pos;
        if self.eat('-') {
            let inner = self.unary()?;
            return self.node(Expr::Neg(Box::new(inner.expr)), &[inner.height], at);
        }
        if self.eat('+') {
            return self.unary();
        }
        self.power()
    }

    fn power(&mut self) -> Result<Tree, ExprError> {
        let base = self.atom()?;
        self.skip_spaces();
        let at = self.pos;
        if self.eat('^') {
            let exponent = self.unary()?;
            return self.binary('^', base, exponent, at);
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Tree, ExprError> {
        self.skip_spaces();
        let start = self.pos;
        match self.peek() {
            Some('(') => {
                self.advance('(');
                let inner = self.expr()?;
                if !self.eat(')') {
                    return self.error(self.pos, format!("expected `)` in expression `{}`", shown(self.text)));
                }
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(start),
            Some(c) if c.is_alphabetic() || c == '_' => {
                while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
                    self.advance(c);
                }
                let name = self.text[start..self.pos].to_string();
                let column = self.column(start);
                if self.eat('(') {
                    let mut args = vec![self.expr()?];
                    while self.eat(',') {
                        args.push(self.expr()?);
                    }
                    if !self.eat(')') {
                        return self.error(self.pos, format!("expected `)` after the arguments of `{name}`"));
                    }
                    let heights: Vec<usize> = args.iter().map(|a| a.height).collect();
                    let args = args.into_iter().map(|a| a.expr).collect();
                    self.node(Expr::Call(name, args, column), &heights, start)
                } else {
                    Ok(Tree::leaf(Expr::Name(name, column)))
                }
            }
            Some(c) => self.error(
                start,
                format!("unexpected {} in expression `{}`", describe_char(c), shown(self.text)),
            ),
            None => self.error(start, format!("expression `{}` ends too early", shown(self.text))),
        }
    }

    fn number(&mut self, start: usize) -> Result<Tree, ExprError> {
        let digits = |p: &mut Self, also_dot: bool| {
            while p.peek().is_some_and(|c| c.is_ascii_digit() || (also_dot && c == '.')) {
                p.pos += 1;
            }
        };
        digits(self, true);
        if matches!(self.peek(), Some('e' | 'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.pos += 1;
            }
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                digits(self, false);
            } else {
                self.pos = save;
            }
        }
        let literal = &self.text[start..self.pos];
        match literal.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Tree::leaf(Expr::Number(v))),
            Ok(_) => self.error(start, format!("expected a finite number, found `{}`", shown(literal))),
            Err(_) => self.error(start, format!("expected a number, found `{}`", shown(literal))),
        }
    }
}

fn eval(expr: &Expr, ctx: &dyn ExprContext) -> Result<f64, ExprError> {
    match expr {
        Expr::Number(v) => Ok(*v),
        Expr::Name(name, offset) => ctx.variable(name).ok_or_else(|| {
            if let Some(message) = ctx.not_a_number(name) {
                return ExprError {
                    offset: *offset,
                    message,
                };
            }
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

    #[test]
    fn unicode_whitespace_separates_tokens() {
        // U+3000 IDEOGRAPHIC SPACE (a Japanese input method's space), U+00A0 NO-BREAK SPACE, a tab.
        assert_eq!(ev("speed\u{3000}+ 1").ok(), Some(3.0));
        assert_eq!(ev("\u{3000}speed\u{a0}*\t2\u{3000}").ok(), Some(4.0));
        assert_eq!(ev("(\u{3000}1\u{3000})\u{3000}").ok(), Some(1.0));
    }

    #[test]
    fn error_offsets_count_characters_not_bytes() {
        // `sped` is the 9th character but starts at byte 10 (U+3000 is three bytes).
        let err = ev("speed\u{3000}+ sped").expect_err("unknown");
        assert_eq!(err.offset, 8);
        let err = ev("é + (1").expect_err("unclosed");
        assert_eq!(err.offset, 6);
        assert_eq!(err.message, "expected `)` in expression `é + (1`");
    }

    #[test]
    fn stray_characters_are_named() {
        let err = ev("2 × 3").expect_err("times sign");
        assert_eq!(err.offset, 2);
        assert_eq!(
            err.message,
            "unexpected `×` (U+00D7) (did you mean `*`?) in expression `2 × 3`"
        );
        assert_eq!(
            ev("1 ＋ 2").expect_err("full-width plus").message,
            "unexpected `＋` (U+FF0B) (did you mean `+`?) in expression `1 ＋ 2`"
        );
        assert_eq!(
            ev("1\u{0}").expect_err("NUL").message,
            "unexpected character U+0000 in expression `1\u{0}`"
        );
        assert_eq!(ev("#").expect_err("hash").message, "unexpected `#` in expression `#`");
    }

    #[test]
    fn numbers_and_results_must_be_finite() {
        let err = ev("2 * 1e400").expect_err("overflow");
        assert_eq!(
            (err.offset, err.message.as_str()),
            (4, "expected a finite number, found `1e400`")
        );
        assert_eq!(
            ev("1.2.3").expect_err("two dots").message,
            "expected a number, found `1.2.3`"
        );
        assert_eq!(
            ev("1 / 0").expect_err("infinite").message,
            "`1 / 0` evaluates to infinity; a value must be a finite number"
        );
        assert_eq!(ev("1 / 10^400").ok(), Some(0.0), "a finite result of an infinite part");
    }

    #[test]
    fn nesting_is_limited_without_exhausting_the_stack() {
        let ok = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert_eq!(ev(&ok).ok(), Some(1.0));
        let hostile = [
            format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000)),
            "(".repeat(100_000),
            format!("{}1", "-".repeat(100_000)),
            format!("{}1", "+".repeat(100_000)),
            format!("1{}", "+1".repeat(100_000)),
            format!("{}2", "2^".repeat(100_000)),
            format!("{}1{}", "sqrt(".repeat(100_000), ")".repeat(100_000)),
        ];
        for text in &hostile {
            let err = ev(text).expect_err("too deep");
            assert!(err.message.contains("nested too deeply"), "{}", err.message);
            assert!(err.message.len() < 200, "the text is abbreviated: {}", err.message);
        }
        // The limit counts tree height: a chain of MAX_DEPTH - 1 additions is fine.
        let chain = format!("1{}", "+1".repeat(MAX_DEPTH - 1));
        assert_eq!(ev(&chain).ok(), Some(MAX_DEPTH as f64));
    }
}
