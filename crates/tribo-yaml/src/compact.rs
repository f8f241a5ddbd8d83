//! Block sequences of scalars written as flow sequences, for YAML that people read and edit.
//!
//! serde_yaml writes every sequence one item per line, so a 3-vector takes four lines and an
//! inertia ten. [`flow_scalar_lists`] rewrites each block sequence whose items are all simple
//! scalars (numbers, words, formulas such as `rad(-2.1)`, quoted text) as `key: [a, b, c]`, wrapped at about 100 columns with
//! continuation lines indented under the key. Only what is certainly the same YAML is rewritten:
//! a sequence with any item that is not such a scalar (a mapping, a nested list, text with a flow
//! indicator or a space in it unquoted) is left as it is.

const WIDTH: usize = 100;

/// `yaml` (as serde_yaml writes it) with its block sequences of simple scalars in flow style.
pub fn flow_scalar_lists(yaml: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut out = String::with_capacity(yaml.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(column) = key_column(line) {
            let prefix = format!("{}- ", " ".repeat(column));
            let mut items = Vec::new();
            let mut j = i + 1;
            while let Some(item) = lines.get(j).and_then(|l| l.strip_prefix(&prefix)) {
                items.push(item);
                j += 1;
            }
            let deeper = lines
                .get(j)
                .is_some_and(|l| l.len() - l.trim_start().len() > column && !l.trim().is_empty());
            if !items.is_empty() && !deeper && items.iter().all(|s| is_simple_scalar(s)) {
                push_flow(&mut out, line, column, &items);
                i = j;
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
        i += 1;
    }
    out
}

/// The column of the key of a line `KEY:` that opens a block value (after any `- ` item marks).
fn key_column(line: &str) -> Option<usize> {
    let body = line.strip_suffix(':')?;
    let mut column = body.len() - body.trim_start().len();
    let mut rest = body.trim_start();
    while let Some(after) = rest.strip_prefix("- ") {
        rest = after;
        column += 2;
    }
    let key_ok = !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    key_ok.then_some(column)
}

/// A number, a word, or quoted text without line breaks: the same value in a flow sequence.
fn is_simple_scalar(s: &str) -> bool {
    if s.len() >= 2 && s.starts_with('\'') && s.ends_with('\'') {
        return !s[1..s.len() - 1].replace("''", "").contains('\'');
    }
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        let inner = &s[1..s.len() - 1];
        return !inner.replace("\\\\", "").replace("\\\"", "").contains('"');
    }
    !s.is_empty()
        && s != "-"
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-' | '(' | ')'))
}

/// `KEY: [a, b, …]`, wrapped with continuation lines two columns under the key.
fn push_flow(out: &mut String, key_line: &str, column: usize, items: &[&str]) {
    let mut line = format!("{key_line} [");
    let indent = " ".repeat(column + 2);
    for (k, item) in items.iter().enumerate() {
        let piece = if k + 1 == items.len() {
            format!("{item}]")
        } else {
            format!("{item},")
        };
        if k > 0 {
            if line.len() + 1 + piece.len() > WIDTH {
                out.push_str(&line);
                out.push('\n');
                line = format!("{indent}{piece}");
                continue;
            }
            line.push(' ');
        }
        line.push_str(&piece);
    }
    out.push_str(&line);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_lists_become_flow_and_read_the_same() {
        let text = "name: x\nsize:\n- 0.1\n- -2.0\n- 1e-5\nlinks:\n- name: a\n  axis:\n  - unlimited\n  - .inf\n  \
                    elements:\n  - type: Shape\n    faces:\n    - 0\n    - 1\n- name: b\n  pats:\n  - '*_R'\n  - \"a, b\"\n";
        let compact = flow_scalar_lists(text);
        assert_eq!(
            compact,
            "name: x\nsize: [0.1, -2.0, 1e-5]\nlinks:\n- name: a\n  axis: [unlimited, .inf]\n  elements:\n  \
             - type: Shape\n    faces: [0, 1]\n- name: b\n  pats: ['*_R', \"a, b\"]\n"
        );
        let a = crate::parse_str(text, "a.yaml").expect("yaml");
        let b = crate::parse_str(&compact, "b.yaml").expect("yaml");
        assert_eq!(format!("{:?}", strip(&a)), format!("{:?}", strip(&b)));
    }

    #[test]
    fn lists_of_mappings_or_odd_text_stay_as_they_are() {
        for text in [
            "a:\n- b: 1\n",
            "a:\n- x\n- {y}\n",
            "a:\n- -\n",
            "a:\n- - 1\n  - 2\n",
            "a:\n- 'it''s'\n- 'x'\n",
        ] {
            let out = flow_scalar_lists(text);
            let a = crate::parse_str(text, "a.yaml").expect("yaml");
            let b = crate::parse_str(&out, "b.yaml").expect("yaml");
            assert_eq!(format!("{:?}", strip(&a)), format!("{:?}", strip(&b)), "{text} → {out}");
        }
        assert_eq!(flow_scalar_lists("a:\n- b: 1\n"), "a:\n- b: 1\n");
    }

    #[test]
    fn long_lists_wrap_under_their_key() {
        let items: Vec<String> = (0..60).map(|i| format!("- {}.5", i)).collect();
        let text = format!("geometry:\n  vertices:\n  {}\n", items.join("\n  "));
        let out = flow_scalar_lists(&text);
        assert!(out.lines().all(|l| l.len() <= WIDTH), "{out}");
        assert!(out.lines().skip(2).all(|l| l.starts_with("    ")), "{out}");
        let a = crate::parse_str(&text, "a.yaml").expect("yaml");
        let b = crate::parse_str(&out, "b.yaml").expect("yaml");
        assert_eq!(format!("{:?}", strip(&a)), format!("{:?}", strip(&b)));
    }

    /// The values of a tree, without locations.
    fn strip(node: &crate::Node) -> String {
        match &node.value {
            crate::Value::Scalar { text, quoted } => format!("{text}{}", if *quoted { "'" } else { "" }),
            crate::Value::Seq(items) => format!("[{}]", items.iter().map(strip).collect::<Vec<_>>().join(",")),
            crate::Value::Map(m) => format!(
                "{{{}}}",
                m.entries
                    .iter()
                    .map(|e| format!("{}:{}", e.key, strip(&e.value)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            other => format!("{other:?}"),
        }
    }
}
