//! fcfs-eds-slotted-array, section 4: flexible advance reservation without advance
//! planning, FCFS-EDS's baseline. Each request, in arrival order, takes the earliest start
//! from its `t_es` at which enough resources are free throughout its run, on the
//! lowest-numbered of them, if that start is at most its `t_ls`; otherwise it is rejected.
//! Nothing planned ever moves.

use crate::conservative::Machine;

/// A machine taking flexible reservations.
#[derive(Debug, Clone)]
pub struct Flexible {
    machine: Machine,
}

impl Flexible {
    /// `capacity` free resources.
    pub fn new(capacity: u32) -> Self {
        Flexible { machine: Machine::new(capacity) }
    }

    /// A request for `n` resources over `duration`, starting in `[tes, tls]`: its start and
    /// resources, or `None` if rejected.
    pub fn request(&mut self, tes: u64, tls: u64, duration: u64, n: u32) -> Option<(u64, Vec<u32>)> {
        let (start, ids) = self.machine.earliest(tes, duration, n).filter(|&(start, _)| start <= tls)?;
        self.machine.reserve(start, duration, &ids);
        Some((start, ids))
    }
}
