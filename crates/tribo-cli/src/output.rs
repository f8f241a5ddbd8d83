//! Standard output for everything `tribo` prints as its result. A reader that stops early
//! (`tribo check X | head`) closes the pipe: that ends the command quietly with status 0, as the
//! usual Unix tools do, instead of a panic from `println!`.

use std::io::Write;

/// Writes formatted text to standard output (see the module docs for a closed pipe).
pub fn write_stdout(text: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("tribo: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// `println!` through [`write_stdout`].
macro_rules! outln {
    () => {
        $crate::output::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_stdout(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};
