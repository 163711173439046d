//! The machines' time slot tables (section 3.4, Fig 3.3): for each machine the CPU
//! reserved in every slot, in a plain array.

/// Every machine's table.
pub(super) struct Machines {
    cpu_sys: Vec<u32>,
    load: Vec<Vec<u32>>,
}

impl Machines {
    /// Machines giving `cpu_sys` to the Grid, nothing reserved over `slots` slots.
    pub(super) fn new(cpu_sys: &[u32], slots: usize) -> Self {
        Machines { cpu_sys: cpu_sys.to_vec(), load: vec![vec![0; slots]; cpu_sys.len()] }
    }

    /// How many machines.
    pub(super) fn count(&self) -> usize {
        self.cpu_sys.len()
    }

    /// `CPU_smallest_j = CPU_sys_j - load_heaviest_j` over `[start, end)` (Fig 4.2 lines
    /// 19-20).
    pub(super) fn smallest(&self, j: usize, start: u64, end: u64) -> u32 {
        let heaviest = self.load[j][start as usize..end as usize].iter().copied().max().unwrap_or(0);
        self.cpu_sys[j] - heaviest
    }

    /// The load summed over the slots of `[start, end)` (Fig 4.2 line 38).
    pub(super) fn load_sum(&self, j: usize, start: u64, end: u64) -> u64 {
        self.load[j][start as usize..end as usize].iter().map(|&l| u64::from(l)).sum()
    }

    /// `add_reservation`: `cpu` more in every slot of `[start, end)`.
    ///
    /// # Panics
    /// If a slot would hold more than the machine gives: the caller did not check.
    pub(super) fn mark(&mut self, j: usize, start: u64, end: u64, cpu: u32) {
        for slot in &mut self.load[j][start as usize..end as usize] {
            *slot += cpu;
            assert!(*slot <= self.cpu_sys[j], "machine {j} overfilled");
        }
    }

    /// `cancel_reservation`: `cpu` less in every slot of `[start, end)`.
    ///
    /// # Panics
    /// If a slot holds less than `cpu`: nothing of that size was reserved there.
    pub(super) fn cancel(&mut self, j: usize, start: u64, end: u64, cpu: u32) {
        for slot in &mut self.load[j][start as usize..end as usize] {
            *slot = slot.checked_sub(cpu).expect("a cancel of what was reserved");
        }
    }
}
