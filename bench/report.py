#!/usr/bin/env python3
"""Turns a results file of bench/*.sh into Markdown tables.

  report.py RESULTS.tsv

Lines: "M MEASURE VARIANT RUN VALUE UNIT" (one figure of one run), "C MEASURE
A B ratio|diff" (a comparison), "N TEXT" (a note), tab-separated. Each
comparison becomes a row: the median of A and of B over the runs, with the
lowest and highest in brackets, and the median of the run-by-run ratio A/B
(or difference A-B): A and B of the same run were measured next to each
other, so their ratio holds when the machine's speed drifts.
"""
import statistics
import sys
from collections import defaultdict, OrderedDict


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


def main():
    figures = defaultdict(dict)          # (measure, variant) -> {run: value}
    units = {}
    comparisons, notes = [], []
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "M" and len(parts) == 6:
                _, measure, variant, run, value, unit = parts
                figures[(measure, variant)][run] = float(value)
                units[measure] = unit
            elif parts[0] == "C" and len(parts) == 5:
                comparisons.append(tuple(parts[1:]))
            elif parts[0] == "N" and len(parts) == 2:
                notes.append(parts[1])
    for n in OrderedDict.fromkeys(notes):
        print("- %s" % n)
    if notes:
        print()
    print("| measure | A | median A (min–max) | B | median B (min–max) | A/B or A−B, paired: median (min–max) | runs |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for measure, a, b, kind in comparisons:
        fa, fb = figures.get((measure, a), {}), figures.get((measure, b), {})
        runs = sorted(set(fa) & set(fb), key=lambda r: int(r))
        if not runs:
            print("| %s | %s | – | %s | – | no paired runs | 0 |" % (measure, a, b))
            continue
        unit = units[measure]
        if kind == "ratio":
            paired = [fa[r] / fb[r] for r in runs if fb[r] != 0]
            pair_text = "%s×" % spread(paired) if paired else "–"
        else:
            paired = [fa[r] - fb[r] for r in runs]
            pair_text = "%s %s" % (spread(paired), unit)
        print("| %s | %s | %s %s | %s | %s %s | %s | %d |"
              % (measure, a, spread([fa[r] for r in runs]), unit, b,
                 spread([fb[r] for r in runs]), unit, pair_text, len(runs)))


if __name__ == "__main__":
    main()
