"""The caller binding (docs/durable.md, "Naming grains"): an id from a name (the same in every
process), a fresh unique id, and a reference that activates nothing until its first call."""
from __future__ import annotations

import hashlib

from tests.durable.helpers import run

ROOMS = """
Import module: #Durable.
Object subclass: #Room fields: (posts).
Object subclass: #Hall fields: (posts).
Room >> post = self with: { posts: self posts + 1 }.
rooms := Grain for: Room initial: (Room fields: { posts: 0 }) dir: '%s'.
halls := Grain for: Hall initial: (Hall fields: { posts: 0 }) dir: '%s'.
"""


def test_a_name_gives_the_same_id_in_every_process_and_its_grain_keeps_its_state(tmp_path):
    prog = ROOMS % (tmp_path / "d", tmp_path / "d") + """
(rooms idFromName: 'lobby') displayNl.
((rooms idFromName: 'lobby') = (rooms idFromName: 'lobby')) printNl.
(halls idFromName: 'lobby') displayNl.
(rooms idFromName: 'lobby!') displayNl.
(rooms named: 'lobby') post posts printNl.
((rooms id: (rooms idFromName: 'lobby')) label = ('Room/' , (rooms idFromName: 'lobby'))) printNl.
"""
    rc, first, err = run(prog, tmp_path)
    assert (rc, err) == (0, "")
    rc, second, err = run(prog, tmp_path)
    assert (rc, err) == (0, "")
    one, same, hall, other, posts, label = first.splitlines()
    assert (same, label, posts) == ("true", "true", "1")
    assert one == hashlib.sha256("Room/lobby".encode()).hexdigest() and len({one, hall, other}) == 3
    assert hall == hashlib.sha256("Hall/lobby".encode()).hexdigest()
    assert second.splitlines()[:4] == first.splitlines()[:4]
    assert second.splitlines()[4] == "2"


def test_unique_ids_are_fresh_and_never_an_id_from_a_name(tmp_path):
    rc, out, err = run(ROOMS % (tmp_path / "d", tmp_path / "d") + """
ids := (1 to: 1000) asArray collect: [:i | rooms newUniqueId].
(ids inject: Dictionary new into: [:d :i | d at: i put: i]) size printNl.
(ids allSatisfy: [:i | i size = 22 and: [i allSatisfy: [:c | c isLetter or: [c isDigit or: ['-_' includes: c]]]]]) printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["1000", "true"]


def test_the_first_call_materialises_the_grain(tmp_path):
    rc, out, err = run(ROOMS % (tmp_path / "d", tmp_path / "d") + """
r := rooms id: rooms newUniqueId.
l := rooms named: 'lobby'.
rooms active printNl.
r posts printNl.
rooms active printNl.
l post.
rooms active printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["0", "0", "1", "2"]
    assert not (tmp_path / "d" / "Room").exists() or len(list((tmp_path / "d" / "Room").iterdir())) == 0


def test_a_name_is_1_to_2048_characters(tmp_path):
    rc, out, err = run(ROOMS % (tmp_path / "d", tmp_path / "d") + """
of := [:n | '' join: ((1 to: n) asArray collect: [:i | 'é'])].
(InvalidName try: [rooms idFromName: ''] onError: [:e | e class name , ': ' , e message]) displayNl.
(InvalidName try: [rooms idFromName: (of value: 2049)] onError: [:e | e class name , ': ' , e message]) displayNl.
(InvalidName try: [(rooms named: (of value: 2049)) label] onError: [:e | e class name]) displayNl.
(rooms idFromName: (of value: 2048)) size printNl.
(rooms idFromName: '🙂') size printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "InvalidName: a grain name is 1 to 2048 characters long, not 0",
        "InvalidName: a grain name is 1 to 2048 characters long, not 2049",
        "InvalidName", "64", "64"]


def test_the_checker_types_the_binding(tmp_path):
    rc, out, err = run(ROOMS % (tmp_path / "d", tmp_path / "d") + """
rooms idFromName: 3.
(rooms named: 'lobby') pots.
""", tmp_path)
    assert rc != 0
    assert "`GrainServer >> idFromName:` needs `String`" in out + err
    assert "does not understand `pots`" in out + err


def test_sha256_hex_hashes_the_text_as_utf8(tmp_path):
    rc, out, err = run("""
'' sha256Hex displayNl.
'Room/lobby🙂' sha256Hex displayNl.
'abc' sha256Hex size printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [hashlib.sha256(b"").hexdigest(),
                                hashlib.sha256("Room/lobby🙂".encode()).hexdigest(), "64"]
