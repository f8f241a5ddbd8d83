//! Flow collections whose continuation lines are indented less than YAML 1.2 allows.
//!
//! In block context a flow collection (`[ … ]`, `{ … }`) that spans lines must indent its
//! continuation lines at least one column more than the block it belongs to (YAML 1.2
//! §7.1, `s-separate(n+1, …)` in `ns-flow-node`). libyaml, which Choreonoid reads YAML with, does
//! not check indentation inside flow collections, and Choreonoid's own files rely on it
//! (`share/model/RIC30/RIC30.body` writes a top-level `standardPose: [` list at column 1).
//!
//! When the strict parse fails with "invalid indentation", [`relax`] indents such lines just
//! enough and the text is parsed again; the reader then moves locations on those lines back to
//! the columns as written and warns once per collection.

/// The text with under-indented flow continuation lines indented, and for each line (0-based)
/// how many spaces were added; `None` when no line needed it.
pub(crate) struct Relaxed {
    pub text: String,
    /// Spaces added at the start of each line (0 for most).
    pub added: Vec<usize>,
    /// 1-based line of the first moved line of each collection that had some.
    pub first_lines: Vec<usize>,
}

/// Where a line's flow collection started: its depth before the line and the indentation of the
/// block line that opened the outermost collection.
#[derive(Default)]
struct Scan {
    depth: usize,
    /// Indentation of the line where the outermost open collection started.
    opened_at_indent: usize,
    in_single: bool,
    in_double: bool,
}

impl Scan {
    /// Walk one line, updating the depth (quotes and comments skip brackets).
    fn line(&mut self, line: &str, indent: usize) {
        let mut previous = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if self.in_single {
                if c == '\'' {
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                    } else {
                        self.in_single = false;
                    }
                }
            } else if self.in_double {
                if c == '\\' {
                    chars.next();
                } else if c == '"' {
                    self.in_double = false;
                }
            } else {
                match c {
                    '#' if previous.is_whitespace() => break,
                    '\'' if !previous.is_alphanumeric() => self.in_single = true,
                    '"' if !previous.is_alphanumeric() => self.in_double = true,
                    '[' | '{' => {
                        if self.depth == 0 {
                            self.opened_at_indent = indent;
                        }
                        self.depth += 1;
                    }
                    ']' | '}' => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
            }
            previous = c;
        }
    }
}

/// See the module docs.
pub(crate) fn relax(text: &str) -> Option<Relaxed> {
    let mut scan = Scan::default();
    let mut out = String::with_capacity(text.len() + 64);
    let mut added = Vec::new();
    let mut first_lines = Vec::new();
    let mut moved_in_this_collection = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let blank = line.trim().is_empty() || line.trim_start().starts_with('#');
        let mut add = 0;
        if scan.depth > 0 && !scan.in_single && !scan.in_double && !blank {
            let required = scan.opened_at_indent + 1;
            if indent < required {
                add = required - indent;
                if !moved_in_this_collection {
                    first_lines.push(i + 1);
                    moved_in_this_collection = true;
                }
            }
        }
        if scan.depth == 0 {
            moved_in_this_collection = false;
        }
        out.extend(std::iter::repeat_n(' ', add));
        out.push_str(line);
        added.push(add);
        scan.line(line, indent);
        if scan.depth == 0 {
            moved_in_this_collection = false;
        }
    }
    (!first_lines.is_empty()).then_some(Relaxed {
        text: out,
        added,
        first_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_lines_move_one_column_past_their_block() {
        let text = "a: 1\npose: [\n0, 1,\n 2,\n3 ]\nb: [x,\n   y]\n";
        let relaxed = relax(text).expect("lines to move");
        assert_eq!(relaxed.text, "a: 1\npose: [\n 0, 1,\n 2,\n 3 ]\nb: [x,\n   y]\n");
        assert_eq!(relaxed.added, [0, 0, 1, 0, 1, 0, 0]);
        assert_eq!(relaxed.first_lines, [3]);
    }

    #[test]
    fn brackets_in_quotes_and_comments_do_not_open_collections() {
        let text = "a: \"[\" # [\nb: '[''x'\nc:\n  - [1,\n  2]\n";
        let relaxed = relax(text).expect("the list under c");
        assert_eq!(relaxed.added, [0, 0, 0, 0, 1]);
        assert!(relax("a: \"[\"\nb: 1\n").is_none());
    }
}
