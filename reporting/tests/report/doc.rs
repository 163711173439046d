//! `src/report/doc.rs`: one content rendered twice, as Markdown and as HTML, saying the
//! same thing: the same headings, paragraphs, tables, figures and code blocks, with text
//! escaped in HTML and `code` spans marked up.

use std::fs;

use reporting::report::coreserve::render_load;

use super::coreserve::formula_report;

/// How many of each block `md` holds: headings, paragraphs, tables, table rows (header
/// included), figures, code blocks. A figure's caption is repeated as a paragraph below
/// it in Markdown, and is not counted as one.
fn markdown_blocks(md: &str) -> [usize; 6] {
    let mut counts = [0; 6];
    let mut after_figure = false;
    for chunk in md.split("\n\n").map(str::trim).filter(|c| !c.is_empty()) {
        let kind = match chunk {
            c if c.starts_with('#') => 0,
            _ if after_figure => {
                after_figure = false;
                continue;
            }
            c if c.starts_with("| ") => {
                counts[3] += c.lines().filter(|l| !l.starts_with("|---")).count();
                2
            }
            c if c.starts_with("![") => {
                after_figure = true;
                4
            }
            c if c.starts_with("```") => 5,
            _ => 1,
        };
        counts[kind] += 1;
    }
    counts
}

/// The same counts read off the HTML page (the render check's paragraph left out).
fn html_blocks(html: &str) -> [usize; 6] {
    let headings = (1..=3).map(|level| html.matches(&format!("<h{level}>")).count()).sum();
    [
        headings,
        html.matches("<p>").count(),
        html.matches("<table>").count(),
        html.matches("<tr>").count(),
        html.matches("<figure>").count(),
        html.matches("<pre><code>").count(),
    ]
}

#[test]
fn markdown_and_html_hold_the_same_blocks_with_html_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let command = r#"resbench coreserve load --out 'a&b' <x> "q""#;
    let run = ::coreserve::services::LoadRun {
        managers: 2,
        clients: 3,
        seconds: 1,
        wall_s: 1.0,
        hot: 1,
        capacity: 4,
        structure: "rbtree".into(),
        rho: 0.25,
        reservations: 10,
        committed: 10,
        failed: Default::default(),
        attempts: 10,
        aborted: 0,
        messages: 100,
        commits_per_s: 10.0,
        messages_per_commit: 10.0,
        abort_rate: 0.0,
        p50_ms: 1,
        p99_ms: 2,
        max_ms: 3,
        violations: 0,
        build: "debug".into(),
    };
    render_load(dir, &[run], command).unwrap();
    let md = fs::read_to_string(dir.join("load.md")).unwrap();
    let html = fs::read_to_string(dir.join("load.html")).unwrap();
    // One heading, five paragraphs, a table of a header and one run, one command.
    assert_eq!(markdown_blocks(&md), [1, 5, 1, 2, 0, 1]);
    assert_eq!(html_blocks(&html), markdown_blocks(&md));
    let heading = "Co-reservation under load on loopback (calendar-token-reservation §3, §4)";
    assert!(md.starts_with(&format!("# {heading}\n\n")), "{md}");
    assert!(html.contains(&format!("<h1>{heading}</h1>")));
    assert!(html.contains("<title>calendar-token-reservation: load</title>"));
    // The command as it was in Markdown; escaped in HTML, and nowhere raw.
    assert!(md.contains(&format!("```sh\n{command}\n```\n")));
    assert!(html
        .contains("<pre><code>resbench coreserve load --out 'a&amp;b' &lt;x&gt; &quot;q&quot;</code></pre>"));
    assert!(!html.contains(command));
    // A table: header cells and the Markdown rule.
    assert!(
        md.contains("| managers | capacity | clients |")
            && md.contains(&format!("\n|{}\n", "---|".repeat(15)))
    );
    assert!(html.contains("<table>\n<tr><th>managers</th><th>capacity</th><th>clients</th>"));
    // Backticks in Markdown are code in HTML.
    assert!(md.contains("are `resbench coreserve serve` processes"));
    assert!(html.contains("are <code>resbench coreserve serve</code> processes"));
    assert!(!html.contains('`'));
}

#[test]
fn a_figure_is_an_image_with_its_caption_in_both() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let page = formula_report(dir, (2, 4, 0.3, 0.05), "resbench coreserve polling");
    // `write_pages`: both pages, the HTML one returned.
    assert_eq!(page, dir.join("index.html"));
    let md = fs::read_to_string(dir.join("index.md")).unwrap();
    let html = fs::read_to_string(&page).unwrap();
    assert_eq!(html_blocks(&html), markdown_blocks(&md));
    assert_eq!(markdown_blocks(&md)[4], 1);
    let caption = "C(p) = E[T] + c·p: n 2 of k 4, c 0.05";
    assert!(md.contains(&format!("![{caption}](fig5-cost.svg)\n\n{caption}\n")), "{md}");
    assert!(html.contains(&format!(
        "<figure><img src=\"fig5-cost.svg\" alt=\"{caption}\"><figcaption>{caption}</figcaption></figure>"
    )));
    // The check a browser runs over the plots, once, at the end.
    assert_eq!(html.matches("id=\"render-check\"").count(), 1);
    assert!(html.trim_end().ends_with("</html>"));
}

#[test]
fn a_page_that_cannot_be_written_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // A folder where the page should go.
    fs::create_dir_all(dir.join("load.md")).unwrap();
    let err = render_load(dir, &[], "x").unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with(&format!("cannot write {}: ", dir.join("load.md").display())), "{text}");
    assert!(!dir.join("load.html").exists());
}
