//! Reading the JSON files reports are made from: read whole within the file-size limit,
//! parsed, and checked for the schema version this build reads.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};

/// The text of the JSON file at `path` and its value.
///
/// # Errors
/// [`Error::Load`] when it cannot be read, [`Error::NotJson`] when it is not JSON.
pub(crate) fn read(path: &Path) -> Result<(String, Value)> {
    let text = traces::limits::read_file(path).map_err(|e| Error::Load { cause: e.into() })?;
    let value =
        serde_json::from_str(&text).map_err(|cause| Error::NotJson { path: path.to_owned(), cause })?;
    Ok((text, value))
}

/// Refuses `value`, read from `path`, unless its `schema` is `reads`.
///
/// # Errors
/// [`Error::Schema`].
pub(crate) fn check_schema(path: &Path, value: &Value, reads: u32) -> Result<()> {
    let found = value.get("schema").and_then(Value::as_u64);
    if found == Some(u64::from(reads)) {
        Ok(())
    } else {
        Err(Error::Schema { path: path.to_owned(), found, reads })
    }
}
