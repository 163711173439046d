#!/usr/bin/env python3
"""naive.py with a planted bug, for showing that resbench catches and shrinks one.

`earliest` returns a start before `ready` when a reservation edge (an entry of the
availability profile) lies just before it and the window from that edge fits: the kind
of bug resbench found in a real availability profile, which started its answer at the
entry holding `ready` instead of at `ready` itself.
"""

from naive import Naive, serve


class Buggy(Naive):
    def earliest(self, ready, duration, n):
        outcome, frame = super().earliest(ready, duration, n)
        if frame is None or frame["start"] != ready:
            return outcome, frame
        edges = {t for start, end, _ in self.rects for t in (start, end)}
        entry = max((t for t in edges if self.now <= t < ready and ready - t <= 2), default=None)
        if entry is not None:
            free = self.check_window(self.floor(entry), self.ceil(entry + duration), n)
            if free is not None:  # the planted bug: the entry's time, not ready
                return outcome, {"start": entry, "end": entry + duration, "free": frame["free"]}
        return outcome, frame


if __name__ == "__main__":
    serve(Buggy, "buggy.py")
