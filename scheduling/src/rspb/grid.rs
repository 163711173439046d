//! The machines of one run, each a time slot table in its own structure, and the
//! decisions the algorithms make on them.

use structures::{Kind, Time};

use super::model::{Cpu, Held, Request};
use super::InvariantError;
use crate::counting::CountTable;
use crate::runner::ReplayError;

/// A sub-request's reservation: which machine, and how much of its CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placed {
    /// The machine, from 0.
    pub machine: usize,
    /// The CPU reserved, percent.
    pub cpu: Cpu,
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Admitted: each sub-request's reservation, in the request's order.
    Accepted(Vec<Placed>),
    /// Rejected at this sub-request (its position in the request): the request is put in
    /// `R_nonsatisfy` and told so, and nothing of it stays reserved.
    Rejected {
        /// The sub-request no machine could take.
        sub: usize,
    },
}

/// A machine chosen so far and the CPU it has free over the window, if any.
pub(crate) type Candidate = Option<(usize, Cpu)>;

/// Every machine's table.
pub(crate) struct Grid {
    tables: Vec<CountTable>,
    /// A deviation a test planted (feature `planted`).
    #[cfg(feature = "planted")]
    pub(crate) planted: Option<super::Planted>,
}

impl Grid {
    /// Empty tables of the given dedications in fresh structures of `kind`.
    pub(crate) fn new(
        kind: Kind,
        dedication: &[Cpu],
        horizon: Time,
        verify: bool,
    ) -> Result<Self, ReplayError> {
        let tables = dedication
            .iter()
            .map(|&d| CountTable::new(kind, d, horizon, verify))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            tables,
            #[cfg(feature = "planted")]
            planted: None,
        })
    }

    /// How many machines.
    pub(crate) fn machines(&self) -> usize {
        self.tables.len()
    }

    /// Moves every table to the scheduling event at `now`.
    pub(crate) fn advance(&mut self, now: Time) -> Result<(), ReplayError> {
        self.tables.iter_mut().try_for_each(|t| t.advance(now))
    }

    /// `CPU_smallest_j` over `r`'s window.
    pub(crate) fn smallest(&mut self, j: usize, r: &Request) -> Result<Cpu, ReplayError> {
        self.tables[j].smallest(r.id, r.start, r.end())
    }

    /// Machine `j`'s load summed over `r`'s window (Fig 4.2, line 38).
    pub(crate) fn load_sum(&mut self, j: usize, r: &Request) -> Result<u64, ReplayError> {
        self.tables[j].load_sum(r.id, r.start, r.end())
    }

    /// Marks the time slot table: `p` over `r`'s window.
    pub(crate) fn mark(&mut self, p: Placed, r: &Request) -> Result<(), ReplayError> {
        self.tables[p.machine].mark(r.id, r.start, r.end(), p.cpu)
    }

    /// Marks a reservation held from the start.
    pub(crate) fn hold(&mut self, h: &Held) -> Result<(), ReplayError> {
        self.tables[h.machine].mark(0, h.start, h.end, h.cpu)
    }

    /// Cancels the reservation `p` over `r`'s window.
    pub(crate) fn cancel(&mut self, p: Placed, r: &Request) -> Result<(), ReplayError> {
        self.tables[p.machine].cancel(r.id, r.start, r.end(), p.cpu)
    }

    /// Ops applied to all the tables.
    pub(crate) fn ops(&self) -> u64 {
        self.tables.iter().map(|t| t.ops).sum()
    }

    /// Every table's invariants over `[start, end)`.
    ///
    /// # Errors
    /// The first broken one, naming the machine.
    pub(crate) fn validate(&mut self, start: Time, end: Time) -> Result<(), InvariantError> {
        for (machine, t) in self.tables.iter_mut().enumerate() {
            t.validate(start, end).map_err(|broken| InvariantError { machine, broken })?;
        }
        Ok(())
    }
}
