"""Grains in one process (docs/grains.md): calls, typing, state changes persisted before the answer,
errors, idle deactivation and reload, single activation under concurrent callers, custom stores."""
from __future__ import annotations

import random

import pytest

from tests.grains.helpers import COUNTER, MODES, check, run, workdir
from tests.net.helpers import LPProcess


@pytest.mark.parametrize("mode", MODES)
def test_calls_answer_and_change_state(tmp_path, mode):
    rc, out, err = run(COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 }).
a := counters id: 'a'.
a printNl.
a increment printNl.
(a add: 10) n printNl.
a n printNl.
(counters id: 'b') n printNl.
""", tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out == "GrainRef(Counter/a)\nCounter(n: 1)\n11\n11\n0\n"


def test_unknown_selector_and_wrong_argument_are_compile_errors(tmp_path):
    rc, err = check(COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 }).
(counters id: 'a') ad: 3.
(counters id: 'a') add: 'x'.
((counters id: 'a') add: 1) size.
""", tmp_path)
    assert rc == 1
    assert "The grain `Counter[Integer]` (`GrainRef[Counter[Integer]]`) does not understand `ad:`" in err \
        and "did you mean `add:`" in err
    assert "prog.lp:10:" in err and "^^^" in err
    assert "The argument of `+` is `String`" in err
    assert "`Counter[Integer]` does not understand `size`" in err


def test_a_method_that_raises_raises_in_the_caller_and_keeps_the_state(tmp_path):
    rc, out, err = run(COUNTER + """
store := MapStore start.
counters := Grain for: Counter initial: (Counter fields: { n: 0 }) store: store.
a := counters id: 'a'.
a increment.
(Error try: [a fail. 'answered'] onError: [:e | e message]) printNl.
a n printNl.
store stats persisted printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "'no such luck'\n1\n1\n"


def test_only_a_changed_state_is_persisted(tmp_path):
    rc, out, err = run(COUNTER + """
Counter >> same = self with: { n: self n }.
store := MapStore start.
counters := Grain for: Counter initial: (Counter fields: { n: 0 }) store: store.
a := counters id: 'a'.
a n. a same. a increment. a n. a add: 0.
store stats persisted printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "1\n"


def test_idle_grains_deactivate_and_reload_their_state(tmp_path):
    rc, out, err = run(COUNTER + """
store := MapStore start.
counters := Grain for: Counter initial: (Counter fields: { n: 0 }) store: store
    options: (GrainOptions default with: { idle: 20 }).
a := counters id: 'a'.
a increment. a increment.
store stats acquired printNl.
Actor sleep: 200.
a increment n printNl.
store stats acquired printNl.
a n printNl.
store stats acquired printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "1\n3\n2\n3\n2\n"


@pytest.mark.parametrize("mode", MODES)
def test_the_state_keeps_every_kind_of_value_across_reloads(tmp_path, mode):
    rc, out, err = run("""
Import module: #Grain.
Object subclass: #Point fields: (x y).
Object subclass: #Bag fields: (items tags best name ch f p).
Bag >> get = self.
Bag >> put: k = self with: { items: self items at: k put: (self items at: k ifAbsent: [0]) + 1 }.
bags := Grain for: Bag initial: (Bag fields: {
    items: Dictionary new. tags: #(#a #b). best: Maybe none. name: 'x'. ch: $c. f: 1.5.
    p: Point fields: { x: 1. y: 2 } })
    options: (GrainOptions default with: { idle: 10 }).
(bags id: 'q') put: #apple.
(bags id: 'q') put: #apple.
Actor sleep: 100.
(bags id: 'q') get printNl.
""", tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out == ("Bag(items: Dictionary(#apple -> 2), tags: #(#a #b), best: Maybe none, name: 'x', ch: $c, "
                   "f: 1.5, p: Point(x: 1, y: 2))\n")


@pytest.mark.parametrize("mode", MODES)
def test_a_store_that_raises_fails_the_calls_then_recovers(tmp_path, mode):
    rc, out, err = run(COUNTER + """
store := MapStore start.
"idle long enough that 'a' stays active while the store is down, however slow the machine"
counters := Grain for: Counter initial: (Counter fields: { n: 0 }) store: store
    options: (GrainOptions default with: { idle: 60000 }).
(counters id: 'a') increment.
store fail: true.
(Error try: [(counters id: 'b') increment n printString] onError: [:e | e message]) displayNl.
(Error try: [(counters id: 'a') increment n printString] onError: [:e | e message]) displayNl.
(counters id: 'a') n printNl.
store fail: false.
Actor sleep: 100.
(counters id: 'b') increment n printNl.
(counters id: 'a') increment n printNl.
""", tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out == "the map store is down\nthe map store is down\n1\n1\n2\n"


BAD_STATES = """
Import module: #Grain.
Import module: #MapStore.
Object subclass: #Point fields: (x y).
Object subclass: #Box fields: (contents at tags).
Box >> get = self.
store := MapStore start.
boxes := Grain for: Box initial: (Box fields: { contents: 0. at: Point fields: { x: 1. y: 2 }. tags: #(#a) }) store: store.
#(
    '{"$class":"Box","contents":"text","at":{"$class":"Point","x":1,"y":2},"tags":[]}'
    '{"$class":"Box","contents":1,"at":{"$class":"Point","x":1,"y":2},"tags":[{"$symbol":"a"},"b"]}'
    '{"$class":"Box","contents":1,"at":{"$class":"Point","x":1,"y":2.5},"tags":[]}'
    '{"$class":"Nope","n":1}'
    '{"$class":"Point","x":1}'
    '{"$class":"Box","contents":1,"at":{"$class":"Point","x":1,"z":2},"tags":[]}'
    '[1, 2'
    '{"$maybe":[3]}'
    '{"$class":"Box","contents":{"$char":"c"},"at":{"$class":"Point","x":1,"y":2},"tags":[]}'
    '{"$class":"Box","contents":7,"at":{"$class":"Point","x":1,"y":2},"tags":[{"$symbol":"z"}]}'
) doWithIndex: [:json :i |
    key := 'Box/k' , i printString.
    token := (store acquireFor: key) valueOr: 0.
    store persist: key json: json token: token.
    store release: key token: token.
    (GrainError try: [(boxes id: 'k' , i printString) get printString] onError: [:e | e kind printString , ' ' , e message]) displayNl].
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_stored_state_is_checked_against_the_state_type(tmp_path, mode):
    """docs/grains.md "What a stored state is checked for": each check's message, the first difference
    found (fields and elements in order), in both modes (test_state_types.py has each kind)."""
    rc, out, err = run(BAD_STATES, tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "#badState grain Box/k1: a stored grain state does not have the program's state type: state.contents: expected Integer, found the String 'text'",
        "#badState grain Box/k2: a stored grain state does not have the program's state type: state.tags[2]: expected Symbol, found the String 'b'",
        "#badState grain Box/k3: a stored grain state does not have the program's state type: state.at.y: expected Integer, found the Float 2.5",
        '#badState grain Box/k4: a stored grain state names the class Nope, which this program does not define',
        '#badState grain Box/k5: a stored Point does not have the fields of Point (the field y differs)',
        '#badState grain Box/k6: a stored Point does not have the fields of Point (the field y differs)',
        "#badState grain Box/k7: a stored grain state does not decode: Expecting ',' delimiter: line 1 column 6 (char 5)",
        '#badState grain Box/k8: a stored grain state is a Maybe, not an instance of Box',
        "#badState grain Box/k9: a stored grain state does not have the program's state type: state.contents: expected Integer, found the Character $c",
        'Box(contents: 7, at: Point(x: 1, y: 2), tags: #(#z))',
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_concurrent_callers_count_every_call_once_and_never_overlap(tmp_path, seed):
    """Callers race idle deactivations (1-8 ms idle, random pauses): every increment is counted
    exactly once, each caller sees its own calls in order, and no id is ever active twice."""
    rnd = random.Random(seed)
    idle = rnd.randint(1, 8)
    pauses = [rnd.randint(0, 9) for _ in range(30)]
    rc, out, err = run(COUNTER + f"""
Object subclass: #Seen fields: (last ok).
store := MapStore start.
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }}) store: store
    options: (GrainOptions default with: {{ idle: {idle} }}).
main := Actor self.
ids := #('a' 'b' 'c' 'd' 'e' 'f').
pauses := #({' '.join(map(str, pauses))}).
1 to: 30 do: [:i | Actor spawn: [:me |
    id := ids at: i \\\\ 6 + 1.
    seen := (1 to: 20) inject: (Seen fields: {{ last: 0. ok: true }}) into: [:s :k |
        (k \\\\ 5 = 0) ifTrue: [Actor sleep: (pauses at: i)].
        n := (counters id: id) increment n.
        s with: {{ last: n. ok: s ok and: [n > s last] }}].
    main ! seen ok]].
ordered := (1 to: 30) inject: true into: [:acc :i | main receive: {{ Boolean -> [:b | acc and: [b]] }}].
ordered printNl.
(ids inject: 0 into: [:acc :x | acc + (counters id: x) n]) printNl.
(store stats overlaps) printNl.
(store stats acquired >= 6) printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "true\n600\n0\ntrue\n"


@pytest.mark.parametrize("mode", MODES)
def test_a_state_that_cannot_be_stored_fails_the_call(tmp_path, mode):
    rc, out, err = run("""
Import module: #Grain.
Object subclass: #Box fields: (v).
Box >> put: x = self with: { v: Maybe some: x }.
boxes := Grain for: Box initial: (Box fields: { v: Maybe none }).
(Error try: [(boxes id: 'a') put: [:x | x]. 'stored'] onError: [:e | e message]) displayNl.
((boxes id: 'a') v) printNl.
""", tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out == "a grain state cannot hold a Block\nMaybe none\n"


@pytest.mark.parametrize("mode", MODES)
def test_intervals_actors_and_grain_references_are_not_stored(tmp_path, mode):
    rc, out, err = run("""
Import module: #Grain.
Object subclass: #Box fields: (v).
Box >> put: x = self with: { v: Maybe some: x }.
Object subclass: #Try.
Try class >> fresh = Grain for: Box initial: (Box fields: { v: Maybe none }) store: MemoryGrainStore start.
Try class >> store: x = (Error try: [(Try fresh id: 'k') put: x. 'stored'] onError: [:e | e message]) displayNl.
Try store: (1 to: 3).
Try store: (Actor spawn: [:me | nil]).
Try store: (Try fresh id: 'x').
Try store: 3.
""", tmp_path, mode=mode)
    assert (rc, err) == (0, "")
    assert out == ("a grain state cannot hold an Interval\na grain state cannot hold an Actor\n"
                   "a grain state cannot hold a GrainRef\nstored\n")


def test_the_reference_answers_the_universal_selectors_itself(tmp_path):
    rc, out, err = run(COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 }).
a := counters id: 'a'.
a label printNl.
(a = a) printNl.
a printString printNl.
{ a } printNl.
(counters id: 'x') increment; increment.
(counters id: 'x') n printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "'Counter/a'\ntrue\n'GrainRef(Counter/a)'\n#(GrainRef(Counter/a))\n2\n"


def test_a_parameter_used_only_for_grain_calls_takes_a_grain_reference(tmp_path):
    """docs/types.md: a parameter whose selectors only a proxied class has waits for its type."""
    rc, out, err = run(COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 }).
twice := [:r | r increment. r increment].
(twice value: (counters id: 'a')) n printNl.
(twice value: (Counter fields: { n: 5 })) n printNl.
""", tmp_path)
    assert (rc, out, err) == (0, "2\n6\n", "")   # a Counter is a value: both sends answer 6


def test_a_caller_waits_at_most_call_timeout(tmp_path):
    rc, out, err = run(COUNTER + """
Counter >> slow = (Actor sleep: 400. self with: { n: self n + 1 }).
counters := Grain for: Counter initial: (Counter fields: { n: 0 })
    options: (GrainOptions default with: { callTimeout: 100 }).
(Error try: [(counters id: 'a') slow printString] onError: [:e | e message]) displayNl.
Actor sleep: 500.
(counters id: 'a') n printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "await: timed out after 100 ms\n1\n"   # the call ran all the same


def test_many_ids_deactivate_reload_and_the_memory_is_reused(tmp_path):
    """Three rounds of 1,000 fresh ids, each touched once with a 1 s idle timeout: every owner
    deactivates (the server reports no active id) and the memory they took is reused: the third
    round leaves the RSS within a quarter of the first round's growth (plus one 1 MiB arena of
    CPython's allocator) of where the second left it (the RSS settles instead of growing with every
    activation). Then the first round's states
    reload correctly. The store
    is in memory (its map of small states is all that grows, by design) so the test stays fast; the
    100,000-id run, with each store, is bench/grains/idle_rss.py."""
    p = LPProcess(COUNTER + """
Object subclass: #Wait.
Wait class >> idle: counters = counters active = 0 ifTrue: [nil] ifFalse: [Actor sleep: 100. Wait idle: counters].
counters := Grain for: Counter initial: (Counter fields: { n: 0 }) store: MemoryGrainStore start
    options: (GrainOptions default with: { idle: 1000 }).
main := Actor self.
touch := [:round :k | 1 to: 10 do: [:w | Actor spawn: [:me |
        ok := (w to: 1000 by: 10) inject: true into: [:acc :i |
            (k value: (counters id: round printString , '-' , i printString)) and: [acc]].
        main ! ok]].
    (1 to: 10) inject: true into: [:acc :w | main receive: { Boolean -> [:b | b and: [acc]] }]].
'baseline' displayNl. Actor sleep: 300.
1 to: 3 do: [:round |
    ok := touch value: round value: [:g | g increment n = 1].
    Wait idle: counters.
    Actor sleep: 300.
    ('idle ' , ok printString) displayNl].
('reloaded ' , (touch value: 1 value: [:g | g n = 1]) printString) displayNl.
""", workdir(tmp_path), cwd=tmp_path)
    rss = []
    with p:
        assert p.readline(timeout=180) == "baseline"
        rss.append(rss_kb(p.proc.pid))
        for _ in range(3):
            assert p.readline(timeout=180) == "idle true"
            rss.append(rss_kb(p.proc.pid))
        assert p.readline(timeout=180) == "reloaded true"
        rc, _, err = p.finish()
    assert (rc, err) == (0, "")
    first = rss[1] - rss[0]
    # the interpreter's allocator takes memory from the system in 1 MiB arenas: one more may come
    assert rss[3] - rss[2] < first / 4 + 1024, rss
    print("RSS (kB) at baseline and after each round's deactivation:", rss)


def rss_kb(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
