#!/usr/bin/env python3
"""The no-op adapter: the protocol's own cost, with no structure behind it.

It answers every op with a fixed, well-formed record of the op's outcome type, computing
nothing, so `resbench bench --external` can subtract what the pipe, the JSON and Python's
loop cost from an adapter's time. Write one in your adapter's language to measure that.
"""

import json
import sys

ANSWERS = {
    "check": '{"result":{"outcome":"free","value":null}}\n',
    "earliest": '{"result":{"outcome":"start","value":null}}\n',
    "free_frames": '{"result":{"outcome":"frames","value":[]}}\n',
    "options": '{"result":{"outcome":"frames","value":[]}}\n',
}
DONE = '{"result":{"outcome":"done"}}\n'
OPS = ["check", "earliest", "allocate", "release", "free_frames", "options", "load_frames", "advance", "reset"]

hello = json.loads(sys.stdin.readline())  # a reset later is answered "done", like any op that changes state
print(json.dumps({"protocol": "resbench-external", "version": 1, "name": "noop.py", "supports": OPS}), flush=True)
for line in sys.stdin:
    # Parsed as a real adapter must, so the JSON decoding is part of the overhead.
    sys.stdout.write(ANSWERS.get(json.loads(line)["op"], DONE))
    sys.stdout.flush()
