//! A report's content as blocks, rendered once as Markdown and once as HTML, so the two
//! files always say the same thing.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// One block of a report.
pub enum Block {
    /// A heading of level 1 to 3.
    Heading(u8, String),
    /// A paragraph (plain text; backticks mark code).
    Para(String),
    /// A table: header cells, then rows.
    Table(Vec<String>, Vec<Vec<String>>),
    /// An SVG plot next to the page, with its caption.
    Figure { file: String, caption: String },
    /// A command to run.
    Code(String),
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Plain text with `code` spans, as HTML.
fn inline(text: &str) -> String {
    escape(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { format!("<code>{part}</code>") } else { part.to_owned() })
        .collect()
}

/// The blocks as Markdown.
pub fn markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for block in blocks {
        match block {
            Block::Heading(level, text) => {
                let _ = writeln!(out, "{} {text}\n", "#".repeat(usize::from(*level)));
            }
            Block::Para(text) => {
                let _ = writeln!(out, "{text}\n");
            }
            Block::Table(header, rows) => {
                let _ = writeln!(out, "| {} |", header.join(" | "));
                let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
                for row in rows {
                    let _ = writeln!(out, "| {} |", row.join(" | "));
                }
                out.push('\n');
            }
            Block::Figure { file, caption } => {
                let _ = writeln!(out, "![{caption}]({file})\n\n{caption}\n");
            }
            Block::Code(text) => {
                let _ = writeln!(out, "```sh\n{text}\n```\n");
            }
        }
    }
    out
}

/// The blocks as a standalone HTML page. A script at the end writes into
/// `#render-check` whether every plot loaded, which the Chromium check reads.
pub fn html(title: &str, blocks: &[Block]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
         <style>body{{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.45}}\
         table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #bbb;padding:.25em .6em;text-align:right}}\
         th{{background:#f2f2f2}}td:first-child,th:first-child{{text-align:left}}figure{{margin:1.5em 0}}\
         pre{{background:#f6f6f6;padding:.6em;overflow-x:auto}}code{{background:#f6f6f6}}</style>\n</head>\n<body>\n",
        escape(title)
    );
    for block in blocks {
        match block {
            Block::Heading(level, text) => {
                let _ = writeln!(out, "<h{level}>{}</h{level}>", inline(text));
            }
            Block::Para(text) => {
                let _ = writeln!(out, "<p>{}</p>", inline(text));
            }
            Block::Table(header, rows) => {
                out.push_str("<table>\n<tr>");
                for cell in header {
                    let _ = write!(out, "<th>{}</th>", inline(cell));
                }
                out.push_str("</tr>\n");
                for row in rows {
                    out.push_str("<tr>");
                    for cell in row {
                        let _ = write!(out, "<td>{}</td>", inline(cell));
                    }
                    out.push_str("</tr>\n");
                }
                out.push_str("</table>\n");
            }
            Block::Figure { file, caption } => {
                let _ = writeln!(
                    out,
                    "<figure><img src=\"{}\" alt=\"{}\"><figcaption>{}</figcaption></figure>",
                    escape(file),
                    escape(caption),
                    inline(caption)
                );
            }
            Block::Code(text) => {
                let _ = writeln!(out, "<pre><code>{}</code></pre>", escape(text));
            }
        }
    }
    out.push_str(
        "<p id=\"render-check\">plots not checked</p>\n<script>\nwindow.addEventListener('load', () => {\n  \
         const images = [...document.querySelectorAll('figure img')];\n  \
         const bad = images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));\n  \
         document.getElementById('render-check').textContent = bad.length\n    \
         ? 'plots failed to render: ' + bad.join(' ')\n    : 'all ' + images.length + ' plots rendered';\n});\n\
         </script>\n</body>\n</html>\n",
    );
    out
}

/// Writes `blocks` into `out` as `index.md` and `index.html` (titled `title`), returning
/// the HTML page's path.
///
/// # Errors
/// [`Error::Write`] when a file cannot be written.
pub fn write_pages(out: &Path, title: &str, blocks: &[Block]) -> Result<PathBuf> {
    let md = out.join("index.md");
    write(md, &markdown(blocks))?;
    let html = out.join("index.html");
    write(html, &self::html(title, blocks))
}

/// Writes `text` into `path`, returning the path.
///
/// # Errors
/// [`Error::Write`] when it cannot.
pub fn write(path: PathBuf, text: &str) -> Result<PathBuf> {
    match fs::write(&path, text) {
        Ok(()) => Ok(path),
        Err(cause) => Err(Error::Write { path, cause }),
    }
}
