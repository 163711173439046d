//! `src/rspb/metrics.rs`: the system benefit of section 5.2, by hand and against a brute
//! force over tiny instances, and the confidence intervals of the tables.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use scheduling::rspb::metrics::{interval95, Metrics};
use scheduling::rspb::model::{Request, Shape, Sub, Workload};
use scheduling::rspb::{run, Algorithm, Decision};
use structures::Kind;

use super::{no, req, sub, world, yes};

#[test]
fn the_system_benefit_weighs_each_request_s_mean_benefit_by_its_priority() {
    // R1 (p 10): benefits 1 and 0.5; R2 (p 30) rejected; R3 (p 60): 0.25.
    let w = world(
        &[100],
        &[],
        vec![
            req(1, 10, vec![sub(40, false), sub(40, true)]),
            req(2, 30, vec![sub(10, false)]),
            req(3, 60, vec![sub(40, true)]),
        ],
    );
    let d = [yes(&[(0, 40), (0, 20)]), no(0), yes(&[(0, 10)])];
    let m = Metrics::new(&w, &d);
    assert!((m.system_benefit - 0.225).abs() < 1e-12, "{}", m.system_benefit);
    assert_eq!((m.rejected, m.rejected_priority), (1, 30));
    assert!((m.reserved_cpu - 70.0 / 3.0).abs() < 1e-12 && (m.requested_cpu - 130.0 / 3.0).abs() < 1e-12);
    // Every priority seven times as high: the same benefit.
    let mut scaled = w.clone();
    scaled.priority_max = 700;
    scaled.requests.iter_mut().for_each(|r| r.priority *= 7);
    assert!((Metrics::new(&scaled, &d).system_benefit - 0.225).abs() < 1e-12);
    // All in full: 1; all rejected: 0.
    assert_eq!(
        Metrics::new(&w, &[yes(&[(0, 40), (0, 40)]), yes(&[(0, 10)]), yes(&[(0, 40)])]).system_benefit,
        1.0
    );
    assert_eq!(Metrics::new(&w, &[no(0), no(0), no(0)]).system_benefit, 0.0);
}

#[test]
fn the_benefit_shapes_are_the_reconstructed_ones() {
    let s = |shape: Shape| Sub {
        cpu_max: 60,
        cpu_min: shape.cpu_min(60, Shape::SOFT_FLOOR),
        shape,
        machine: None,
    };
    let (step, linear, concave, convex) =
        (s(Shape::Step), s(Shape::Linear), s(Shape::Concave), s(Shape::Convex));
    assert_eq!((step.cpu_min, step.benefit(59), step.benefit(60)), (60, 0.0, 1.0));
    assert_eq!(
        (linear.cpu_min, linear.benefit(14), linear.benefit(15), linear.benefit(30), linear.benefit(70)),
        (15, 0.0, 0.25, 0.5, 1.0)
    );
    assert_eq!((concave.benefit(15), concave.benefit(30)), (0.5, 0.5_f64.sqrt()));
    assert_eq!((convex.benefit(15), convex.benefit(30)), (0.0625, 0.25));
    assert_eq!(Shape::Linear.cpu_min(10, Shape::SOFT_FLOOR), 3);
    // 0.3 * 10 is 3.0000000000000004 in floating point: still 3.
    assert_eq!(Shape::Linear.cpu_min(10, 0.3), 3);
}

/// Per machine, the CPU reserved in each slot of `[100, 100 + SLOTS)`.
const SLOTS: usize = 6;

/// The best system benefit any admission of `w`'s requests reaches: each request
/// rejected, or each sub-request given a machine it may use and an amount from its
/// minimum to its request, within every machine's CPU at every slot.
fn best(w: &Workload, k: usize, load: &mut Vec<[u32; SLOTS]>, chosen: &mut Vec<Decision>) -> f64 {
    if k == w.requests.len() {
        return Metrics::new(w, chosen).system_benefit;
    }
    chosen.push(Decision::Rejected { sub: 0 });
    let mut top = best(w, k + 1, load, chosen);
    chosen.pop();
    let mut placed = Vec::new();
    top = top.max(assign(w, k, 0, load, &mut placed, chosen));
    top
}

fn assign(
    w: &Workload,
    k: usize,
    i: usize,
    load: &mut Vec<[u32; SLOTS]>,
    placed: &mut Vec<scheduling::rspb::Placed>,
    chosen: &mut Vec<Decision>,
) -> f64 {
    let r = &w.requests[k];
    if i == r.subs.len() {
        chosen.push(Decision::Accepted(placed.clone()));
        let b = best(w, k + 1, load, chosen);
        chosen.pop();
        return b;
    }
    let s = r.subs[i];
    let (from, to) = ((r.start - 100) as usize, (r.end() - 100) as usize);
    let mut top = 0.0_f64;
    for j in (0..w.dedication.len()).filter(|&j| s.machine.is_none_or(|m| m == j)) {
        for cpu in s.cpu_min..=s.cpu_max {
            if (from..to).any(|t| load[j][t] + cpu > w.dedication[j]) {
                break;
            }
            (from..to).for_each(|t| load[j][t] += cpu);
            placed.push(scheduling::rspb::Placed { machine: j, cpu });
            top = top.max(assign(w, k, i + 1, load, placed, chosen));
            placed.pop();
            (from..to).for_each(|t| load[j][t] -= cpu);
        }
    }
    top
}

/// Section 5.2 written out afresh: `B = Σ_k w_k B_k` with `w_k = p_k / Σ_j p_j` over
/// every request, `B_k = (1/n) Σ_i b_i`, 0 when rejected, and each `b_i` from its shape's
/// definition (the step, or `x`, `sqrt x`, `x²` of the share reserved down to the floor).
fn by_definition(w: &Workload, d: &[Decision]) -> f64 {
    let total: f64 = w.requests.iter().map(|r| f64::from(r.priority)).sum();
    let mut b = 0.0;
    for (r, decision) in w.requests.iter().zip(d) {
        let Decision::Accepted(placed) = decision else { continue };
        let mut sum = 0.0;
        for (s, p) in r.subs.iter().zip(placed) {
            let x = f64::from(p.cpu) / f64::from(s.cpu_max);
            sum += match s.shape {
                _ if x >= 1.0 => 1.0,
                Shape::Step => 0.0,
                _ if p.cpu < s.cpu_min => 0.0,
                Shape::Linear => x,
                Shape::Concave => x.sqrt(),
                Shape::Convex => x * x,
            };
        }
        b += f64::from(r.priority) / total * (sum / r.subs.len() as f64);
    }
    b
}

#[test]
fn on_tiny_instances_every_admission_fits_and_no_algorithm_beats_the_best_benefit() {
    let mut rng = StdRng::seed_from_u64(17);
    for case in 0..60 {
        let machines = rng.random_range(1..=2);
        let dedication: Vec<u32> = (0..machines).map(|_| rng.random_range(3..=8)).collect();
        let requests: Vec<Request> = (0..rng.random_range(1..=3))
            .map(|k| {
                let fixed = rng.random_bool(0.3);
                let subs = (0..rng.random_range(1..=2))
                    .map(|_| {
                        let cpu = rng.random_range(1..=8);
                        let shape = Shape::ALL[rng.random_range(0..4)];
                        let machine = fixed.then(|| rng.random_range(0..machines));
                        Sub { cpu_max: cpu, cpu_min: shape.cpu_min(cpu, Shape::SOFT_FLOOR), shape, machine }
                    })
                    .collect();
                let start = 100 + rng.random_range(0..SLOTS as u64 - 1);
                let duration = rng.random_range(1..=100 + SLOTS as u64 - start);
                Request { start, duration, ..req(k + 1, rng.random_range(1..=100), subs) }
            })
            .collect();
        let w = Workload { requests, ..world(&dedication, &[], Vec::new()) };
        let optimum = best(&w, 0, &mut vec![[0; SLOTS]; machines], &mut Vec::new());
        for algorithm in Algorithm::of_chapter(5) {
            let d = run(algorithm, &w, Kind::RbTree, true).unwrap().decisions;
            // Replayed on a plain count per slot, the admissions fit every machine.
            let mut load = vec![[0_u32; SLOTS]; machines];
            for (r, decision) in w.requests.iter().zip(&d) {
                if let Decision::Accepted(placed) = decision {
                    for (s, p) in r.subs.iter().zip(placed) {
                        assert!(
                            s.machine.is_none_or(|m| m == p.machine)
                                && p.cpu >= s.cpu_min
                                && p.cpu <= s.cpu_max
                        );
                        for t in (r.start - 100)..(r.end() - 100) {
                            load[p.machine][t as usize] += p.cpu;
                        }
                    }
                }
            }
            assert!(
                load.iter().zip(&dedication).all(|(l, &d)| l.iter().all(|&x| x <= d)),
                "case {case}: {load:?}"
            );
            let b = Metrics::new(&w, &d).system_benefit;
            assert!(b <= optimum + 1e-12, "case {case}: {algorithm} reaches {b} above the optimum {optimum}");
            assert!((b - by_definition(&w, &d)).abs() < 1e-12, "case {case}: {algorithm}: {b}");
        }
    }
}

#[test]
fn confidence_intervals_use_student_s_t() {
    assert_eq!(interval95(&[3.0]), (3.0, None));
    let (mean, half) = interval95(&[1.0, 2.0, 3.0]);
    // s = 1, t(2) = 4.303: 4.303 / sqrt(3).
    assert!((mean - 2.0).abs() < 1e-12 && (half.unwrap() - 4.303 / 3.0_f64.sqrt()).abs() < 1e-9);
    // 41 values, 40 degrees of freedom: t = 2.021 (tables), s = sqrt(143.5).
    let values: Vec<f64> = (0..41).map(f64::from).collect();
    let half = interval95(&values).1.unwrap();
    assert!((half - 2.021 * (143.5_f64 / 41.0).sqrt()).abs() < 2e-3, "{half}");
}
