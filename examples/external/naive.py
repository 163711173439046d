#!/usr/bin/env python3
"""A correct, naive structure behind resbench's external protocol (docs/external-protocol.md).

Run it with `resbench verify --external 'python3 examples/external/naive.py'`.

The state is a list of busy rectangles (a slot-aligned window and a set of ids, kept as a
Python int used as a bit mask), sorted by start. Ids busy at one instant are held by one
rectangle only, so the busy ids over a window are the OR of the rectangles meeting it.
Every answer is computed from the definitions in resbench's docs/structures.md, with the same
argument checks in the same order; refusals carry the full error, so resbench compares
their details too. Python's standard library only.
"""

import bisect
import json
import sys

PROTOCOL = "resbench-external"
VERSION = 1
U64_MAX = 2**64 - 1


class Refused(Exception):
    """An op the index refuses: `error` is the error as resbench spells it."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def to_mask(ranges):
    mask = 0
    for lo, hi in ranges:
        if lo < hi:
            mask |= ((1 << (hi - lo)) - 1) << lo
    return mask


def to_ranges(mask):
    """The mask's runs of ones as half-open [lo, hi) pairs, lowest first."""
    ranges = []
    while mask:
        low = mask & -mask
        lo = low.bit_length() - 1
        carried = mask + low  # clears the lowest run and sets the bit after it
        hi = (carried & -carried).bit_length() - 1
        ranges.append([lo, hi])
        mask &= carried
    return ranges


class Naive:
    """The brute-force index: every call scans the rectangles."""

    def __init__(self, capacity, slot, horizon):
        self.capacity = capacity
        self.slot = slot
        self.horizon = horizon
        self.full = (1 << capacity) - 1
        self.now = 0
        self.rects = []  # [start, end, mask], sorted by start

    # -- argument rules, in the order the trait reports them -------------------------

    def floor(self, t):
        return t // self.slot * self.slot

    def ceil(self, t):
        c = -(-t // self.slot) * self.slot
        return c if c <= U64_MAX else None

    def limit(self):
        if self.horizon is None:
            return self.floor(U64_MAX)
        return self.floor(min(self.now + self.horizon, U64_MAX))

    def window(self, start, end):
        if end <= start:
            raise Refused({"empty_window": {"start": start, "end": end}})
        if start < self.now:
            raise Refused({"before_past": {"time": start, "now": self.now}})
        limit = self.limit()
        e = self.ceil(end)
        if e is None or e > limit:
            raise Refused({"beyond_horizon": {"end": end, "limit": limit}})
        return self.floor(start), e

    def search(self, ready, duration):
        if duration == 0:
            raise Refused({"empty_window": {"start": ready, "end": ready}})
        if ready + duration > U64_MAX:
            raise Refused({"overflow": {"start": ready, "duration": duration}})
        self.window(ready, ready + duration)

    def count(self, n):
        if not 1 <= n <= self.capacity:
            raise Refused({"bad_count": {"n": n, "capacity": self.capacity}})

    def id_set(self, ranges):
        ranges = [r for r in ranges if r[0] < r[1]]
        if not ranges:
            raise Refused("empty_set")
        for lo, hi in sorted(ranges):
            if hi > self.capacity:
                raise Refused({"id_out_of_range": {"id": max(lo, self.capacity), "capacity": self.capacity}})
        return to_mask(ranges)

    # -- the state --------------------------------------------------------------------

    def busy_over(self, s, e):
        busy = 0
        for start, end, mask in self.rects:
            if start >= e:
                break
            if end > s:
                busy |= mask
        return busy

    def free_at(self, t):
        return self.full & ~self.busy_over(t, t + 1)

    def instants(self, s, e):
        """`s` and every rectangle edge inside (s, e): where freedom can change."""
        points = {s}
        for start, end, _ in self.rects:
            if s < start < e:
                points.add(start)
            if s < end < e:
                points.add(end)
        return sorted(points)

    def check_window(self, s, e, n):
        free = self.full
        for start, end, mask in self.rects:
            if start >= e:
                break
            if end > s and mask & free:
                free &= ~mask
                if free.bit_count() < n:
                    return None
        return free

    # -- the operations ---------------------------------------------------------------

    def check(self, start, end, n):
        s, e = self.window(start, end)
        self.count(n)
        free = self.check_window(s, e, n)
        return "free", None if free is None else to_ranges(free)

    def earliest(self, ready, duration, n):
        """Tries `ready`, then every rectangle end after it: no other start can be first."""
        self.search(ready, duration)
        self.count(n)
        limit = self.limit()
        starts = sorted({ready} | {end for _, end, _ in self.rects if end > ready})
        for start in starts:
            end = start + duration
            e = self.ceil(end) if end <= U64_MAX else None
            if e is None or e > limit:
                break
            free = self.check_window(self.floor(start), e, n)
            if free is not None:
                return "start", {"start": start, "end": end, "free": to_ranges(free)}
        return "start", None

    def allocate(self, start, end, ids):
        s, e = self.window(start, end)
        mask = self.id_set(ids)
        busy = mask & self.busy_over(s, e)
        if busy:
            raise Refused({"not_free": {"start": start, "end": end, "busy": to_ranges(busy)}})
        bisect.insort(self.rects, [s, e, mask], key=lambda r: r[0])
        return "done", None

    def release(self, start, end, ids):
        s, e = self.window(start, end)
        mask = self.id_set(ids)
        free_somewhere = 0
        for t in self.instants(s, e):
            free_somewhere |= self.free_at(t)
        free = mask & free_somewhere
        if free:
            raise Refused({"not_allocated": {"start": start, "end": end, "free": to_ranges(free)}})
        kept = []
        for r in self.rects:
            if r[1] <= s or e <= r[0]:
                kept.append(r)
                continue
            lo, hi = max(r[0], s), min(r[1], e)
            kept += [[r[0], lo, r[2]], [hi, r[1], r[2]], [lo, hi, r[2] & ~mask]]
        self.rects = sorted((r for r in kept if r[0] < r[1] and r[2]), key=lambda r: r[0])
        return "done", None

    def free_frames(self, start, end):
        s, e = self.window(start, end)
        points = self.instants(s, e)
        free = [self.free_at(t) for t in points]
        frames = {}
        for i in range(self.capacity):
            bit = 1 << i
            run = None
            for k, t in enumerate(points + [e]):
                is_free = k < len(free) and free[k] & bit
                if run is None and is_free:
                    run = t
                elif run is not None and not is_free:
                    frames[(run, t)] = frames.get((run, t), 0) | bit
                    run = None
        return "frames", [{"start": a, "end": b, "free": to_ranges(m)} for (a, b), m in sorted(frames.items())]

    def options(self, start, end, min_duration, min_n):
        s, e = self.window(start, end)
        points = self.instants(s, e) + [e]
        found = []
        for i, a in enumerate(points):
            for b in points[i + 1:]:
                free = self.full & ~self.busy_over(a, b)
                left = a == s or free & ~self.free_at(a - 1)
                right = b == e or free & ~self.free_at(b)
                if free and left and right and b - a >= min_duration and free.bit_count() >= min_n:
                    found.append({"start": a, "end": b, "free": to_ranges(free)})
        return "frames", found

    def load_frames(self, frames):
        fresh = type(self)(self.capacity, self.slot, self.horizon)
        fresh.now = self.now
        limit = self.limit()
        if self.now < limit:
            fresh.allocate(self.now, limit, [[0, self.capacity]])
        for f in frames:
            fresh.release(f["start"], f["end"], f["free"])
        self.rects = fresh.rects
        return "done", None

    def advance(self, now):
        if now < self.now:
            raise Refused({"before_past": {"time": now, "now": self.now}})
        self.now = self.floor(now)
        self.rects = [[max(s, self.now), e, m] for s, e, m in self.rects if e > self.now]
        return "done", None


# Each op's arguments, in the order its method takes them.
ARGS = {
    "check": ("start", "end", "n"),
    "earliest": ("ready", "duration", "n"),
    "allocate": ("start", "end", "set"),
    "release": ("start", "end", "set"),
    "free_frames": ("from", "to"),
    "options": ("from", "to", "min_duration", "min_n"),
    "load_frames": ("frames",),
    "advance": ("now",),
}
OPS = list(ARGS)


def apply(index, op, args=ARGS):
    """One op line (a dict) to one answer line (a dict), by the method of the op's name."""
    kind = op["op"]
    if kind not in args:
        raise ValueError(f"unknown op {kind!r}")
    try:
        outcome, value = getattr(index, kind)(*(op[name] for name in args[kind]))
    except Refused as refused:
        outcome, value = "failed", refused.error
    result = {"outcome": outcome} if outcome == "done" else {"outcome": outcome, "value": value}
    return {"result": result}


def serve(make_index, name, args=ARGS, semantics=None):
    """The protocol: a hello, a welcome, then one answer line per op line until stdin ends.

    `args` names the ops the index answers (its methods) and their arguments; `semantics`
    goes into the welcome when given. A `reset` line gives a fresh index, as a hello
    would, so one process serves many. An exception inside the structure is reported with
    an `error` outcome, and the adapter goes on.
    """
    def send(message):
        sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    hello = json.loads(sys.stdin.readline())
    welcome = {"protocol": PROTOCOL, "version": VERSION}
    if hello.get("protocol") != PROTOCOL or hello.get("version") != VERSION:
        send({**welcome, "error": f"this adapter speaks {PROTOCOL} version {VERSION} only"})
        return
    index = make_index(hello["capacity"], hello["slot"], hello["horizon"])
    welcome = {**welcome, "name": name, "supports": list(args) + ["reset"]}
    send({**welcome, "semantics": semantics} if semantics else welcome)
    for line in sys.stdin:
        if not line.strip():
            continue
        op = json.loads(line)
        if op["op"] == "reset":
            index = make_index(op["capacity"], op["slot"], op["horizon"])
            send({"result": {"outcome": "done"}})
            continue
        try:
            send(apply(index, op, args))
        except Exception as failure:  # a bug of ours, reported rather than crashing
            send({"result": {"outcome": "error", "value": f"{type(failure).__name__}: {failure}"}})


if __name__ == "__main__":
    serve(Naive, "naive.py")
