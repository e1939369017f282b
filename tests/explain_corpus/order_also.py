#!/usr/bin/env python3
"""Order each signature's `also` column by what its dev threads resolved to.

`also` (data/explain_signatures.csv) lists the causes that threads with the same message resolved
to instead, most frequent first; explain ranks them after the cause the log names, in that order.
This script reads a corpus dump (GPUVET_EXPLAIN_CORPUS_DUMP=FILE, see README.md) and, for every
signature that named the cause of at least three dev cases, puts first the causes at least two of
those dev cases resolved to (a secondary cause counts half), most frequent first, then the causes
the row already listed. Held-out cases are never read.

usage: order_also.py DUMP [--write]
"""
import collections
import csv
import io
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIGNATURES = ROOT / "data" / "explain_signatures.csv"
TAXONOMY = ROOT / "data" / "taxonomy.csv"
MIN_CASES = 3
MIN_COUNT = 2


def dev_resolutions(dump_path, signature_ids):
    counts = collections.defaultdict(collections.Counter)
    with open(dump_path, encoding="utf-8") as dump:
        for line in dump:
            case = json.loads(line)
            if case["split"] != "dev":
                continue
            named = set()
            for cause in case.get("causes", []):
                if cause["alternative"] or cause["similar"] or not cause["signatures"]:
                    continue
                # A cause a rule of explain renamed (its name first, no row of the table) is the
                # rule's, not its signatures': their `also` is for the cases the rule leaves.
                if cause["signatures"][0] in signature_ids:
                    named.update(cause["signatures"])
            for signature in named:
                counts[signature][case["primary"]] += 1
                if case.get("secondary"):
                    counts[signature][case["secondary"]] += 0.5
    return counts


def uncommented_csv(path):
    lines = path.read_text(encoding="utf-8").split("\n")
    comments = [line for line in lines if line.startswith("#")]
    body = "\n".join(line for line in lines if not line.startswith("#"))
    return comments, [row for row in csv.reader(io.StringIO(body)) if row]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    _, taxonomy_rows = uncommented_csv(TAXONOMY)
    causes = {row[0] for row in taxonomy_rows[1:]} - {"other"}
    comments, rows = uncommented_csv(SIGNATURES)
    header = rows[0]
    col_id, col_cause, col_also = (header.index(c) for c in ("id", "cause", "also"))
    counts = dev_resolutions(sys.argv[1], {row[col_id] for row in rows[1:]})
    changed = 0
    for row in rows[1:]:
        seen = counts.get(row[col_id])
        if not seen or sum(seen.values()) < MIN_CASES:
            continue
        old = [a for a in row[col_also].split("|") if a]
        frequent = {c for c, n in seen.items() if n >= MIN_COUNT and c in causes}
        frequent.discard(row[col_cause])
        first = sorted(frequent, key=lambda c: (-seen[c], old.index(c) if c in old else len(old)))
        new = first + [a for a in old if a not in first and a != row[col_cause]]
        if new != old:
            changed += 1
            print(f"{row[col_id]}: {'|'.join(old)} -> {'|'.join(new)}")
            row[col_also] = "|".join(new)
    print(f"{changed} signatures reordered")
    if "--write" in sys.argv:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        SIGNATURES.write_text("\n".join(comments) + "\n" + out.getvalue(), encoding="utf-8")


if __name__ == "__main__":
    main()
