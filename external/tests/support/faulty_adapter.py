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
  signed   holds times as signed 64-bit integers, and says so in its welcome: an op or an
           answer with a time past 2^63 - 1 gets an "error" outcome (an overflow)
  signed-quiet  the same, without saying so
  twice    answers op AFTER + 1 twice (takes resets)
  forget   answers allocations "done" without making them (only the free space shows it)
  error    reports an internal error (an "error" outcome) at op AFTER + 1 of its first
           index, and goes on
The modes unslotted, error, signed, signed-quiet and twice take resets (unslotted refuses those
with wider slots).
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


LONG_MAX = 2**63 - 1


def too_big(value):
    """Whether a JSON value holds a number past LONG_MAX."""
    if isinstance(value, dict):
        return any(too_big(v) for v in value.values())
    if isinstance(value, list):
        return any(too_big(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and value > LONG_MAX


def answer(index, op, seen):
    """The line to write for the op, or None to write nothing."""
    if MODE.startswith("signed"):
        late = op["op"] == "earliest" and op["ready"] + op["duration"] > LONG_MAX
        record = naive.apply(index, op) if not (too_big(op) or late) else None
        if record is None or too_big(record):
            return '{"result":{"outcome":"error","value":"ArithmeticException: long overflow"}}'
        return json.dumps(record)
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
    if MODE == "twice":
        return correct + "\n" + correct if seen == AFTER + 1 else correct
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


RESETS = MODE in ("unslotted", "error", "signed", "signed-quiet", "twice")


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
if MODE == "signed":
    welcome["time"] = {"max": LONG_MAX}
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
