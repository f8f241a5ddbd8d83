//! Warnings as the CLI prints them: identical ones (same message, same file) collapsed into one
//! line with a count and the other lines they were at.

use tribo_yaml::Diagnostic;

/// Other lines listed at most in a collapsed warning.
const LINES_SHOWN: usize = 8;

/// One text per distinct (file, severity, message), in first-occurrence order:
/// `FILE:LINE:COL: warning: MESSAGE (and 149 more like it at lines 12, 15, …)`.
pub fn collapse(diagnostics: &[Diagnostic]) -> Vec<String> {
    let mut groups: Vec<(&Diagnostic, Vec<usize>)> = Vec::new();
    for d in diagnostics {
        let same = |g: &&mut (&Diagnostic, Vec<usize>)| {
            g.0.location.file == d.location.file && g.0.severity == d.severity && g.0.message == d.message
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some((_, lines)) => lines.push(d.location.line),
            None => groups.push((d, Vec::new())),
        }
    }
    groups
        .into_iter()
        .map(|(first, others)| {
            if others.is_empty() {
                return first.to_string();
            }
            let located: Vec<String> = others
                .iter()
                .filter(|&&l| l > 0)
                .take(LINES_SHOWN)
                .map(ToString::to_string)
                .collect();
            let at = if located.is_empty() {
                String::new()
            } else {
                let more = if others.len() > located.len() { ", …" } else { "" };
                let word = if others.len() == 1 { "line" } else { "lines" };
                format!(" at {word} {}{more}", located.join(", "))
            };
            format!("{first} (and {} more like it{at})", others.len())
        })
        .collect()
}

/// Print `diagnostics` collapsed, one per line, on stderr.
pub fn eprint(diagnostics: &[Diagnostic]) {
    for w in collapse(diagnostics) {
        eprintln!("{w}");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tribo_yaml::Location;

    use super::*;

    fn warning(file: &str, line: usize, message: &str) -> Diagnostic {
        Diagnostic::warning(Location::new(&Arc::from(file), line, 3), message)
    }

    #[test]
    fn identical_warnings_in_one_file_become_one_line() {
        let mut all: Vec<Diagnostic> = (0..150)
            .map(|i| warning("a.body", 10 + 3 * i, "unknown key `foo`"))
            .collect();
        all.insert(1, warning("a.body", 11, "something else"));
        all.push(warning("b.body", 4, "unknown key `foo`"));
        let lines = collapse(&all);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert_eq!(
            lines[0],
            "a.body:10:3: warning: unknown key `foo` (and 149 more like it at lines 13, 16, 19, 22, 25, 28, 31, 34, …)"
        );
        assert_eq!(lines[1], "a.body:11:3: warning: something else");
        assert_eq!(lines[2], "b.body:4:3: warning: unknown key `foo`");
    }

    #[test]
    fn two_alike_name_the_other_line() {
        let lines = collapse(&[warning("a.yaml", 2, "m"), warning("a.yaml", 7, "m")]);
        assert_eq!(lines, vec!["a.yaml:2:3: warning: m (and 1 more like it at line 7)"]);
    }
}
