//! Rebuild when `share/` changes: `src/share.rs` embeds it with `include_dir!`, which cargo does not
//! track by itself.
fn main() {
    println!("cargo:rerun-if-changed=../../share");
}
