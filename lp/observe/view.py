"""The observer's data, one JSON answer per tick: totals, per-domain load, one sorted page of the
actor table, the supervisors, the latest deaths and the selected actor's details. The client asks
for what it shows (sort, page, selection), so a program of 100,000 actors sends one page, not
all of them."""
from __future__ import annotations

import json

SORT_KEYS = {"id", "site", "state", "mailbox", "turns", "links", "monitors", "domain"}
PAGE_MAX = 200


def _query(text: str) -> dict:
    try:
        q = json.loads(text) if text else {}
    except ValueError:
        q = {}
    return q if isinstance(q, dict) else {}


def _int(q: dict, key: str, default: int, low: int, high: int) -> int:
    v = q.get(key, default)
    return max(low, min(high, v)) if type(v) is int else default


def snapshot(runtime, watch, query_text: str) -> str:
    q = _query(query_text)
    with watch.lock:
        sites = dict(watch.sites)
        hidden = set(watch.hidden)
        deaths = list(watch.deaths)
        sups = [dict(s, events=list(s["events"])) for s in watch.supervisors.values() if s["actor"] not in hidden]
    names = {s["actor"]: s["name"] for s in sups}
    rows = [a for a in runtime.snapshot() if a["id"] not in hidden]
    for a in rows:
        a["site"] = sites.get(a["id"], "")
        if a["id"] in names:
            a["site"] = f"supervisor {names[a['id']]} ({a['site']})"
    text = q.get("filter") if type(q.get("filter")) is str else ""
    if text:
        rows = [a for a in rows if text in a["site"] or text == str(a["id"]) or text == a["state"]]
    key = q.get("sort") if q.get("sort") in SORT_KEYS else "id"
    rows.sort(key=lambda a: (a[key], a["id"]), reverse=bool(q.get("desc")))
    size = _int(q, "size", 50, 1, PAGE_MAX)
    pages = max(1, -(-len(rows) // size))
    page = _int(q, "page", 0, 0, pages - 1)
    answer = {
        "t": watch.now_ms(),
        "totals": dict(runtime.stats(), actors=len(rows), mailboxes=sum(a["mailbox"] for a in rows),
                       busiest=max((a["mailbox"] for a in rows), default=0)),
        "domains": runtime.domain_loads(),
        "actors": {"count": len(rows), "page": page, "pages": pages, "size": size, "sort": key,
                   "desc": bool(q.get("desc")), "rows": rows[page * size:(page + 1) * size]},
        "supervisors": sups,
        "deaths": deaths[::-1],
        "observer": len(hidden),
        "selected": _selected(runtime, sites, hidden, q.get("select"), rows),
    }
    return json.dumps(answer, separators=(",", ":"))


def _selected(runtime, sites, hidden, actor_id, rows):
    if type(actor_id) is not int or actor_id in hidden:
        return None
    row = next((a for a in rows if a["id"] == actor_id), None)
    peers = runtime.peers(actor_id)
    if row is None or peers is None:
        return {"id": actor_id, "alive": False}
    links, nlinks, watchers, nwatchers = peers
    named = [{"id": i, "site": sites.get(i, "")} for i in links if i not in hidden]
    watching = [{"id": i, "site": sites.get(i, "")} for i in watchers if i not in hidden]
    return dict(row, alive=True, linked=named, linkCount=nlinks, watchers=watching, watcherCount=nwatchers)
