//! Tests of `src/rspb/`, one module per source file, in one test binary. Every hand-built
//! case runs on every structure beside the oracle, and must decide alike on all of them.

mod batch;
mod co;
mod experiment;
mod generate;
mod grid;
mod metrics;
mod model;
mod refine;
mod results;
mod single;
mod table;

use scheduling::rspb::model::{Held, Request, Shape, Sub, Workload};
use scheduling::rspb::{run, Algorithm, Decision, Placed};
use structures::Kind;

/// A sub-request of `cpu` %: hard (Fig 1.1 a) or linear soft (Fig 1.1 b, floor 25 %).
fn sub(cpu: u32, soft: bool) -> Sub {
    let shape = if soft { Shape::Linear } else { Shape::Step };
    Sub { cpu_max: cpu, cpu_min: shape.cpu_min(cpu, Shape::SOFT_FLOOR), shape, machine: None }
}

/// The same on machine `j` only.
fn on(j: usize, s: Sub) -> Sub {
    Sub { machine: Some(j), ..s }
}

/// A request arriving at 0 for `[100, 200)`: every request of a case lands in the event
/// at 50, so they are scheduled together.
fn req(id: u64, priority: u32, subs: Vec<Sub>) -> Request {
    Request { id, arrival: 0, start: 100, duration: 100, priority, subs }
}

/// Machines of these dedications, holding `(machine, cpu)` over `[100, 200)`.
fn world(dedication: &[u32], held: &[(usize, u32)], requests: Vec<Request>) -> Workload {
    Workload {
        dedication: dedication.to_vec(),
        requests,
        interval: 50,
        priority_max: 100,
        horizon: 400,
        held: held.iter().map(|&(machine, cpu)| Held { machine, start: 100, end: 200, cpu }).collect(),
    }
}

/// Runs `algorithm` on every structure beside the oracle; the decisions, the same on all.
fn decide(algorithm: Algorithm, workload: &Workload) -> Vec<Decision> {
    let runs: Vec<_> = Kind::ALL.iter().map(|&kind| run(algorithm, workload, kind, true).unwrap()).collect();
    for r in &runs[1..] {
        assert_eq!(r.decisions, runs[0].decisions, "{algorithm}: {} and rbtree differ", r.structure.name());
    }
    runs[0].decisions.clone()
}

/// An admission with these `(machine, cpu)` reservations.
fn yes(placed: &[(usize, u32)]) -> Decision {
    Decision::Accepted(placed.iter().map(|&(machine, cpu)| Placed { machine, cpu }).collect())
}

/// A rejection at sub-request `sub`.
fn no(sub: usize) -> Decision {
    Decision::Rejected { sub }
}
