//! Walking the result folders criterion and gungraun leave under `target/`.

use std::fs;
use std::path::{Path, PathBuf};

/// Every file and folder below `dir` whose name is `name`.
///
/// # Errors
/// A folder that cannot be read, named.
pub fn named(dir: &Path, name: &str) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries = fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        for path in entries.flatten().map(|entry| entry.path()) {
            if path.file_name().is_some_and(|n| n == name) {
                found.push(path.clone());
            }
            if path.is_dir() {
                pending.push(path);
            }
        }
    }
    Ok(found)
}
