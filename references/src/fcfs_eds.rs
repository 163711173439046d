//! fcfs-eds-slotted-array, section 3: the `tslot` array (Fig 1), `searchAndAlloc`
//! (Algorithm 1), `allocate` (Algorithm 2) and `delete` (Algorithm 3), on a plain array
//! of free counts and a list per slot kept sorted by `userId`, then `jobId`.
//!
//! `shiftNode(t)` is not given in the paper; it is read as
//! `scheduling::fcfs_eds` documents: the first reservation in slot `t`'s list that is
//! flexible, has not started and has not moved for this request, moved to the first
//! start of its window whose run leaves slot `t` and where one node per slot is free once
//! it is lifted.

/// One node of a slot's list (Fig 1): a reservation that starts in that slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// `userId`.
    pub user: u32,
    /// `jobId`.
    pub job: u32,
    /// `t_es`.
    pub tes: u64,
    /// `t_ls`.
    pub tls: u64,
    /// `t_e`.
    pub te: u64,
    /// Compute nodes it holds in each slot of its run (1 in the paper).
    pub n: u32,
}

/// One entry of the `tslot` array.
#[derive(Debug, Clone, Default)]
struct Slot {
    free: i64,
    list: Vec<Node>,
}

/// The reference's answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Allocated at `start` after `shifts`: `(userId, jobId, from, to)` in order.
    Accepted {
        /// The start slot.
        start: u64,
        /// The reservations moved for it.
        shifts: Vec<(u32, u32, u64, u64)>,
    },
    /// Not allocated.
    Rejected,
}

/// The `tslot` array of `maxCN` compute nodes.
#[derive(Debug, Clone)]
pub struct Tslot {
    slots: Vec<Slot>,
    now: u64,
    /// Section 4's baseline, flexible advance reservation without advance planning:
    /// lines 10-25 alone.
    first_fit_only: bool,
}

impl Tslot {
    /// `slots` slots of `max_cn` free nodes each.
    pub fn new(max_cn: u32, slots: usize) -> Self {
        Tslot {
            slots: vec![Slot { free: i64::from(max_cn), list: Vec::new() }; slots],
            now: 0,
            first_fit_only: false,
        }
    }

    /// The same array for section 4's baseline: first fit alone, no shift.
    pub fn baseline(max_cn: u32, slots: usize) -> Self {
        Tslot { first_fit_only: true, ..Self::new(max_cn, slots) }
    }

    /// Reservations starting before `now` have started and stay where they are.
    pub fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    /// `tslot[i].free`.
    pub fn free(&self, i: u64) -> i64 {
        self.slots[i as usize].free
    }

    /// Every reservation's start, as `(userId, jobId, start)`, sorted.
    pub fn starts(&self) -> Vec<(u32, u32, u64)> {
        let mut out = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            for node in &slot.list {
                out.push((node.user, node.job, i as u64));
            }
        }
        out.sort();
        out
    }

    /// Lines 17-18 and 32-33: the least `free` over `start..=finish`, and the slot `t`
    /// where it is first met.
    fn minimum(&self, start: u64, finish: u64) -> (i64, u64) {
        let mut min = self.slots[start as usize].free;
        let mut t = start;
        let mut i = start + 1;
        while i <= finish {
            if self.slots[i as usize].free < min {
                min = self.slots[i as usize].free;
                t = i;
            }
            i += 1;
        }
        (min, t)
    }

    /// Algorithm 2: puts `node` in `tslot[start]`'s list in `(userId, jobId)` order and
    /// takes a node from every slot of its run.
    fn allocate(&mut self, node: Node, start: u64) {
        let list = &mut self.slots[start as usize].list;
        let mut at = 0;
        while at < list.len() && (list[at].user, list[at].job) < (node.user, node.job) {
            at += 1;
        }
        list.insert(at, node);
        let finish = start + node.te - 1;
        for i in start..=finish {
            self.slots[i as usize].free -= i64::from(node.n);
        }
    }

    /// Algorithm 3: takes the reservation `(user, job)` out of `tslot[start]`'s list and
    /// gives its nodes back.
    fn delete(&mut self, user: u32, job: u32, start: u64) -> Node {
        let list = &mut self.slots[start as usize].list;
        let at = list.iter().position(|n| n.user == user && n.job == job).expect("the reservation is listed");
        let node = list.remove(at);
        let finish = start + node.te - 1;
        for i in start..=finish {
            self.slots[i as usize].free += i64::from(node.n);
        }
        node
    }

    /// `shiftNode(t)`: moves one reservation that starts at `t` off slot `t`.
    fn shift_node(&mut self, t: u64, shifted: &mut Vec<(u32, u32, u64, u64)>) -> bool {
        let candidates = self.slots[t as usize].list.clone();
        for node in candidates {
            let moved_already = shifted.iter().any(|&(u, j, _, _)| u == node.user && j == node.job);
            if node.tls == node.tes || t < self.now || moved_already {
                continue;
            }
            self.delete(node.user, node.job, t);
            let mut to = node.tes;
            while to <= node.tls {
                let off_t = to + node.te - 1 < t || to > t;
                if off_t && self.minimum(to, to + node.te - 1).0 >= i64::from(node.n) {
                    self.allocate(node, to);
                    shifted.push((node.user, node.job, t, to));
                    return true;
                }
                to += 1;
            }
            self.allocate(node, t);
        }
        false
    }

    /// Algorithm 1, `searchAndAlloc(userId, jobId, tes, tls, te)`, for `n` nodes a slot.
    /// The caller keeps the run inside the array.
    pub fn search_and_alloc(&mut self, user: u32, job: u32, tes: u64, tls: u64, te: u64, n: u32) -> Answer {
        let node = Node { user, job, tes, tls, te, n };
        let need = i64::from(n);
        // Lines 10-25.
        let tr = tls - tes;
        let mut succeed = false;
        let mut start = tes;
        let mut finish = tes + te - 1;
        let mut relax = start - tes;
        while !succeed && relax <= tr {
            let (min, t) = self.minimum(start, finish);
            if min >= need {
                self.allocate(node, start);
                succeed = true;
            } else {
                start = t + 1;
                finish = start + te - 1;
                relax = start - tes;
            }
        }
        if succeed {
            return Answer::Accepted { start, shifts: Vec::new() };
        }
        if self.first_fit_only {
            return Answer::Rejected;
        }
        // Lines 28-45.
        let mut shifts = Vec::new();
        start = tes;
        finish = tes + te - 1;
        relax = start - tes;
        while !succeed && relax <= tr {
            let (min, t) = self.minimum(start, finish);
            if min >= need {
                self.allocate(node, start);
                succeed = true;
            } else if !self.shift_node(t, &mut shifts) {
                start = t + 1;
                finish = start + te - 1;
                relax = start - tes;
            }
        }
        if succeed {
            return Answer::Accepted { start, shifts };
        }
        // Lines 46-47: putBackAllShiftedJob.
        for &(u, j, from, to) in shifts.iter().rev() {
            let node = self.delete(u, j, to);
            self.allocate(node, from);
        }
        Answer::Rejected
    }
}
