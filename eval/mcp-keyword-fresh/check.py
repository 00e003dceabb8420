#!/usr/bin/env python3
"""Validates eval/mcp-keyword-fresh/queries.jsonl against its catalog tools.jsonl.

    python3 eval/mcp-keyword-fresh/check.py

Checks: field names, the categories in order with their counts, ids (`<category>-NNN`, numbered from 001
in each category), that every gold id is a tool of tools.jsonl (and listed once), that no query text is
used twice, that absent queries have an empty gold list and all others a non-empty one, and that every
server of the catalog is the gold of at least one query. Exits 1 on the first kind of failure found.
"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED = [("exact-name", 20), ("partial-name", 30), ("other-words", 100), ("task", 50), ("absent", 50)]


def main() -> int:
    tools = [json.loads(line) for line in (HERE / "tools.jsonl").read_text().splitlines() if line.strip()]
    ids = {t["id"] for t in tools}
    servers = {t["server"] for t in tools}
    queries = [json.loads(line) for line in (HERE / "queries.jsonl").read_text().splitlines() if line.strip()]
    errors: list[str] = []

    order = [c for c, _ in EXPECTED]
    cats = [q.get("category") for q in queries]
    expected_cats = [c for c, n in EXPECTED for _ in range(n)]
    if cats != expected_cats:
        counts = {c: cats.count(c) for c in dict.fromkeys(cats)}
        errors.append(f"categories/counts/order: got {counts}, want {dict(EXPECTED)} in the order {order}")

    seen_text: dict[str, str] = {}
    per_cat: dict[str, int] = {}
    covered: set[str] = set()
    for q in queries:
        if set(q) != {"id", "query", "gold", "category"}:
            errors.append(f"{q.get('id')}: fields {sorted(q)}")
            continue
        cat = q["category"]
        per_cat[cat] = per_cat.get(cat, 0) + 1
        want_id = f"{cat}-{per_cat[cat]:03d}"
        if q["id"] != want_id:
            errors.append(f"{q['id']}: id should be {want_id}")
        text = q["query"]
        if not isinstance(text, str) or not text.strip() or text != text.strip():
            errors.append(f"{q['id']}: empty or untrimmed query")
        key = re.sub(r"\s+", " ", text.lower()).strip()
        if key in seen_text:
            errors.append(f"{q['id']}: same query as {seen_text[key]}: {text!r}")
        seen_text[key] = q["id"]
        gold = q["gold"]
        if not isinstance(gold, list) or len(set(gold)) != len(gold):
            errors.append(f"{q['id']}: gold is not a list of distinct ids")
            continue
        if cat == "absent" and gold:
            errors.append(f"{q['id']}: absent query with gold {gold}")
        if cat != "absent" and not gold:
            errors.append(f"{q['id']}: empty gold")
        for g in gold:
            if g not in ids:
                errors.append(f"{q['id']}: gold {g} is not in tools.jsonl")
            else:
                covered.add(g.split("::", 1)[0])

    missing = sorted(servers - covered)
    if missing:
        errors.append(f"servers with no query: {missing}")

    if errors:
        print("\n".join(errors))
        print(f"FAILED: {len(errors)} problem(s)")
        return 1
    golds = sum(len(q["gold"]) for q in queries)
    print(f"ok: {len(queries)} queries {dict(EXPECTED)}, {golds} gold labels, {len(covered)}/{len(servers)} servers covered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
