"""`lp run --observe` and a binary's `--observe`: what the page is fed matches what the program did
(docs/observer.md). Each test runs in both modes (MODES); the feed's shape is the same."""
from __future__ import annotations

from pathlib import Path
import socket
import subprocess
import time
import urllib.request

import pytest

from tests.conftest import run_lp
from tests.observe.observed import MODES, Observed, observable

TREE = Path(__file__).with_name("tree.lp")
# main, root and pool supervisors, 3 workers, the flaky child, 20 idle actors, the stuck one
TREE_ACTORS = 1 + 2 + 3 + 1 + 20 + 1


def settled(tick):
    return tick["totals"]["actors"] == TREE_ACTORS and len(tick["supervisors"]) == 2 and tick["deaths"]


@pytest.fixture(scope="module", params=MODES)
def tree(request):
    with Observed(TREE, "--quiet", mode=request.param) as o:     # deaths are kept for the page even with --quiet
        o.wait_ready()
        yield o


def test_the_page_and_its_files_are_served(tree):
    page = urllib.request.urlopen(tree.url, timeout=20)
    assert page.headers["Content-Type"].startswith("text/html") and b"<title>LP observer</title>" in page.read()
    for name, kind in (("observer.js", "text/javascript"), ("observer.css", "text/css")):
        r = urllib.request.urlopen(tree.url + name, timeout=20)
        assert r.headers["Content-Type"].startswith(kind) and len(r.read()) > 1000
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(tree.url + "../etc/passwd", timeout=20)
    assert e.value.code == 404


def test_totals_actors_and_sites_match_the_program(tree):
    tick = tree.until(settled, {"size": 200})
    rows = tick["actors"]["rows"]
    assert len(rows) == TREE_ACTORS == tick["actors"]["count"]
    sites = [r["site"] for r in rows]
    assert sites.count("main") == 1
    assert sites.count("tests/observe/tree.lp:30") == 20          # the idle actors' spawn site
    assert sum(s.startswith("supervisor ") for s in sites) == 2
    stuck = next(r for r in rows if r["site"] == "tests/observe/tree.lp:31")
    assert stuck["mailbox"] == 7 and stuck["state"] == "waiting"
    assert tick["totals"]["mailboxes"] >= 7 and tick["totals"]["busiest"] == 7
    assert len(tick["domains"]) >= 1 and all(d["turns"] >= 0 for d in tick["domains"])


def test_supervision_trees_with_restart_counts(tree):
    tick = tree.until(settled)
    sups = {s["name"]: s for s in tick["supervisors"]}
    assert set(sups) == {"root", "pool"}
    root, pool = sups["root"], sups["pool"]
    assert root["restarts"] == 3 and pool["restarts"] == 0
    assert [c["id"] for c in root["children"]] == ["pool", "flaky"]
    assert root["children"][0]["actor"] == pool["actor"]       # the nested supervisor is a child of the root
    assert [c["id"] for c in pool["children"]] == ["w1", "w2", "w3"]
    assert [e["kind"] for e in root["events"]].count("exited") == 3


def test_unobserved_deaths_with_their_location(tree):
    tick = tree.until(settled)
    (death,) = tick["deaths"]
    assert death["reason"] == "Error: nobody watches me"
    assert death["where"] == "tests/observe/tree.lp:33:21" and death["site"] == "tests/observe/tree.lp:33"


def test_sorting_paging_filtering_and_selection(tree):
    with tree.ticks({"sort": "mailbox", "desc": True, "size": 5, "page": 0}) as feed:
        tick = feed.next()
        while tick["actors"]["size"] != 5:
            tick = feed.next()
        assert tick["actors"]["rows"][0]["mailbox"] == 7 and len(tick["actors"]["rows"]) == 5
        assert tick["actors"]["pages"] == -(-TREE_ACTORS // 5)
        feed.send({"filter": "tree.lp:30", "page": 3, "size": 5})
        tick = feed.next()
        while tick["actors"]["count"] != 20:
            tick = feed.next()
        assert tick["actors"]["page"] == 3 and len(tick["actors"]["rows"]) == 5
        sup = next(s for s in tick["supervisors"] if s["name"] == "pool")
        feed.send({"select": sup["actor"]})
        tick = feed.next()
        while tick["selected"] is None:
            tick = feed.next()
        sel = tick["selected"]
        assert sel["alive"] and sel["traps"] and sel["linkCount"] == 4     # its 3 workers and the root
        assert {p["id"] for p in sel["linked"]} >= {c["actor"] for c in sup["children"]}
        assert sel["oldest"] == []
        stuck = next(r for r in tick["actors"]["rows"] + tree.until(settled, {"size": 200})["actors"]["rows"]
                     if r["site"] == "tests/observe/tree.lp:31")
        feed.send({"select": stuck["id"]})
        tick = feed.next()
        while tick["selected"]["id"] != stuck["id"]:
            tick = feed.next()
        assert tick["selected"]["oldest"] == ["Symbol"] * 7        # classes, never contents
        feed.send({"select": 10 ** 9})
        tick = feed.next()
        while tick["selected"]["id"] != 10 ** 9:
            tick = feed.next()
        assert tick["selected"] == {"id": 10 ** 9, "alive": False}


def test_nonsense_queries_are_ignored(tree):
    with tree.ticks() as feed:
        feed.next()
        for junk in ("not json", "[1,2]", '{"sort": "__class__", "page": -5, "size": 10000000, "select": "x"}'):
            feed.ws.send(junk)
            tick = feed.next()
            assert tick["actors"]["sort"] in ("id",) and tick["actors"]["size"] <= 200


def test_an_observed_binary_never_loads_openssl(tree):
    # the page and its WebSocket need no TLS: OpenSSL is loaded on first use, not linked
    # (runtime/openssl_load.c), so none of its pages are resident (docs/observer.md, "Measured")
    if tree.mode != "build":
        pytest.skip("a binary's mappings")
    with tree.ticks() as feed:
        feed.next()
        maps = Path(f"/proc/{tree.proc.pid}/maps").read_text()
    assert "libssl" not in maps and "libcrypto" not in maps


def test_a_closed_page_ends_its_feed(tree):
    def observer_actors():
        with tree.ticks() as feed:
            return feed.next()["observer"]
    before = observer_actors()
    for _ in range(5):
        with tree.ticks() as feed:
            feed.next()
    time.sleep(1.0)
    assert observer_actors() == before


def test_flag_errors_are_usage_errors(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("1 printNl.\n")
    r = run_lp("run", "--observe", "nope", str(prog))
    assert r.returncode == 2 and b"expected [HOST:]PORT" in r.stderr
    r = run_lp("run", "--observe", "0", "--seed", "1", str(prog))
    assert r.returncode == 2 and b"deterministic mode" in r.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = run_lp("run", "--observe", str(s.getsockname()[1]), str(prog))
    assert r.returncode == 2 and b"cannot serve on 127.0.0.1:" in r.stderr and r.stdout == b""


def test_a_program_not_observed_does_not_load_the_observer(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("RuntimeView observing printNl.\n")
    r = run_lp("run", str(prog))
    assert (r.returncode, r.stdout, r.stderr) == (0, b"false\n", b"")


def test_the_observer_is_not_rechecked_with_the_program_but_its_classes_still_clash(tmp_path):
    # `lp run --observe` checks the program as without the flag (the Observer's modules are
    # checked on their own, tests/types/test_seeds_and_examples.py); a class of theirs declared
    # again by the program is still refused, before anything runs
    prog = tmp_path / "p.lp"
    prog.write_text("Object subclass: #HttpServer.\n1 printNl.\n")
    assert run_lp("run", str(prog)).stdout == b"1\n"
    r = run_lp("run", "--observe", "0", str(prog))
    assert r.returncode == 1 and r.stdout == b"" and b"observing at" not in r.stderr
    assert b"The class `HttpServer` is declared twice." in r.stderr and b"p.lp:1:1" in r.stderr


@pytest.mark.parametrize("mode", MODES)
def test_a_hundred_thousand_actors_one_page_per_tick(mode):
    with Observed(Path(__file__).with_name("many.lp"), mode=mode) as o:
        o.wait_ready()
        with o.ticks({"sort": "mailbox", "desc": True, "page": 10 ** 6}) as feed:
            tick = feed.next()
            while tick["actors"]["sort"] != "mailbox":      # the first tick answers the default query
                tick = feed.next()
            for _ in range(3):
                assert tick["totals"]["actors"] == 100_001 and tick["actors"]["count"] == 100_001
                assert tick["actors"]["page"] == tick["actors"]["pages"] - 1 == 2000     # clamped to the last
                assert len(tick["actors"]["rows"]) == 1 and feed.last_size < 64 * 1024     # 100,001 = 2,000 x 50 + 1
                tick = feed.next()
            feed.send({"sort": "id", "page": 0})
            while tick["actors"]["page"] != 0:
                tick = feed.next()
            assert [r["id"] for r in tick["actors"]["rows"]] == sorted(r["id"] for r in tick["actors"]["rows"])
            assert len(tick["actors"]["rows"]) == 50 and feed.last_size < 64 * 1024


def test_the_page_needs_nothing_from_elsewhere():
    from importlib import resources
    page = resources.files("lp.observe").joinpath("page")
    texts = [f.read_text() for f in page.iterdir() if f.name.endswith((".html", ".js", ".css"))]
    assert len(texts) == 3
    for text in texts:
        for remote in ("http://", "https://", "//cdn", "@import"):
            assert remote not in text.replace("http://www.w3.org/2000/svg", "")


def test_the_host_is_loopback_unless_given(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("1 printNl.\n")
    r = run_lp("run", "--observe", "0", str(prog))
    assert r.returncode == 0 and r.stdout == b"1\n"
    assert r.stderr.startswith(b"lp: observing at http://127.0.0.1:")
    r = run_lp("run", "--observe", "127.0.0.2:0", str(prog))
    assert r.returncode == 0 and r.stderr.startswith(b"lp: observing at http://127.0.0.2:")


@pytest.mark.parametrize("mode", MODES)
def test_an_observed_program_that_waits_forever_keeps_running(tmp_path, mode):
    prog = tmp_path / "stuck.lp"
    prog.write_text("Actor self receive: { #never -> [:m | nil] }.\n")
    assert b"deadlock" in run_lp("run", str(prog)).stderr
    with Observed(prog, mode=mode) as o:
        time.sleep(2.0)
        assert o.proc.poll() is None
        with o.ticks() as feed:
            assert feed.next()["totals"]["actors"] == 1


def test_the_wait_between_ticks_grows_with_their_cost():
    from lp.observe.watch import Watch
    w = Watch("127.0.0.1")
    for cost, pause in ((0.0, 250), (5.0, 250), (100.0, 2000), (10_000.0, 10_000)):
        w.cost_ms = cost
        assert w.pause_ms() == pause


def test_a_binary_takes_the_flag_only_when_built_observable(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("1 printNl.\n")
    assert run_lp("build", str(prog), "-o", str(tmp_path / "p")).returncode == 0
    r = subprocess.run([str(tmp_path / "p"), "--observe", "0"], capture_output=True, timeout=60)
    assert r.returncode == 2 and b"--observe needs a binary built with `lp build --observable`" in r.stderr
    r = subprocess.run([str(tmp_path / "p")], capture_output=True, timeout=60)   # and it runs as before
    assert (r.returncode, r.stdout, r.stderr) == (0, b"1\n", b"")


def test_an_observable_binary_runs_as_before_without_the_flag(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("RuntimeView observing printNl.\n")
    r = subprocess.run([str(observable(prog))], capture_output=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"false\n", b"")


def test_binary_flag_errors_are_usage_errors(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("1 printNl.\n")
    binary = str(observable(prog))
    r = subprocess.run([binary, "--observe", "nope"], capture_output=True, timeout=60)
    assert r.returncode == 2 and b"expects [HOST:]PORT" in r.stderr
    r = subprocess.run([binary, "--observe", "0", "--seed", "1"], capture_output=True, timeout=60)
    assert r.returncode == 2 and b"deterministic mode" in r.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = subprocess.run([binary, "--observe", str(s.getsockname()[1])], capture_output=True, timeout=60)
    assert r.returncode == 2 and b"cannot serve on 127.0.0.1:" in r.stderr and r.stdout == b""
    r = subprocess.run([binary, "--observe", "127.0.0.2:0"], capture_output=True, timeout=60)
    assert r.returncode == 0 and r.stdout == b"1\n" and r.stderr.startswith(b"lp: observing at http://127.0.0.2:")


def _upgrade(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(b"GET /feed HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    assert s.recv(12) == b"HTTP/1.1 101"
    return s


@pytest.mark.parametrize("mode", MODES)
def test_a_rude_client_ends_its_feed_and_prints_nothing(mode):
    # a client that breaks the WebSocket protocol, or resets the connection while ticks are sent,
    # ends its own feed; the observed program's output is the program's (docs/observer.md)
    with Observed(TREE, "--quiet", mode=mode) as o:
        o.wait_ready()
        garbage = _upgrade(o.port)
        garbage.sendall(bytes(range(256)) * 8)              # unmasked frames with reserved opcodes
        reset = _upgrade(o.port)
        reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        reset.close()                                       # RST, with ticks still coming
        time.sleep(1.0)
        garbage.close()
        with o.ticks() as feed:
            assert feed.next()["totals"]["actors"] == TREE_ACTORS
        o.proc.terminate()
        o.proc.wait(timeout=20)
        assert o.proc.stderr.read() == b""
