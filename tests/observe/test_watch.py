"""The interpreter's Watch when an actor runs, dies and ends on another domain before its
spawner has registered where it was spawned (the spawner registers after the runtime starts it)."""
from lp.observe.watch import Watch


def test_a_death_before_registration_gets_its_site_and_leaves_no_live_entry():
    w = Watch("127.0.0.1")
    w.died(7, "Error: early", "x.lp:3:1")
    w.ended(7)
    w.spawned(7, "x.lp:3", None)
    assert [d["site"] for d in w.deaths] == ["x.lp:3"]
    assert 7 not in w.sites and not w.early


def test_an_early_death_of_a_hidden_actors_child_is_dropped():
    w = Watch("127.0.0.1")
    w.hide(1)
    w.died(8, "Error: early", "x.lp:3:1")
    w.ended(8)
    w.spawned(8, "x.lp:3", 1)
    assert not w.deaths and 8 not in w.sites and 8 not in w.hidden


def test_the_usual_order_keeps_the_site_until_the_end():
    w = Watch("127.0.0.1")
    w.spawned(9, "x.lp:4", None)
    w.died(9, "Error: late", "x.lp:4:1")
    w.ended(9)
    assert [d["site"] for d in w.deaths] == ["x.lp:4"] and not w.sites and not w.early
