"""A stored grain state is checked against the type the checker inferred for the grain's state (docs/grains.md,
"What a stored state is checked for"): a state another version of the program stored, or one edited by
hand, fails its activation with #badState naming the path, never a does-not-understand later; and a
program still loads every state it stored itself. Each program runs under `lp run` and as a binary."""
from __future__ import annotations

import pytest

from tests.conftest import run_lp
from tests.grains.helpers import MODES, run, workdir

WRITER = """
Import module: #Durable.
Object subclass: #Inv fields: (items tags).
Inv >> add: s = self with: { items: (self items copyWith: s) }.
Inv >> tag: s = self with: { tags: Maybe some: s }.
inv := Grain for: Inv initial: (Inv fields: { items: #(). tags: Maybe none }) dir: 'data'.
((inv id: 'a') add: 'apple') printNl.
((inv id: 'b') tag: 'red') printNl.
"""

READER = """
Import module: #Durable.
Object subclass: #Inv fields: (items tags).
Inv >> add: k = self with: { items: (self items copyWith: k) }.
Inv >> total = self items inject: 0 into: [:a :k | a + k].
Inv >> tagged = self tags valueOr: 0.
inv := Grain for: Inv initial: (Inv fields: { items: #(). tags: Maybe none }) dir: 'data'.
try := [:b | (GrainError try: [b value printString] onError: [:e | e kind printString , ' ' , e message]) displayNl].
try value: [(inv id: 'a') total].
try value: [(inv id: 'b') tagged + 1].
try value: [((inv id: 'c') add: 2) total].
"""


@pytest.mark.parametrize("mode", MODES)
def test_another_version_of_the_program_does_not_activate_a_state_of_another_type(tmp_path, mode):
    """The writer keeps Strings in `items` and `tags`; the reader, with the same class, Integers. Both
    initial states are empty, so only the type tells them apart (before, the reader raised `the String
    'red' does not understand #+`)."""
    rc, out, err = run(WRITER, tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    rc, out, err = run(READER, tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "#badState grain Inv/a: a stored grain state does not have the program's state type: "
        "state.items[1]: expected Integer, found the String 'apple'",
        "#badState grain Inv/b: a stored grain state does not have the program's state type: "
        "state.tags.some: expected Integer, found the String 'red'",
        "2",
    ]


EDITED = """
Import module: #Grain.
Import module: #MapStore.
Object subclass: #Point fields: (x y).
Point >> sum = self x + self y.
Object subclass: #Box fields: (contents).
Box >> put: v = self with: { contents: v }.
Object subclass: #St fields: (n name tag at items index pair box when blob ratio).
St >> get = self.
St >> sum = self n + self at sum + self ratio asInteger.
St >> names = self items inject: '' into: [:a :s | a , s].
St >> more = self with: {
    items: self items copyWith: 'x'.
    index: self index at: 'k' put: 1.
    tag: Maybe some: #t.
    pair: 1 -> 'one'.
    box: self box put: #(1.5).
    when: $a.
    blob: ByteArray new: 1 }.
store := MapStore start.
initial := St fields: { n: 0. name: ''. tag: Maybe none. at: Point fields: { x: 0. y: 0 }. items: #().
    index: Dictionary new. pair: 0 -> ''. box: Box fields: { contents: #() }. when: $z. blob: ByteArray new: 0.
    ratio: 0 asNumber }.
sts := Grain for: St initial: initial store: store.
ok := '"n":1,"name":"a","tag":{"$maybe":[]},"at":{"$class":"Point","x":1,"y":2},"items":[],"index":{},"pair":{"$assoc":[1,"b"]},"box":{"$class":"Box","contents":[]},"when":{"$char":"c"},"blob":{"$bytes":""},"ratio":1'.
bad := {
    '"n":"1"' -> '"n":1'.
    '"n":null' -> '"n":1'.
    '"n":1.5' -> '"n":1'.
    '"name":{"$symbol":"a"}' -> '"name":"a"'.
    '"tag":{"$maybe":["t"]}' -> '"tag":{"$maybe":[]}'.
    '"at":{"$class":"Point","x":1,"y":true}' -> '"at":{"$class":"Point","x":1,"y":2}'.
    '"at":{"$class":"Box","contents":1}' -> '"at":{"$class":"Point","x":1,"y":2}'.
    '"items":["a",2]' -> '"items":[]'.
    '"items":"ab"' -> '"items":[]'.
    '"index":{"k":"v"}' -> '"index":{}'.
    '"index":{"$dict":[[1,2]]}' -> '"index":{}'.
    '"pair":{"$assoc":["1","b"]}' -> '"pair":{"$assoc":[1,"b"]}'.
    '"box":{"$class":"Box","contents":[1.5,"x"]}' -> '"box":{"$class":"Box","contents":[]}'.
    '"when":"c"' -> '"when":{"$char":"c"}'.
    '"blob":[1]' -> '"blob":{"$bytes":""}'.
    '"ratio":"1"' -> '"ratio":1' }.
bad doWithIndex: [:change :i |
    key := 'St/k' , i printString.
    token := (store acquireFor: key) valueOr: 0.
    store persist: key json: '{"$class":"St",' , (ok copyReplaceAll: change value with: change key) , '}' token: token.
    store release: key token: token.
    (GrainError try: [(sts id: 'k' , i printString) sum printString] onError: [:e | e kind printString , ' ' , e message]) displayNl].
token := (store acquireFor: 'St/good') valueOr: 0.
store persist: 'St/good' json: '{"$class":"St",' , ok , '}' token: token.
(sts id: 'good') sum printNl.
(sts id: 'good') more names printNl.
"""

TYPE = "a stored grain state does not have the program's state type"


@pytest.mark.parametrize("mode", MODES)
def test_each_kind_of_difference_is_reported_with_its_path(tmp_path, mode):
    """Hand-edited states (one change each from a state that loads): a leaf of another class, nil, a Float
    for an Integer, a Symbol for a String, the content of a Maybe, a field of a nested instance, an instance
    of another class, the elements of an Array that is empty in the initial state, a String for an Array,
    the keys and values of a Dictionary, an Association's key, a generic instance's parameter, a
    Character and a ByteArray given as plain JSON, a String for a Number."""
    rc, out, err = run(EDITED, tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [f"#badState grain St/k{i}: {TYPE}: {m}" for i, m in enumerate([
        "state.n: expected Integer, found the String '1'",
        "state.n: expected Integer, found nil",
        "state.n: expected Integer, found the Float 1.5",
        "state.name: expected String, found the Symbol #a",
        "state.tag.some: expected Symbol, found the String 't'",
        "state.at.y: expected Integer, found the Boolean true",
        "state.at: expected Point, found a Box",
        "state.items[2]: expected String, found the Integer 2",
        "state.items: expected Array, found the String 'ab'",
        "state.index['k']: expected Integer, found the String 'v'",
        "state.index key: expected String, found the Integer 1",
        "state.pair.key: expected Integer, found the String '1'",
        "state.box.contents[2]: expected Float, found the String 'x'",
        "state.when: expected Character, found the String 'c'",
        "state.blob: expected ByteArray, found an Array",
        "state.ratio: expected Number, found the String '1'",
    ], 1)] + ["5", "'x'"]


ROUND_TRIP = """
Import module: #Grain.
Import module: #MapStore.
Object subclass: #Node fields: (next val).
Object subclass: #Box fields: (contents).
Box >> put: v = self with: { contents: v }.
Object subclass: #St fields: (floats num list empty index box tag pair sym).
St >> fill = self with: {
    floats: #(2.0 -0.0 1.0e20 1.5e-7 100.0).
    num: 3 asNumber.
    list: Node fields: { next: Maybe some: (Node fields: { next: Maybe none. val: 2 }). val: 1 }.
    index: (self index at: #a put: #(1.0 2.0)) at: #b put: #().
    box: self box put: (Maybe some: 4.0).
    tag: Maybe some: $x.
    pair: #k -> (Dictionary new at: 1 put: 'one').
    sym: #s }.
St >> floaty = self with: { num: 2.5 asNumber }.
St >> get = self.
Object subclass: #Acct fields: (bal).
Acct subclass: #Frozen fields: (why).
Acct >> get = self.
Acct >> freeze = Frozen fields: { bal: self bal. why: #asked }.
accts := Grain for: Acct initial: (Acct fields: { bal: 1.0 }) store: MapStore start
    options: (GrainOptions default with: { idle: 10 }).
(accts id: 'f') freeze.
sts := Grain for: St initial: (St fields: { floats: #(). num: 0 asNumber. list: Node fields: { next: Maybe none. val: 0 }.
    empty: #(). index: Dictionary new. box: Box fields: { contents: Maybe none }. tag: Maybe none.
    pair: #a -> Dictionary new. sym: #none })
    store: MapStore start options: (GrainOptions default with: { idle: 10 }).
a := (sts id: 'a') fill.
b := (sts id: 'b') floaty.
Actor sleep: 300.
((sts id: 'a') get = a) printNl.
((sts id: 'b') get = b) printNl.
(accts id: 'f') get printNl.
(sts id: 'a') get printNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_program_loads_the_states_it_stored(tmp_path, mode):
    """No false refusals: Floats with Integer values, huge and tiny, an Integer and then a Float in a
    Number field, an empty Array, nested and recursive instances, a state of a subclass, a Dictionary with entries, a generic
    instance, Maybe, Character, Symbol and Association come back after deactivation as they were."""
    rc, out, err = run(ROUND_TRIP, tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == ["true", "true", "Frozen(bal: 1.0, why: #asked)"]
    assert lines[3].startswith("St(floats: #(2.0 -0.0 1.0e20 ")


def test_without_a_type_a_state_is_compared_with_the_initial_state(tmp_path):
    """`lp run --no-check` has no types, and a `Grain for:` whose class is a variable gets none: a stored
    state is only compared with the initial state, which shows no element type for an empty Array (the
    String is let through, and `+` meets it)."""
    workdir(tmp_path)
    (tmp_path / "w.lp").write_text(WRITER)
    (tmp_path / "r.lp").write_text(READER)
    (tmp_path / "v.lp").write_text(READER.replace("Grain for: Inv initial:", "Grain for: cls initial:")
                                   .replace("inv := ", "cls := Inv.\ninv := "))
    assert run_lp("run", "w.lp", cwd=tmp_path).returncode == 0
    for r in (run_lp("run", "--no-check", "r.lp", cwd=tmp_path), run_lp("run", "v.lp", cwd=tmp_path)):
        assert r.returncode == 1
        assert "#+ expects a number, not the String 'apple'" in r.stderr.decode()
