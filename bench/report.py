#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py: the table and results.json of `make bench` (bench/run).

  report.py report RAW.log RESULTS.json [SECONDS] [ICOUNT.log...]
  report.py compare OLD.json NEW.json               what changed

The guest prints "R name value" (one repetition of a measurement) and
"P name value" (a profile counter).

Instruction counts (ICOUNT_FIGURES): the ICOUNT logs are guest runs under
vm-run --icount, where a guest ns is one instruction: a measurement's
value is the median of its repetitions (they agree to a few
instructions), a figure the ratio of two such medians, whichever program
measured each, since the counts do not move with the machine's load. The
first log is the figure; each further log is the same boot again, and
its difference from the first is printed (the repeatability).

Wall clock (FIGURES, RAW.log, the 2-vCPU boot): each program measures
the two sides of a ratio within one repetition, A then B, repetition
after repetition; the figure is the median of the per-repetition ratios,
with a 95% confidence interval of that median from the order statistics
(the binomial interval, distribution-free), and PASS only when the whole
interval meets the goal.
"""
import json
import math
import random
import statistics
import sys
import time

# id, title, numerator, denominator (None: the value itself), goal op,
# goal, unit of the parts, how the goal is stated (doc/performance.md).
# Instruction counts: the single-threaded paths; these are the gating
# figures for them (issue 37).
ICOUNT_FIGURES = [
    ("i2", "single key Add+Get+Done: wq / mqueue send+receive",
     "wq_cycle_ns", "mq_cycle_ns", "<=", 1.5),
    ("i3", "in-kernel Add+Get+Done (kwq_*) / spinlocked kfifo + kmemdup",
     "kwq_cycle_ns", "kfifo_cycle_ns", "<=", 2.0),
    ("i3b", "in-kernel cycle by handle (kwq_get_held, kwq_done_held) / kfifo",
     "kwq_held_cycle_ns", "kfifo_cycle_ns", "<=", 2.0),
    ("i3c", "in-process Go stand-in of client-go cycle / in-kernel cycle",
     "go_standin_cycle_ns", "kwq_cycle_ns", None, None),
    ("i4", "ioctl layer: userspace cycle / in-kernel cycle",
     "wq_cycle_ns", "kwq_cycle_ns", "<=", 2.0),
    ("i9a", "AddAfter insert, 1M / 1K waiting keys (O(log n))",
     "delay_insert_big_ns", "delay_insert_small_ns", "<=", 2.0),
    ("i9b", "AddAfter fire per key, 1M / 1K waiting keys (O(log n))",
     "delay_fire_big_ns", "delay_fire_small_ns", "<=", 2.0),
    ("i9c", "metrics' cost: in-kernel cycle, metrics on / metrics=N",
     "kwq_cycle_ns", "kwq_cycle_nometrics_ns", None, None),
    ("i10a", "Go package Add+Get+Done / in-process Go stand-in of client-go",
     "go_cycle_ns", "go_standin_cycle_ns", None, None),
    ("i10c", "Go package Add+Get+Done / libwq's cycle (wq_add+wq_get+wq_done)",
     "go_cycle_ns", "wq_cycle_ns", "<=", 1.3),
    ("i12", "worker loop per key, wq_add + wq_done_get / mqueue send+receive",
     "loop_wq_ns", "loop_mq_ns", "<=", 1.0),
    ("i13", "one-key ring commands per key (ADD, DONE, GET) / single-key",
     "uring_cycle_ns", "wq_cycle_ns", None, None),
    ("i14", "batched cycle per key (64 a call: add, get, done) / single-key",
     "batch_cycle_key_ns", "wq_cycle_ns", "<=", 0.25),
]

# Wall clock: concurrency, lateness, and the cycles over a million keys.
FIGURES = [
    ("1", "batched 64 keys/call, 1P+1C keys/s: wq / in-process stand-in",
     "batch_wq_1p1c_keys_s", "standin_1p1c_keys_s", ">=", 2.0, "keys/s"),
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
    ("10b", "Go package 1P+1C, time per key / in-process Go stand-in",
     "go_p1c1_ns", "go_standin_p1c1_ns", None, None, "ns"),
    ("11a", "priority queue cycle, 1,000,000 / 1,000 keys over 1,000 levels",
     "prio_big_cycle_ns", "prio_small_cycle_ns", "<=", 1.3, "ns"),
    ("11b", "cycle with 1,000,000 keys: priority queue / plain queue",
     "prio_big_cycle_ns", "plain_big_cycle_ns", "<=", 1.3, "ns"),
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

# Measured by one program but not paired repetition by repetition: go
# test runs each benchmark's repetitions in a row. Their interval comes
# from a bootstrap of the two sets (fixed seed).
UNPAIRED = {"10b"}


def parse(path):
    raw, prof, info, errors = {}, {}, {}, []
    try:
        f = open(path, errors="replace")
    except FileNotFoundError:
        return raw, prof, info, errors
    with f:
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


def median_ci(vals, level=0.95):
    """The order statistics (lo, hi) bounding the median with at least
    @level confidence: the largest k with P(Bin(n, 1/2) < k) <= (1-level)/2,
    then x(k)..x(n+1-k). None when n is too small for any (n < 6)."""
    x = sorted(vals)
    n = len(x)
    tail, k = 0.0, 0
    while k < n:
        p = math.comb(n, k) / 2.0 ** n
        if tail + p > (1 - level) / 2:
            break
        tail += p
        k += 1
    if k == 0:
        return None
    return x[k - 1], x[n - k]


def boot_ratio_ci(a, b, level=0.95, rounds=2000):
    """Bootstrap interval of median(a) / median(b), unpaired sets."""
    rng = random.Random(37)
    r = []
    for _ in range(rounds):
        ma = statistics.median(rng.choices(a, k=len(a)))
        mb = statistics.median(rng.choices(b, k=len(b)))
        if mb:
            r.append(ma / mb)
    r.sort()
    if len(r) < 20:
        return None
    lo = int(len(r) * (1 - level) / 2)
    return r[lo], r[len(r) - 1 - lo]


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
    if unit == "insn":
        return "{:,.0f} insn".format(v)
    if unit == "keys/s":
        return "{:,.0f}/s".format(v)
    if abs(v) >= 100:
        return "%.0f%s" % (v, " " + unit if unit else "")
    return "%.2f%s" % (v, " " + unit if unit else "")


def judge(op, goal, lo, hi):
    """PASS when the interval lo..hi is clear of the goal."""
    if op is None:
        return "info"
    ok = lo >= goal if op == ">=" else hi <= goal
    return "PASS" if ok else "MISS"


def figure(fig, raw, info):
    fid, title, num, den, op, goal, unit = fig
    res = {"id": fid, "title": title, "goal": goal, "op": op}
    a = raw.get(num)
    b = raw.get(den) if den else None
    if not a or (den and not b):
        note = "not measured"
        if num.startswith("uring_") and "uring_skip" in info:
            note = "skipped: " + info["uring_skip"]
        res.update(status="n/a", note=note)
        return res
    if den and fid in UNPAIRED:
        s = stats([x / y for x in a for y in b if y])
        s["median"] = statistics.median(a) / statistics.median(b)
        s["n"] = min(len(a), len(b))
        ci = boot_ratio_ci(a, b)
    elif den:
        n = min(len(a), len(b))
        ratios = [a[i] / b[i] for i in range(n) if b[i]]
        s = stats(ratios)
        ci = median_ci(ratios)
    else:
        s = stats(a)
        ci = median_ci(a)
    parts = {num: stats(a), den: stats(b)} if den else {num: stats(a)}
    s["ci"] = list(ci) if ci else None
    lo, hi = ci if ci else (s["median"], s["median"])
    status = judge(op, goal, lo, hi)
    if status == "MISS" and judge(op, goal, s["median"], s["median"]) == "PASS":
        res["note"] = "median meets the goal, its interval does not"
    res.update(value=s, parts=parts, unit=unit, status=status)
    return res


def icount_figure(fig, runs):
    """@runs: the raw dicts of the icount boots, first one the figure."""
    fid, title, num, den, op, goal = fig
    res = {"id": fid, "title": title, "goal": goal, "op": op, "unit": "insn"}
    vals = []
    for raw in runs:
        if raw.get(num) and raw.get(den):
            vals.append((statistics.median(raw[num]),
                         statistics.median(raw[den])))
        else:
            vals.append(None)
    if not vals or vals[0] is None:
        res.update(status="n/a", note="not measured")
        return res
    a, b = vals[0]
    v = a / b
    res.update(value={"median": v}, parts={num: {"median": a}, den: {"median": b}},
               status=judge(op, goal, v, v))
    # the repeatability: each further boot against the first, in %
    res["repeat"] = [None if x is None else (x[0] / x[1] / v - 1) * 100
                     for x in vals[1:]]
    res["runs"] = [None if x is None else x[0] / x[1] for x in vals]
    return res


def render(rows):
    w = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        lines.append("| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(row)) + " |")
        if k == 0:
            lines.append("|" + "|".join("-" * (x + 2) for x in w) + "|")
    return "\n".join(lines)


def goal_str(r):
    if not r["op"]:
        return "(none)"
    if r.get("unit") == "B":
        return "%s %.0f B" % (r["op"], r["goal"])
    return "%s %.2gx" % (r["op"], r["goal"])


def table(results):
    rows = [("#", "figure", "median [95% CI] (min..max)", "parts (medians)",
             "goal", "result")]
    for r in results["figures"]:
        if r["status"] == "n/a":
            rows.append((r["id"], r["title"], r.get("note", "n/a"), "", "", "n/a"))
            continue
        v = r["value"]
        ci = v.get("ci")
        if len(r["parts"]) == 2:
            meas = "%.2fx [%s] (%.2f..%.2f, n=%d)" % (
                v["median"], "%.2f..%.2f" % tuple(ci) if ci else "n too small",
                v["min"], v["max"], v["n"])
            parts = " vs ".join(fmt(p["median"], r["unit"])
                                for p in r["parts"].values())
        else:
            meas = "%.0f B (%.0f..%.0f, n=%d)" % (v["median"], v["min"],
                                                  v["max"], v["n"])
            parts = ""
        res = r["status"] + (" (CI)" if r.get("note") else "")
        rows.append((r["id"], r["title"], meas, parts, goal_str(r), res))
    return render(rows)


def icount_table(results):
    figs = results["icount_figures"]
    nrep = max((len(r.get("repeat", [])) for r in figs), default=0)
    rows = [("#", "figure (instructions)", "ratio", "parts (insn/op)", "goal",
             "result") + tuple("run %d vs 1" % (i + 2) for i in range(nrep))]
    for r in figs:
        if r["status"] == "n/a":
            rows.append((r["id"], r["title"], "not measured", "", "", "n/a")
                        + ("",) * nrep)
            continue
        parts = " vs ".join(fmt(p["median"], "insn") for p in r["parts"].values())
        rep = tuple("-" if d is None else "%+.2f%%" % d for d in r["repeat"])
        rows.append((r["id"], r["title"], "%.2fx" % r["value"]["median"], parts,
                     goal_str(r), r["status"]) + rep + ("",) * (nrep - len(rep)))
    return render(rows)


def print_profile(unit, prof):
    """The medians of the profile counters @prof, in @unit per operation."""
    print()
    print("profile (%s per operation, medians):" % unit)
    for k, v in prof.items():
        print("  %-28s %10.0f" % (k, v["median"]))


def report(rawlog, out, seconds=None, icount_logs=()):
    raw, prof, info, errors = parse(rawlog)
    iruns = []
    iprof = {}
    for k, path in enumerate(icount_logs):
        r, p, i, e = parse(path)
        iruns.append(r)
        errors += e
        if k == 0:
            iprof = p
            info.setdefault("kernel", i.get("kernel", "?"))
    if not raw and not any(iruns):
        print("report.py: no results in %s" % rawlog, file=sys.stderr)
        return 1
    results = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "guest": info,
        "seconds": int(seconds) if seconds else None,
        "icount_figures": [icount_figure(f, iruns) for f in ICOUNT_FIGURES]
        if iruns else [],
        "figures": [figure(f, raw, info) for f in FIGURES] if raw else [],
        "profile": {k: stats(v) for k, v in sorted(prof.items())},
        "icount_profile": {k: stats(v) for k, v in sorted(iprof.items())},
        "raw": raw,
        "icount_raw": iruns,
        "errors": errors,
    }
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    print("# wq bench, kernel %s, QEMU TCG%s" % (
        info.get("kernel", "?"),
        ", %d s" % results["seconds"] if results["seconds"] else ""))
    if iruns:
        print()
        print("## instructions per operation (vm-run --icount, 1 vCPU; "
              "%d boot%s)" % (len(iruns), "s" if len(iruns) > 1 else ""))
        print(icount_table(results))
        reps = [abs(d) for r in results["icount_figures"]
                for d in r.get("repeat", []) if d is not None]
        if reps:
            print("repeatability: largest difference of a figure between "
                  "boots %.2f%%" % max(reps))
        print_profile("instructions", results["icount_profile"])
    if raw:
        print()
        print("## wall clock (%s vCPUs)" % info.get("cpus", "?"))
        print(table(results))
        print_profile("ns", results["profile"])
    allf = results["icount_figures"] + results["figures"]
    met = sum(r["status"] == "PASS" for r in allf)
    missed = [r["id"] for r in allf if r["status"] == "MISS"]
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
    oldf = {r["id"]: r for r in old.get("icount_figures", []) + old["figures"]}
    print("| # | old | new | change | status |")
    print("|---|---|---|---|---|")
    for r in new.get("icount_figures", []) + new["figures"]:
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
    for kind, on, nn in (("insn ", (old.get("icount_raw") or [{}])[0],
                          (new.get("icount_raw") or [{}])[0]),
                         ("", old["raw"], new["raw"])):
        for k in sorted(nn):
            if k not in on:
                continue
            a = statistics.median(on[k])
            b = statistics.median(nn[k])
            print("| %s%s | %.0f | %.0f | %+.1f%% |" % (
                kind, k, a, b, (b / a - 1) * 100 if a else 0))
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "report":
        return report(argv[2], argv[3], argv[4] if len(argv) > 4 else None,
                      argv[5:])
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
