"""The checker's promises about grains and Remote proxies (docs/grains.md "Typed", "What a stored state
is checked for"; docs/network.md "Typed"), from hostile report 3: a state never changes its type, a
stored state of another shape never activates, the machinery's casts are internal to stdlib/grain.lp."""
from __future__ import annotations

from tests.grains.helpers import check, run

BOX = """
Import module: #Grain.
Object subclass: #Box fields: (contents).
Box >> put: x = self with: { contents: x }.
Box >> get = self contents.
"""


def test_a_call_answering_a_state_of_another_type_is_a_compile_error(tmp_path):
    rc, err = check(BOX + """
boxes := Grain for: Box initial: (Box fields: { contents: 1 }).
a := boxes id: 'a'.
(a put: 'str') printNl.
""", tmp_path)
    assert rc == 1
    assert "prog.lp:9:2\n" in err
    assert "which becomes the grain's new state: the answer is `Box[String]`, but the grain's state is " \
           "`Box[Integer]`" in err


def test_the_rule_holds_through_a_method_taking_the_reference(tmp_path):
    rc, err = check(BOX + """
Object subclass: #U.
U class >> via: g put: v = g put: v.
boxes := Grain for: Box initial: (Box fields: { contents: 1 }).
a := boxes id: 'a'.
(U via: a put: 2) printNl.
(U via: a put: 'no') printNl.
""", tmp_path)
    assert rc == 1
    assert "prog.lp:12:16\n" in err and "`U class >> via:put:` needs `Integer`" in err
    assert "prog.lp:11:" not in err


def test_the_rule_holds_through_a_method_taking_the_server(tmp_path):
    rc, err = check(BOX + """
Object subclass: #U.
U class >> in: g put: v = ((g id: 'k') put: v) get.
ints := Grain for: Box initial: (Box fields: { contents: 1 }).
(U in: ints put: 'no') printNl.
""", tmp_path)
    assert rc == 1
    assert "prog.lp:10:18\n" in err and "`U class >> in:put:` needs `Integer`" in err


def test_a_method_taking_servers_is_polymorphic_in_their_states(tmp_path):
    rc, out, err = run(BOX + """
Object subclass: #U.
U class >> in: g put: v = ((g id: 'k') put: v) get.
U class >> get: g = (g id: 'k') get.
ints := Grain for: Box initial: (Box fields: { contents: 1 }) store: MemoryGrainStore start.
strs := Grain for: Box initial: (Box fields: { contents: 'a' }) store: MemoryGrainStore start.
(U in: ints put: 2) printNl.
(U in: strs put: 'b') printNl.
((U get: ints) + 1) printNl.
(U get: strs) size printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "2\n'b'\n3\n1\n"


def test_servers_made_in_a_method_hold_different_types(tmp_path):
    rc, out, err = run(BOX + """
Object subclass: #U.
U class >> fresh = Grain for: Box initial: (Box fields: { contents: Maybe none }) store: MemoryGrainStore start.
U class >> in: g put: v = ((g id: 'k') put: (Maybe some: v)) get.
(U in: U fresh put: 1) printNl.
(U in: U fresh put: 'a') printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "Maybe some: 1\nMaybe some: 'a'\n"


def test_two_servers_of_one_generic_class_hold_different_types(tmp_path):
    rc, out, err = run(BOX + """
"two servers with stores of their own (on one store they would be the same grains)"
s1 := Grain for: Box initial: (Box fields: { contents: 1 }) store: MemoryGrainStore start.
s2 := Grain for: Box initial: (Box fields: { contents: 'x' }) store: MemoryGrainStore start.
((s1 id: 'a') put: 41) get printNl.
((s1 id: 'a') get + 1) printNl.
((s2 id: 'a') get , '!') printNl.
""", tmp_path)
    assert (rc, out, err) == (0, "41\n42\n'x!'\n", "")


def test_an_instance_of_a_subclass_becomes_the_state(tmp_path):
    rc, out, err = run("""
Import module: #Grain.
Object subclass: #Acct fields: (bal).
Acct subclass: #Frozen.
Acct >> deposit: k = self with: { bal: self bal + k }.
Acct >> freeze = Frozen fields: { bal: self bal }.
Acct >> thaw = Acct fields: { bal: self bal }.
Frozen >> deposit: k = Error raise: 'frozen'.
a := (Grain for: Acct initial: (Acct fields: { bal: 0 })) id: 'x'.
(a deposit: 5) bal printNl.
a freeze printNl.
(Error try: [(a deposit: 5) bal] onError: [:e | e messageText displayNl. -1]) printNl.
a thaw printNl.
(a deposit: 1) printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "5\nFrozen(bal: 5)\nfrozen\n-1\nAcct(bal: 5)\nAcct(bal: 6)\n"


def test_a_stored_state_of_another_shape_does_not_activate(tmp_path):
    """Another version of the program stored a Box[String] where this one keeps a Box[Integer]."""
    data = tmp_path / "data"
    durable = BOX.replace("Import module: #Grain.", "Import module: #Durable.")
    rc, out, err = run(durable + f"""
boxes := Grain for: Box initial: (Box fields: {{ contents: 'text' }}) dir: '{data}'.
((boxes id: 'a') put: 'stored') get printNl.
""", tmp_path)
    assert (rc, out, err) == (0, "'stored'\n", "")
    rc, out, err = run(durable + f"""
boxes := Grain for: Box initial: (Box fields: {{ contents: 0 }}) dir: '{data}'.
(GrainError try: [(boxes id: 'a') get printString] onError: [:e | e kind printString , ' ' , e message]) displayNl.
((boxes id: 'b') put: 7) get printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == ("#badState grain Box/a: a stored grain state does not have the program's state type: "
                   "state.contents: expected Integer, found the String 'stored'\n7\n")


def test_the_grain_machinerys_casts_are_internal(tmp_path):
    for send in ("GrainRef label: 'fake' like: (Box fields: { contents: 1 }) on: [:sel :args | 'no']",
                 "GrainRef decodeState: '{}' like: (Box fields: { contents: 1 }) shape: ''",
                 "GrainRef shape: 's' of: (Box fields: { contents: 1 })",
                 "GrainRef shapeOf: (Box fields: { contents: 1 })",
                 "GrainRef asState: 'x' like: (Box fields: { contents: 1 })"):
        rc, err = check(BOX + f"x := {send}.\n", tmp_path)
        assert rc == 1, send
        assert "-- INTERNAL SELECTOR --" in err and "is internal to stdlib/grain.lp" in err, err
        assert "`Grain for: C initial: state`" in err


REMOTE = """
Import module: #Remote.
Object subclass: #Box fields: (contents).
Box >> get = self contents.
Object subclass: #Num fields: (n).
Num >> get = self n.
server := RemoteServer startHost: '127.0.0.1' port: 0.
url := 'http://127.0.0.1:' , server port printString , '/rpc'.
"""


def test_registering_an_object_under_another_class_is_a_compile_error(tmp_path):
    rc, err = check(REMOTE + """
server register: (Box fields: { contents: 'str' }) for: #Num id: 'c'.
server register: (Num fields: { n: 3 }) for: #Num id: 'd'.
((Remote at: url for: #Num id: 'c') get + 1) printNl.
""", tmp_path)
    assert rc == 1
    assert "prog.lp:10:19\n" in err and "This object is `Box[String]`, but it is registered as `#Num`" in err
    assert err.count("-- TYPE MISMATCH --") == 1


def test_a_generic_class_behind_a_proxy_has_dynamic_parameters(tmp_path):
    rc, err = check(REMOTE + """
r := Remote at: url for: #Box id: 'b'.
r nope.
""", tmp_path)
    assert rc == 1
    assert "The remote `Box[Dynamic]` (`Remote[Box[Dynamic]]`) does not understand `nope`" in err


def test_registering_under_a_computed_class_name_checks_the_class_at_run_time(tmp_path):
    rc, out, err = run(REMOTE + """
server register: (Num fields: { n: 1 }) for: ('Num' , '') asSymbol id: 'ok'.
(Error try: [server register: (Box fields: { contents: 'str' }) for: ('Num' , '') asSymbol id: 'c'. 'no error']
    onError: [:e | e messageText]) displayNl.
((Remote at: url for: #Num id: 'ok') get + 1) printNl.
server stop.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == ("register:for:id: was given Box(contents: 'str'), which is not a Num (an object is served as its "
                   "own class or one it inherits from)\n2\n")


def test_a_grain_starts_only_with_an_instance_of_its_class(tmp_path):
    prog = BOX + """
Object subclass: #Other fields: (contents).
Other >> get = self contents.
"""
    rc, err = check(prog + "g := Grain for: Box initial: (Other fields: { contents: 0 }).\n", tmp_path)
    assert rc == 1
    assert "This initial state is `Other[Integer]`, but the grain class is `Box`" in err
    rc, out, err = run(prog + """
cls := { Box }.
(Error try: [Grain for: cls first initial: (Other fields: { contents: 0 }). 'started'] onError: [:e | e messageText])
    displayNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == ("Grain for:initial: was given Other(contents: 0), which is not a Box (the initial state is an "
                   "instance of the grain class or of a subclass)\n")


def test_references_to_one_grain_are_equal(tmp_path):
    rc, out, err = run(BOX + """
g := Grain for: Box initial: (Box fields: { contents: 0 }).
a := g id: 'a'.
b := g id: 'a'.
{ a = b. a hash = b hash. a = (g id: 'z'). ((Dictionary new at: a put: 1) at: b ifAbsent: [0]) = 1 } printNl.
""", tmp_path)
    assert (rc, out, err) == (0, "#(true true false true)\n", "")


def test_a_method_called_through_a_reference_cannot_receive(tmp_path):
    rc, err = check("""
Import module: #Grain.
Object subclass: #C fields: (n).
C >> grab = (Actor self receive) + 1.
C >> wait = Actor self receive: { Integer -> [:k | k] } after: 10 do: [0].
C >> get = self n.
cs := Grain for: C initial: (C fields: { n: 0 }).
(cs id: 'a') grab printNl.
(cs id: 'a') wait printNl.
(cs id: 'a') get printNl.
""", tmp_path)
    assert rc == 1
    assert err.count("RECEIVE IN A PROXIED CALL") == 2
    assert "prog.lp:4:14\n" in err and "prog.lp:5:35\n" in err and "called through a grain reference" in err


def test_a_method_called_through_a_reference_cannot_send_to_its_own_actor(tmp_path):
    """`Actor self` there is the grain's owner, an actor of the library: a message sent to it (by hand,
    as a reply address, as monitor:'s Down) would stay in its mailbox, or be taken for the library's own."""
    rc, err = check("""
Import module: #Grain.
Object subclass: #C fields: (n).
C >> ping = (Actor self ! #stop. self).
C >> get = self n.
cs := Grain for: C initial: (C fields: { n: 0 }).
(cs id: 'a') ping printNl.
(cs id: 'a') get printNl.
""", tmp_path)
    assert rc == 1
    assert [l for l in err.splitlines() if l.startswith("-- ")] == [l for l in err.splitlines()
                                                                  if l.startswith("-- SEND TO A PROXIED CALL'S ACTOR")]
    assert err.count("SEND TO A PROXIED CALL'S ACTOR") == 1, err
    assert "prog.lp:4:14\n" in err and "called through a grain reference" in err


def test_a_method_sending_to_its_own_actor_is_fine_when_called_directly(tmp_path):
    rc, out, err = run("""
Import module: #Grain.
Object subclass: #C fields: (n).
C >> ping = (Actor self ! #pong. self).
C >> get = self n.
cs := Grain for: C initial: (C fields: { n: 0 }).
(C fields: { n: 1 }) ping n printNl.
Actor self receive: { #pong -> [:m | m printNl] }.
(cs id: 'a') get printNl.
""", tmp_path)
    assert (rc, out, err) == (0, "1\n#pong\n0\n", "")


def test_a_method_called_through_a_remote_proxy_cannot_send_to_its_own_actor(tmp_path):
    rc, err = check("""
Import module: #Remote.
Object subclass: #C fields: (n).
C >> ping = (Actor self ! #stop. self n).
p := Remote at: 'http://127.0.0.1:1/' for: #C id: 'a'.
p ping printNl.
""", tmp_path)
    assert rc == 1
    assert err.count("SEND TO A PROXIED CALL'S ACTOR") == 1 and "prog.lp:4:14\n" in err, err
    assert "called through a remote reference" in err
