#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py: the table and results.json of `make bench` (bench/run).

  report.py report RAW.log RESULTS.json [SECONDS]   table from a guest run
  report.py compare OLD.json NEW.json               what changed

The guest prints "R name value" (one repetition of a measurement) and
"P name value" (a profile counter). A figure is a ratio of two
measurements taken side by side in the same boot; its spread is the
min..max of the per-repetition ratios (repetition i of one measurement
against repetition i of the other), its value the median of them.
"""
import json
import statistics
import sys
import time

# id, title, numerator, denominator (None: the value itself), goal op,
# goal, unit of the parts, how the goal is stated (doc/performance.md)
FIGURES = [
    ("1", "batched 64 keys/call, 1P+1C keys/s: wq / in-process stand-in",
     "batch_wq_1p1c_keys_s", "standin_1p1c_keys_s", ">=", 2.0, "keys/s"),
    ("2", "single key Add+Get+Done: wq / mqueue send+receive",
     "wq_cycle_ns", "mq_cycle_ns", "<=", 1.5, "ns"),
    ("3", "in-kernel Add+Get+Done (kwq_*) / spinlocked kfifo + kmemdup",
     "kwq_cycle_ns", "kfifo_cycle_ns", "<=", 2.0, "ns"),
    ("3b", "in-kernel cycle by handle (kwq_get_held, kwq_done_held) / kfifo",
     "kwq_held_cycle_ns", "kfifo_cycle_ns", "<=", 2.0, "ns"),
    ("3c", "in-process Go stand-in of client-go cycle / in-kernel cycle",
     "go_standin_cycle_ns", "kwq_cycle_ns", ">=", 2.0, "ns"),
    ("4", "ioctl layer: userspace cycle / in-kernel cycle",
     "wq_cycle_ns", "kwq_cycle_ns", "<=", 2.0, "ns"),
    ("5", "single-key calls, 2P+2C / 1P+1C keys/s",
     "single_2p2c_keys_s", "single_1p1c_keys_s", ">=", 1.0, "keys/s"),
    ("5b", "batched 64 keys/call, 2P+2C / 1P+1C keys/s",
     "batch_wq_2p2c_keys_s", "batch_wq_1p1c_keys_s", ">=", 0.9, "keys/s"),
    ("6", "cycle with 1,000,000 / 1,000 resident keys",
     "resident_big_cycle_ns", "resident_small_cycle_ns", "<=", 1.3, "ns"),
    ("7a", "AddAfter lateness p50 (100K waiting) / clock_nanosleep p50",
     "late_wq_p50_ns", "late_sleep_p50_ns", "<=", 1.5, "ns"),
    ("7b", "AddAfter lateness p99 (100K waiting) / clock_nanosleep p99",
     "late_wq_p99_ns", "late_sleep_p99_ns", "<=", 1.5, "ns"),
    ("8", "kernel bytes per held key beyond its 8 key bytes (slab+vmalloc)",
     "mem_slab_vmalloc_bytes_per_key", None, "<=", 160.0, "B"),
    ("9a", "AddAfter insert, 1M / 1K waiting keys (O(log n): <= log 1M/log 1K)",
     "delay_insert_big_ns", "delay_insert_small_ns", "<=", 2.0, "ns"),
    ("9b", "AddAfter fire per key, 1M / 1K waiting keys (O(log n))",
     "delay_fire_big_ns", "delay_fire_small_ns", "<=", 2.0, "ns"),
    ("9c", "metrics' cost: in-kernel cycle, metrics on / metrics=N",
     "kwq_cycle_ns", "kwq_cycle_nometrics_ns", None, None, "ns"),
    ("10a", "Go package Add+Get+Done / in-process Go stand-in of client-go",
     "go_cycle_ns", "go_standin_cycle_ns", None, None, "ns"),
    ("10b", "Go package 1P+1C, time per key / in-process Go stand-in",
     "go_p1c1_ns", "go_standin_p1c1_ns", None, None, "ns"),
    ("11a", "priority queue cycle, 1,000,000 / 1,000 keys over 1,000 levels",
     "prio_big_cycle_ns", "prio_small_cycle_ns", "<=", 1.3, "ns"),
    ("11b", "cycle with 1,000,000 keys: priority queue / plain queue",
     "prio_big_cycle_ns", "plain_big_cycle_ns", "<=", 1.3, "ns"),
    ("12", "worker loop per key, wq_add + wq_done_get / mqueue send+receive",
     "loop_wq_ns", "loop_mq_ns", "<=", 1.0, "ns"),
    ("13a", "io_uring batch commands 1P+1C / batched ioctls 1P+1C",
     "uring_rbatch_1p1c_keys_s", "uring_batch_1p1c_keys_s", ">=", 1.0,
     "keys/s"),
    ("13b", "io_uring one-key commands, 64 in flight / single-key ioctls",
     "uring_1p1c_keys_s", "uring_single_1p1c_keys_s", ">=", 2.0, "keys/s"),
    ("13c", "io_uring batch commands 1P+1C / in-process stand-in (no goal)",
     "uring_rbatch_1p1c_keys_s", "uring_standin_1p1c_keys_s", None, None,
     "keys/s"),
    ("13d", "io_uring one-key commands with SQPOLL / single-key ioctls",
     "uring_sqpoll_1p1c_keys_s", "uring_single_1p1c_keys_s", None, None,
     "keys/s"),
]


def parse(path):
    raw, prof, info, errors = {}, {}, {}, []
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[0] in ("R", "P"):
                try:
                    v = float(w[2])
                except ValueError:
                    continue
                (raw if w[0] == "R" else prof).setdefault(w[1], []).append(v)
            elif len(w) >= 3 and w[0] == "I":
                info[w[1]] = " ".join(w[2:])
            elif w and w[0] == "E":
                errors.append(line.strip())
    return raw, prof, info, errors


def stats(vals):
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals), "n": len(vals)}


def fmt(v, unit=""):
    if v is None:
        return "-"
    if unit == "ns" and v >= 10000:
        return "%.1f us" % (v / 1000)
    if unit == "ns":
        return "%.0f ns" % v
    if unit == "keys/s":
        return "{:,.0f}/s".format(v)
    if abs(v) >= 100:
        return "%.0f%s" % (v, " " + unit if unit else "")
    return "%.2f%s" % (v, " " + unit if unit else "")


def figure(fig, raw, info):
    fid, title, num, den, op, goal, unit = fig
    res = {"id": fid, "title": title, "goal": None, "op": op}
    res["goal"] = goal
    a = raw.get(num)
    b = raw.get(den) if den else None
    if not a or (den and not b):
        note = "not measured"
        if num.startswith("uring_") and "uring_skip" in info:
            note = "skipped: " + info["uring_skip"]
        res.update(status="n/a", note=note)
        return res
    if den:
        n = min(len(a), len(b))
        ratios = [a[i] / b[i] for i in range(n) if b[i]]
        parts = {num: stats(a), den: stats(b)}
    else:
        ratios = a
        parts = {num: stats(a)}
    s = stats(ratios)
    if op is None:		# measured, no goal (9c)
        status = "info"
    elif op == ">=":
        status = "PASS" if s["median"] >= goal else "MISS"
    else:
        status = "PASS" if s["median"] <= goal else "MISS"
    res.update(value=s, parts=parts, unit=unit, status=status)
    return res


def table(results):
    rows = [("#", "figure", "measured (median, min..max)", "parts (medians)",
             "goal", "result")]
    for r in results["figures"]:
        if r["status"] == "n/a":
            rows.append((r["id"], r["title"], r.get("note", "n/a"), "", "", "n/a"))
            continue
        v = r["value"]
        ratio = r["parts"] and len(r["parts"]) == 2
        if ratio:
            meas = "%.2fx (%.2f..%.2f)" % (v["median"], v["min"], v["max"])
            parts = " vs ".join(fmt(p["median"], r["unit"])
                                for p in r["parts"].values())
            goal = ("%s %.1fx" % (r["op"], r["goal"]) if r["op"]
                    else "(none)")
        else:
            meas = "%.0f B (%.0f..%.0f, n=%d)" % (v["median"], v["min"],
                                                  v["max"], v["n"])
            parts = ""
            goal = "%s %.0f B" % (r["op"], r["goal"])
        rows.append((r["id"], r["title"], meas, parts, goal, r["status"]))
    w = [max(len(row[i]) for row in rows) for i in range(6)]
    lines = []
    for k, row in enumerate(rows):
        lines.append("| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(row)) + " |")
        if k == 0:
            lines.append("|" + "|".join("-" * (x + 2) for x in w) + "|")
    return "\n".join(lines)


def report(rawlog, out, seconds=None):
    raw, prof, info, errors = parse(rawlog)
    if not raw:
        print("report.py: no results in %s" % rawlog, file=sys.stderr)
        return 1
    results = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "guest": info,
        "seconds": int(seconds) if seconds else None,
        "figures": [figure(f, raw, info) for f in FIGURES],
        "profile": {k: stats(v) for k, v in sorted(prof.items())},
        "raw": raw,
        "errors": errors,
    }
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    print("# wq bench, kernel %s, %s vCPUs (QEMU TCG)%s" % (
        info.get("kernel", "?"), info.get("cpus", "?"),
        ", %d s" % results["seconds"] if results["seconds"] else ""))
    print(table(results))
    print()
    print("profile (ns per operation, medians):")
    for k, v in results["profile"].items():
        print("  %-28s %10.0f" % (k, v["median"]))
    met = sum(r["status"] == "PASS" for r in results["figures"])
    missed = [r["id"] for r in results["figures"] if r["status"] == "MISS"]
    print("goals met: %d, missed: %d%s" % (met, len(missed),
          " (" + ", ".join(missed) + ")" if missed else ""))
    for e in errors:
        print(e)
    print("results: %s" % out)
    return 1 if errors else 0


def compare(old_path, new_path):
    try:
        with open(old_path) as f:
            old = json.load(f)
        with open(new_path) as f:
            new = json.load(f)
    except OSError as e:
        print("compare: %s" % e, file=sys.stderr)
        return 2
    print("# compare %s (%s) -> %s (%s)" % (old_path, old.get("date"),
                                            new_path, new.get("date")))
    oldf = {r["id"]: r for r in old["figures"]}
    print("| # | old | new | change | status |")
    print("|---|---|---|---|---|")
    for r in new["figures"]:
        o = oldf.get(r["id"])
        if r["status"] == "n/a" or not o or o["status"] == "n/a":
            print("| %s | - | - | - | %s |" % (r["id"], r["status"]))
            continue
        a, b = o["value"]["median"], r["value"]["median"]
        print("| %s | %.2f | %.2f | %+.1f%% | %s -> %s |" % (
            r["id"], a, b, (b / a - 1) * 100 if a else 0, o["status"], r["status"]))
    print()
    print("| measurement | old median | new median | change |")
    print("|---|---|---|---|")
    for k in sorted(new["raw"]):
        if k not in old["raw"]:
            continue
        a = statistics.median(old["raw"][k])
        b = statistics.median(new["raw"][k])
        print("| %s | %.0f | %.0f | %+.1f%% |" % (k, a, b, (b / a - 1) * 100 if a else 0))
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "report":
        return report(argv[2], argv[3], argv[4] if len(argv) > 4 else None)
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
