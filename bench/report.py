#!/usr/bin/env python3
"""Turns a results file of bench/*.sh into Markdown tables.

  report.py RESULTS.tsv

Lines: "M MEASURE VARIANT RUN VALUE UNIT" (one figure of one run), "C MEASURE
A B ratio|diff" (a comparison), "G MEASURE A B ratio|diff <=|>= LIMIT" (a
goal on a comparison's paired median), "N TEXT" (a note), tab-separated. Each
comparison becomes a row: the median of A and of B over the runs, with the
lowest and highest in brackets, and the median of the run-by-run ratio A/B
(or difference A-B): A and B of the same run were measured next to each
other, so their ratio holds when the machine's speed drifts.
"""
import statistics
import sys
from collections import OrderedDict, defaultdict


def fmt(x):
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def spread(values):
    return "%s (%s–%s)" % (fmt(statistics.median(values)), fmt(min(values)), fmt(max(values)))


def paired(figures, measure, a, b, kind):
    """Runs with both A and B, and the run-by-run ratios or differences."""
    fa, fb = figures.get((measure, a), {}), figures.get((measure, b), {})
    if kind == "abs":                    # A alone, against a fixed limit
        runs = sorted(fa, key=int)
        return runs, [fa[r] for r in runs]
    runs = sorted(set(fa) & set(fb), key=int)
    if kind == "ratio":
        return runs, [fa[r] / fb[r] for r in runs if fb[r] != 0]
    return runs, [fa[r] - fb[r] for r in runs]


def print_goals(figures, units, goals):
    print()
    print("### Goals (paired medians of this run)")
    print()
    print("| goal | measured | reached |")
    print("| --- | --- | --- |")
    for measure, a, b, kind, op, limit in goals:
        _, values = paired(figures, measure, a, b, kind)
        what = "%s: %s" % (measure, a) if kind == "abs" else \
            "%s: %s %s %s" % (measure, a, "/" if kind == "ratio" else "−", b)
        unit = "×" if kind == "ratio" else " " + units.get(measure, "")
        if not values:
            print("| %s %s %s%s | not measured | – |" % (what, op, limit, unit))
            continue
        m, lim = statistics.median(values), float(limit)
        ok = m <= lim if op == "<=" else m >= lim
        print("| %s %s %s%s | %s%s | %s |" % (what, op, limit, unit, fmt(m), unit, "yes" if ok else "**no**"))


def main():
    figures = defaultdict(dict)          # (measure, variant) -> {run: value}
    units = {}
    comparisons, notes, goals = [], [], []
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "M" and len(parts) == 6:
                _, measure, variant, run, value, unit = parts
                figures[(measure, variant)][run] = float(value)
                units[measure] = unit
            elif parts[0] == "C" and len(parts) == 5:
                comparisons.append(tuple(parts[1:]))
            elif parts[0] == "G" and len(parts) == 7:
                goals.append(tuple(parts[1:]))
            elif parts[0] == "N" and len(parts) == 2:
                notes.append(parts[1])
    for n in OrderedDict.fromkeys(notes):
        print("- %s" % n)
    if notes:
        print()
    print("| measure | A | median A (min–max) | B | median B (min–max) | A/B or A−B, paired: median (min–max) | runs |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for measure, a, b, kind in comparisons:
        runs, values = paired(figures, measure, a, b, kind)
        if not runs or not values:
            print("| %s | %s | – | %s | – | no paired runs | 0 |" % (measure, a, b))
            continue
        unit = units[measure]
        pair_text = "%s×" % spread(values) if kind == "ratio" else "%s %s" % (spread(values), unit)
        fa, fb = figures[(measure, a)], figures[(measure, b)]
        print("| %s | %s | %s %s | %s | %s %s | %s | %d |"
              % (measure, a, spread([fa[r] for r in runs]), unit, b,
                 spread([fb[r] for r in runs]), unit, pair_text, len(runs)))
    # measures of one variant that no comparison shows
    compared = {(m, v) for m, a, b, _ in comparisons for v in (a, b)}
    for (measure, variant), fv in figures.items():
        if (measure, variant) not in compared:
            print("| %s | %s | %s %s | – | – | – | %d |"
                  % (measure, variant, spread(list(fv.values())), units[measure], len(fv)))
    if goals:
        print_goals(figures, units, goals)


if __name__ == "__main__":
    main()
