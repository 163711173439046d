#!/usr/bin/env python3
"""buggy.py with a second planted bug of another symptom, for showing that resbench
lists every diverging case and shrinks one case of each symptom to a reproducer of its
own.

The first bug is buggy.py's: `earliest` may start before `ready` (a different start).
The second: `check` leaves the highest free id out of its answer when more than `n` ids
are free (the window still fits, but the set differs).
"""

from buggy import Buggy
from naive import serve, to_ranges


class TwoBugs(Buggy):
    def check(self, start, end, n):
        s, e = self.window(start, end)
        self.count(n)
        free = self.check_window(s, e, n)
        if free is not None and bin(free).count("1") > n:
            free &= ~(1 << (free.bit_length() - 1))  # the planted bug: the highest free id dropped
        return "free", None if free is None else to_ranges(free)


if __name__ == "__main__":
    serve(TwoBugs, "two_bugs.py")
