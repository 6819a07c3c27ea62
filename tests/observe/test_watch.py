"""The interpreter's Watch: the spawner registers an actor before the runtime starts it, so an
actor always ends registered (even one that runs, dies and ends at once on another domain)."""
from lp.observe.watch import Watch


def test_the_site_is_kept_until_the_end_and_given_to_its_death():
    w = Watch("127.0.0.1")
    w.spawned(9, "x.lp:4", None)
    w.died(9, "Error: late", "x.lp:4:1")
    w.ended(9)
    assert [d["site"] for d in w.deaths] == ["x.lp:4"] and not w.sites


def test_a_hidden_actors_children_are_hidden_and_their_deaths_dropped():
    w = Watch("127.0.0.1")
    w.hide(1)
    w.spawned(8, "x.lp:3", 1)
    w.died(8, "Error: early", "x.lp:3:1")
    w.ended(8)
    assert not w.deaths and 8 not in w.sites and 8 not in w.hidden


def test_a_block_site_is_formatted_once():
    class Span:
        file, line = "x.lp", 5

    class Code:
        span = Span()

    w, code = Watch("127.0.0.1"), Code()
    assert w.site_of(code) == "x.lp:5"
    Span.line = 6
    assert w.site_of(code) == "x.lp:5"


def test_actors_that_die_at_once_on_other_domains_keep_their_sites_and_leave_nothing(tmp_path, monkeypatch):
    # 2,000 actors that fail in their first step, spawned from two domains: each death kept has
    # the site, and none of them is left in the live table (as one registered after its end would)
    from lp import cli
    from lp.observe import start
    watches = []
    monkeypatch.setattr(start, "Watch", lambda *a: watches.append(Watch(*a)) or watches[-1])
    prog = tmp_path / "p.lp"
    prog.write_text(
        "Object subclass: #Go.\n"
        "Go class >> spawn: n = n = 0 ifTrue: [nil] ifFalse: [\n"
        "    Actor spawn: [:me | 1 // 0].\n"
        "    Go spawn: n - 1].\n"
        "done := Actor self.\n"
        "2 timesRepeat: [Actor spawn: [:me | Go spawn: 1000. done ! 1]].\n"
        "2 timesRepeat: [done receive: { Integer -> [:i | i] }].\n"
        "Actor sleep: 300.\n")
    assert cli.main(["run", "--quiet", "--domains", "2", "--observe", "0", str(prog)]) == 0
    w, = watches
    assert len(w.deaths) == 50 and {d["site"] for d in w.deaths} == {f"{prog}:3"}
    assert not {d["id"] for d in w.deaths} & set(w.sites)
