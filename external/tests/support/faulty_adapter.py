#!/usr/bin/env python3
"""examples/external/naive.py, misbehaving on purpose for the tests of src/external/.

Usage: faulty_adapter.py MODE [AFTER]. The first AFTER ops (default 0) are answered
correctly; from then on MODE decides:
  garbage  a line that is not JSON        exit   exits with status 4, saying so on stderr
  hang     never answers                  long   a line of 2 MB
  wrong    "done" to every op             kind   refusals give only their error kind
  only     supports check, allocate and advance only (answers them correctly)
  unslotted refuses every index with slots wider than 1 s at the handshake
  once     a wrong answer to op AFTER of the first child only (the one that creates FLAG,
           argv[3])
  forget   answers allocations "done" without making them (only the free space shows it)
  error    reports an internal error (an "error" outcome) at op AFTER + 1 of its first
           index, and goes on
The modes unslotted and error take resets (unslotted refuses those with wider slots).
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "external"))
import naive  # noqa: E402

MODE = sys.argv[1]
AFTER = int(sys.argv[2]) if len(sys.argv) > 2 else 0
OPS = ["check", "allocate", "advance"] if MODE == "only" else naive.OPS


def answer(index, op, seen):
    """The line to write for the op, or None to write nothing."""
    if MODE == "forget" and seen > AFTER and op["op"] == "allocate":
        return '{"result":{"outcome":"done"}}'
    correct = json.dumps(naive.apply(index, op))
    if MODE == "once":
        if seen != AFTER or os.path.exists(sys.argv[3]):
            return correct
        open(sys.argv[3], "w").close()
        wrong = '{"result":{"outcome":"done"}}'
        return wrong if json.loads(correct)["result"]["outcome"] != "done" else '{"result":{"outcome":"start","value":null}}'
    if seen <= AFTER or MODE in ("only", "unslotted"):
        return correct
    if MODE == "error":
        return correct if seen > AFTER + 1 else '{"result":{"outcome":"error","value":"faulty: a planted exception"}}'
    if MODE == "garbage":
        return "this is not json"
    if MODE == "exit":
        sys.stderr.write(f"faulty: giving up at op {seen}\n")
        sys.stderr.flush()
        sys.exit(4)
    if MODE == "hang":
        time.sleep(60)
    if MODE == "long":
        return '{"result":"' + "x" * 2_000_000 + '"}'
    if MODE == "wrong":
        return '{"result":{"outcome":"done"}}'
    if MODE == "kind":
        record = json.loads(correct)
        value = record["result"].get("value")
        if record["result"]["outcome"] == "failed" and not isinstance(value, str):
            record["result"]["value"] = next(iter(value))
        return json.dumps(record)
    return correct


RESETS = MODE in ("unslotted", "error")


def refusal(hello):
    """Why the index of this hello (or reset) is refused, if it is."""
    if MODE == "unslotted" and hello["slot"] > 1:
        return f"slot {hello['slot']}: this index takes 1-second slots only"
    return None


hello = json.loads(sys.stdin.readline())
if refusal(hello):
    print(json.dumps({"protocol": naive.PROTOCOL, "version": naive.VERSION, "error": refusal(hello)}), flush=True)
    sys.exit(0)
index = naive.Naive(hello["capacity"], hello["slot"], hello["horizon"])
supports = OPS + ["reset"] if RESETS else OPS
welcome = {"protocol": naive.PROTOCOL, "version": naive.VERSION, "name": f"faulty-{MODE}", "supports": supports}
print(json.dumps(welcome), flush=True)
seen = 0
for line in sys.stdin:
    op = json.loads(line)
    if RESETS and op["op"] == "reset":
        why = refusal(op)
        if why:
            print(json.dumps({"result": {"outcome": "failed", "value": {"bad_config": {"reason": why}}}}), flush=True)
        else:
            index = naive.Naive(op["capacity"], op["slot"], op["horizon"])
            print('{"result":{"outcome":"done"}}', flush=True)
        continue
    seen += 1
    out = answer(index, op, seen)
    if out is not None:
        print(out, flush=True)
