#!/usr/bin/env python3
"""A count-based planner behind resbench's external protocol, with count semantics
(docs/external-protocol.md, "Count semantics").

Run it with `resbench verify --external 'python3 examples/external/counts.py'`.
With `--bug` it plants a bug common in count planners: a window's fewest free is read at
its first instant only, so a reservation that starts inside the window goes unseen.

The planner tracks how many resources are busy, not which: a step function of the busy
count, kept as a sorted list of [time, busy] pairs from the present on, each holding until
the next. Refusals carry the full error. The protocol's loop is naive.py's. Python's
standard library only.
"""

import bisect
import sys

from naive import U64_MAX, Refused, serve
BUG = "--bug" in sys.argv[1:]
# The ops of the count view and their arguments: naive.py's, with counts for sets.
ARGS = {
    "check": ("start", "end", "n"),
    "earliest": ("ready", "duration", "n"),
    "allocate": ("start", "end", "count"),
    "release": ("start", "end", "count"),
    "advance": ("now",),
}


class Planner:
    def __init__(self, capacity, slot, horizon):
        self.capacity, self.slot, self.horizon = capacity, slot, horizon
        self.now = 0
        self.times = [0]  # where each step starts
        self.busy = [0]  # how many are busy from there

    # The argument rules, in the order the doc gives them.
    def floor(self, t):
        return t // self.slot * self.slot

    def limit(self):
        return self.floor(U64_MAX if self.horizon is None else min(self.now + self.horizon, U64_MAX))

    def window(self, start, end):
        if end <= start:
            raise Refused({"empty_window": {"start": start, "end": end}})
        if start < self.now:
            raise Refused({"before_past": {"time": start, "now": self.now}})
        rounded = -(-end // self.slot) * self.slot
        if rounded > U64_MAX or rounded > self.limit():
            raise Refused({"beyond_horizon": {"end": end, "limit": self.limit()}})
        return self.floor(start), rounded

    def count(self, n):
        if not 1 <= n <= self.capacity:
            raise Refused({"bad_count": {"n": n, "capacity": self.capacity}})

    # The step function.
    def busy_within(self, s, e):
        """The busy counts of the steps meeting [s, e)."""
        i = bisect.bisect_right(self.times, s) - 1
        if BUG:
            return [self.busy[i]]  # the planted bug: the first instant only
        j = bisect.bisect_left(self.times, e)
        return self.busy[i:j]

    def split(self, t):
        i = bisect.bisect_right(self.times, t) - 1
        if self.times[i] != t:
            self.times.insert(i + 1, t)
            self.busy.insert(i + 1, self.busy[i])

    def add(self, s, e, delta):
        self.split(s)
        self.split(e)
        i, j = self.times.index(s), self.times.index(e)
        for k in range(i, j):
            self.busy[k] += delta
        times, busy = [self.times[0]], [self.busy[0]]
        for t, b in zip(self.times[1:], self.busy[1:]):
            if b != busy[-1]:
                times.append(t)
                busy.append(b)
        self.times, self.busy = times, busy

    # The ops.
    def check(self, start, end, n):
        s, e = self.window(start, end)
        self.count(n)
        fewest = self.capacity - max(self.busy_within(s, e))
        return "fits", {"fits": fewest >= n, "fewest": fewest}

    def earliest(self, ready, duration, n):
        if duration == 0:
            raise Refused({"empty_window": {"start": ready, "end": ready}})
        if ready + duration > U64_MAX:
            raise Refused({"overflow": {"start": ready, "duration": duration}})
        self.window(ready, ready + duration)
        self.count(n)
        for t in [ready] + [t for t in self.times if t > ready]:
            if t + duration > U64_MAX:
                break
            try:
                s, e = self.window(t, t + duration)
            except Refused:
                break
            if self.capacity - max(self.busy_within(s, e)) >= n:
                return "time", t
        return "time", None

    def allocate(self, start, end, count):
        s, e = self.window(start, end)
        self.count(count)
        if self.capacity - max(self.busy_within(s, e)) < count:
            raise Refused({"not_free": {"start": start, "end": end, "busy": []}})
        self.add(s, e, count)
        return "done", None

    def release(self, start, end, count):
        s, e = self.window(start, end)
        self.count(count)
        if min(self.busy_within(s, e)) < count:
            raise Refused({"not_allocated": {"start": start, "end": end, "free": []}})
        self.add(s, e, -count)
        return "done", None

    def advance(self, now):
        if now < self.now:
            raise Refused({"before_past": {"time": now, "now": self.now}})
        self.now = self.floor(now)
        i = bisect.bisect_right(self.times, self.now) - 1
        self.times, self.busy = [self.now] + self.times[i + 1:], self.busy[i:]
        return "done", None


if __name__ == "__main__":
    serve(Planner, "counts.py --bug" if BUG else "counts.py", args=ARGS, semantics="counts")
