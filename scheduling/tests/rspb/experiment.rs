//! `src/rspb/experiment.rs`: the thesis's ten figures and the floor sweep of ours as
//! sweeps (each point changing only what its x says), and a figure's run: every
//! algorithm of its chapter on the same workloads, each measure's mean and 95 % interval
//! over the seeds.

use scheduling::rspb::experiment::{figures, run_figure, Estimate, Figure, Measure, Point, FLOOR};
use scheduling::rspb::generate::{Count, Params};
use scheduling::rspb::metrics::{interval95, Metrics};
use scheduling::rspb::{run, Algorithm};
use structures::Kind;

fn figure(id: &str) -> Figure {
    figures().into_iter().find(|f| f.id == id).unwrap()
}

#[test]
fn the_ten_figures_come_in_the_thesis_s_order_with_their_measures_then_ours() {
    let all = figures();
    let ids: Vec<&str> = all.iter().map(|f| f.id).collect();
    assert_eq!(ids, ["4.3", "4.4", "4.5", "4.6", "4.7", "5.9", "5.10", "5.11", "5.12", "5.13", FLOOR]);
    let chapters: Vec<u8> = all.iter().map(Figure::chapter).collect();
    assert_eq!(chapters, [4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5]);
    use Measure::*;
    let measures: Vec<Measure> = all.iter().map(|f| f.measure).collect();
    assert_eq!(
        measures,
        [
            Rejected,
            Rejected,
            Rejected,
            ReservedCpu,
            RejectedPriority,
            Benefit,
            Benefit,
            Benefit,
            Benefit,
            Benefit,
            Benefit
        ]
    );
    let points: Vec<usize> = all.iter().map(|f| f.points.len()).collect();
    assert_eq!(points, [12, 10, 9, 11, 10, 10, 10, 8, 11, 10, 7]);
    // Only Fig 4.3 is plotted against the requests created.
    assert_eq!(all.iter().filter(|f| f.x_requests).map(|f| f.id).collect::<Vec<_>>(), ["4.3"]);
    // The thesis's figures quote its trends; the sweep of ours has none to quote.
    for f in &all {
        let thesis = f.id != FLOOR;
        assert!(!f.caption.is_empty(), "{}", f.id);
        assert_eq!(f.trend.is_some_and(|t| t.contains("section")), thesis, "{}", f.id);
        for (x, params) in &f.points {
            params.validate().unwrap_or_else(|e| panic!("Fig {} at {x}: {e}", f.id));
        }
    }
}

/// Checks a point's swept parameters against its x, and puts back the chapter's own.
type Reset<'a> = dyn Fn(f64, &Params) -> Params + 'a;

#[test]
fn each_point_changes_only_what_its_x_says() {
    let (c4, c5) = (Params::chapter4(), Params::chapter5());
    // Each point with the swept parameters put back must be the chapter's own.
    let sweeps: [(&str, &Params, &Reset); 11] = [
        ("4.3", &c4, &|x, p| {
            assert_eq!(p.count, Count::Within(x as u64));
            Params { count: c4.count, ..p.clone() }
        }),
        ("4.4", &c4, &|x, p| {
            assert_eq!(p.machines as f64, x);
            Params { machines: c4.machines, ..p.clone() }
        }),
        ("4.5", &c4, &|x, p| {
            // Durations uniform from 20 with mean x.
            assert_eq!((p.duration.0, (p.duration.0 + p.duration.1) as f64 / 2.0), (20, x));
            Params { duration: c4.duration, ..p.clone() }
        }),
        ("4.6", &c4, &|x, p| {
            assert_eq!(f64::from(p.cpu.0 + p.cpu.1) / 2.0, x);
            assert!(p.cpu.0 >= 20 && p.cpu.1 <= 70, "{:?}", p.cpu);
            Params { cpu: c4.cpu, ..p.clone() }
        }),
        ("4.7", &c4, &|x, p| {
            assert_eq!((p.count, p.lead), (Count::Within(x as u64), 300));
            Params { count: c4.count, lead: c4.lead, ..p.clone() }
        }),
        ("5.9", &c5, &|x, p| {
            assert_eq!(p.count, Count::Exactly(x as usize));
            Params { count: c5.count, ..p.clone() }
        }),
        ("5.10", &c5, &|x, p| {
            assert_eq!(p.machines as f64, x);
            Params { machines: c5.machines, ..p.clone() }
        }),
        ("5.11", &c5, &|x, p| {
            assert_eq!((p.duration.0, (p.duration.0 + p.duration.1) as f64 / 2.0), (20, x));
            Params { duration: c5.duration, ..p.clone() }
        }),
        ("5.12", &c5, &|x, p| {
            assert!((p.fixed - (1.0 - x / 100.0)).abs() < 1e-12, "{} at {x}", p.fixed);
            Params { fixed: c5.fixed, ..p.clone() }
        }),
        ("5.13", &c5, &|x, p| {
            assert_eq!(f64::from(p.priority_max), x);
            Params { priority_max: c5.priority_max, ..p.clone() }
        }),
        (FLOOR, &c5, &|x, p| {
            assert_eq!(p.soft_floor, x / 100.0);
            Params { soft_floor: c5.soft_floor, ..p.clone() }
        }),
    ];
    for (id, base, reset) in sweeps {
        for (x, params) in &figure(id).points {
            assert_eq!(&reset(*x, params), base, "Fig {id} at {x}");
        }
    }
}

/// Fig 4.4's first two points (2 and 4 machines), 30 requests each, for a quick run.
fn small_4_4() -> Figure {
    let mut f = figure("4.4");
    f.points.truncate(2);
    f.points.iter_mut().for_each(|(_, p)| p.count = Count::Exactly(30));
    f
}

#[test]
fn a_figure_runs_every_algorithm_of_its_chapter_on_the_same_workloads() {
    let f = small_4_4();
    let results: Vec<_> = Kind::ALL.iter().map(|&kind| run_figure(&f, 1, 3, kind, true).unwrap()).collect();
    // The structure the tables are kept in changes nothing.
    assert!(results.iter().all(|r| *r == results[0]), "structures differ");
    let result = &results[0];
    assert_eq!(result.id, "4.4");
    let names: Vec<&str> = result.series.iter().map(|s| s.algorithm.as_str()).collect();
    assert_eq!(names, ["rb", "rspb"]);
    for (k, (x, params)) in f.points.iter().enumerate() {
        let (rb, rspb) = (&result.series[0].points[k], &result.series[1].points[k]);
        assert_eq!((rb.x, rspb.x), (*x, *x));
        // Paired: the same requests asked the same CPU of both.
        assert_eq!((rb.requests, rb.requested_cpu), (rspb.requests, rspb.requested_cpu), "at {x}");
        assert_eq!(rb.requests, Estimate { mean: 30.0, half: 0.0 });
        // Seeds 1 to 3, each run alone: the same mean and interval of rejections.
        for (algorithm, point) in [(Algorithm::Rb, rb), (Algorithm::Rspb, rspb)] {
            let rejected: Vec<f64> = (1..=3)
                .map(|seed| {
                    let w = params.workload(seed).unwrap();
                    Metrics::new(&w, &run(algorithm, &w, Kind::RbTree, false).unwrap().decisions).rejected
                        as f64
                })
                .collect();
            let (mean, half) = interval95(&rejected);
            assert_eq!(point.rejected, Estimate { mean, half: half.unwrap() }, "{algorithm} at {x}");
        }
    }
}

/// The points and seeds run on the caller's rayon pool; one thread or several, the
/// results are the same.
#[test]
fn a_figure_gives_the_same_results_on_one_thread_or_several() {
    let f = small_4_4();
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| run_figure(&f, 1, 4, Kind::RbTree, false).unwrap())
    };
    assert_eq!(on(1), on(3));
}

#[test]
fn a_request_count_sweep_is_plotted_against_the_requests_created() {
    let mut f = figure("4.3");
    f.points = vec![(500.0, Params { count: Count::Within(500), ..f.points[0].1.clone() })];
    let result = run_figure(&f, 4, 2, Kind::RbTree, false).unwrap();
    let created: f64 = (4..6).map(|seed| f.points[0].1.workload(seed).unwrap().requests.len() as f64).sum();
    for s in &result.series {
        assert_eq!(s.points[0].x, created / 2.0, "{}", s.algorithm);
        assert_eq!(s.points[0].x, s.points[0].requests.mean);
    }
}

#[test]
fn bad_seeds_and_parameters_are_refused_naming_the_figure() {
    let f = small_4_4();
    let err = run_figure(&f, 1, 0, Kind::RbTree, false).unwrap_err().to_string();
    assert_eq!(err, "figure 4.4: 0 seeds from 1: at least one, within the RNG seeds");
    let err = run_figure(&f, u64::MAX, 1, Kind::RbTree, false).unwrap_err().to_string();
    assert!(err.starts_with("figure 4.4: 1 seeds from 18446744073709551615"), "{err}");
    let mut no_machine = small_4_4();
    no_machine.points[1].1.machines = 0;
    let err = run_figure(&no_machine, 1, 1, Kind::RbTree, false).unwrap_err().to_string();
    assert_eq!(err, "figure 4.4: machines: 0: 1 to 1000");
}

#[test]
fn a_point_is_each_measure_s_mean_and_student_s_half_interval() {
    let metrics = |rejected, benefit| Metrics {
        requests: 10,
        rejected,
        rejected_priority: 5 * rejected as u64,
        reserved_cpu: 40.0,
        requested_cpu: 50.0,
        system_benefit: benefit,
    };
    let p = Point::of(7.0, &[(metrics(2, 0.5), 4.0), (metrics(4, 0.5), 6.0)]);
    assert_eq!(p.x, 7.0);
    // Two values a apart: s = a / sqrt 2, so the half-width is t(1) * s / sqrt 2 = 12.706 a / 2.
    let t1 = 12.706;
    let near =
        |e: Estimate, mean: f64, half: f64| (e.mean - mean).abs() < 1e-9 && (e.half - half).abs() < 1e-9;
    assert!(near(p.rejected, 3.0, t1), "{:?}", p.rejected);
    assert!(near(p.rejected_priority, 15.0, 5.0 * t1), "{:?}", p.rejected_priority);
    assert!(near(p.ops_per_request, 5.0, t1), "{:?}", p.ops_per_request);
    assert_eq!(
        (p.requests, p.system_benefit),
        (Estimate { mean: 10.0, half: 0.0 }, Estimate { mean: 0.5, half: 0.0 })
    );
    // One seed: no interval, a half-width of 0.
    assert_eq!(Point::of(1.0, &[(metrics(3, 0.25), 2.0)]).rejected, Estimate { mean: 3.0, half: 0.0 });
}

/// The report says so of the floor sweep: its workloads differ only in `CPU_min`, and at
/// 100 % every sub-request is hard.
#[test]
fn the_floor_sweep_changes_only_cpu_min_and_ends_with_every_sub_request_hard() {
    let f = figure(FLOOR);
    assert_eq!(f.chapter(), 5);
    let workloads: Vec<_> = f.points.iter().map(|(_, p)| p.workload(3).unwrap()).collect();
    let (first, last) = (&workloads[0], &workloads[workloads.len() - 1]);
    let without_min = |w: &scheduling::rspb::model::Workload| {
        let mut w = w.clone();
        w.requests.iter_mut().flat_map(|r| &mut r.subs).for_each(|s| s.cpu_min = 0);
        w
    };
    for w in &workloads {
        assert_eq!(without_min(w), without_min(first));
    }
    assert!(last.requests.iter().flat_map(|r| &r.subs).all(|s| s.hard()));
    assert!(first.requests.iter().flat_map(|r| &r.subs).any(|s| !s.hard()));
}
