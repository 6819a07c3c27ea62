"""The observer's data, one JSON answer per tick: totals, per-domain load, one sorted page of the
actor table, the supervisors, the latest deaths and the selected actor's details. The client asks
for what it shows (sort, page, filter, selection), so a program of 100,000 actors sends one page,
not all of them; the rows stay tuples until the page is cut."""
from __future__ import annotations

import json
import time
from operator import itemgetter

from lp.runtime.binding import SNAPSHOT_FIELDS, STATES, TAKEN, lib

COLUMN = {name: i for i, name in enumerate(SNAPSHOT_FIELDS)}
SORT_KEYS = set(COLUMN) - {"kind", "traps"} | {"site"}
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


def _row(r: tuple, sites: dict) -> dict:
    d = dict(zip(SNAPSHOT_FIELDS, r))
    d.update(state=STATES[r[1]], kind="fiber" if r[2] else "step", traps=bool(r[6]), site=sites.get(r[0], ""))
    return d


def snapshot(runtime, watch, query_text: str) -> str:
    began = time.perf_counter()
    q = _query(query_text)
    with watch.lock:
        sites = dict(watch.sites)
        hidden = set(watch.hidden)
        deaths = list(watch.deaths)
        sups = [dict(s, events=list(s["events"])) for s in watch.supervisors.values() if s["actor"] not in hidden]
    for s in sups:
        sites[s["actor"]] = f"supervisor {s['name']} ({sites.get(s['actor'], '')})"
    rows = runtime.snapshot_rows()
    if hidden:
        rows = [r for r in rows if r[0] not in hidden]
    live, everyone = len(rows), rows
    waiting = sum(map(itemgetter(3), rows))
    busiest = max(map(itemgetter(3), rows), default=0)
    text = q.get("filter") if type(q.get("filter")) is str else ""
    if text:
        state = next((i for i, s in STATES.items() if s == text), None)
        rows = [r for r in rows if text in sites.get(r[0], "") or text == str(r[0]) or r[1] == state]
    key = q.get("sort") if q.get("sort") in SORT_KEYS else "id"
    desc = bool(q.get("desc"))
    if key == "site":
        rows.sort(key=lambda r: (sites.get(r[0], ""), r[0]), reverse=desc)
    elif key == "id":
        rows.sort(key=itemgetter(0), reverse=desc)
    else:
        rows.sort(key=itemgetter(COLUMN[key], 0), reverse=desc)
    size = _int(q, "size", 50, 1, PAGE_MAX)
    pages = max(1, -(-len(rows) // size))
    page = _int(q, "page", 0, 0, pages - 1)
    answer = {
        "t": watch.now_ms(),
        "totals": dict(runtime.stats(), actors=live, mailboxes=waiting, busiest=busiest),
        "domains": runtime.domain_loads(),
        "actors": {"count": len(rows), "page": page, "pages": pages, "size": size, "sort": key, "desc": desc,
                   "rows": [_row(r, sites) for r in rows[page * size:(page + 1) * size]]},
        "supervisors": sups,
        "deaths": deaths[::-1],
        "observer": len(hidden),
        "selected": _selected(runtime, sites, hidden, q.get("select"), everyone, watch.class_name),
    }
    watch.cost_ms = (time.perf_counter() - began) * 1000
    return json.dumps(answer, separators=(",", ":"))


def _selected(runtime, sites, hidden, actor_id, rows, watch_class_name):
    if type(actor_id) is not int or actor_id in hidden:
        return None
    row = next((r for r in rows if r[0] == actor_id), None)
    peers = runtime.peers(actor_id) if 0 <= actor_id < 2 ** 64 else None
    if row is None or peers is None:
        return {"id": actor_id, "alive": False}
    links, nlinks, watchers, nwatchers = peers
    named = [{"id": i, "site": sites.get(i, "")} for i in links if i not in hidden]
    watching = [{"id": i, "site": sites.get(i, "")} for i in watchers if i not in hidden]
    return dict(_row(row, sites), alive=True, linked=named, linkCount=nlinks, watchers=watching,
                watcherCount=nwatchers, oldest=_oldest(runtime, watch_class_name, actor_id))


MESSAGES_SHOWN = 10
KIND_NAMES = {lib.LPRT_MSG_DOWN: "Down", lib.LPRT_MSG_EXIT: "Exit"}


def _oldest(runtime, class_name, actor_id) -> list[str]:
    """The classes (never the contents) of the oldest messages waiting in the actor's mailbox."""
    out = []
    for kind, value in runtime.peek(actor_id, MESSAGES_SHOWN) or ():
        if kind in KIND_NAMES:
            out.append(KIND_NAMES[kind])
        elif value is not TAKEN:
            out.append(class_name(value))
    return out
