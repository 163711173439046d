//! The committed load figures are what their results file renders to.

use std::path::Path;

use coreserve_service::load;
use reporting::report::coreserve::render_load;

#[test]
fn the_committed_load_report_is_rendered_from_its_results_file() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/COSERVE");
    let file = load::read(&committed).expect("reports/COSERVE/load.json reads");
    assert!(file.runs.iter().any(|r| r.managers == 5) && file.runs.iter().any(|r| r.managers == 20));
    assert!(file.runs.iter().all(|r| r.violations == 0 && r.committed > 0));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    render_load(dir, &file.runs, &file.command).expect("renders");
    for page in ["load.md", "load.html"] {
        let again = std::fs::read_to_string(dir.join(page)).expect("rendered");
        let before = std::fs::read_to_string(committed.join(page)).expect("committed");
        assert!(again == before, "reports/COSERVE/{page} differs from what load.json renders to");
    }
}
