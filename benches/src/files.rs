//! Walking the result folders criterion and gungraun leave under `target/`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A folder that cannot be read, named.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", folder.display())]
pub struct ReadDirError {
    /// The folder.
    pub folder: PathBuf,
    /// What the system said.
    pub error: io::Error,
}

/// Every file and folder below `dir` whose name is `name`.
///
/// # Errors
/// A folder that cannot be read, named ([`ReadDirError`]).
pub fn named(dir: &Path, name: &str) -> Result<Vec<PathBuf>, ReadDirError> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(error) => return Err(ReadDirError { folder, error }),
        };
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

/// A result file that cannot be read or is not JSON, named.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// It cannot be read.
    #[error("{}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// It is not JSON.
    #[error("{}: {error}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        error: serde_json::Error,
    },
}

/// Reads `path` whole.
///
/// # Errors
/// [`FileError::Read`].
pub fn read_text(path: &Path) -> Result<String, FileError> {
    fs::read_to_string(path).map_err(|error| FileError::Read { path: path.to_path_buf(), error })
}

/// Reads the JSON file at `path`.
///
/// # Errors
/// [`FileError::Read`] or [`FileError::Json`].
pub fn read_json(path: &Path) -> Result<Value, FileError> {
    serde_json::from_str(&read_text(path)?)
        .map_err(|error| FileError::Json { path: path.to_path_buf(), error })
}
