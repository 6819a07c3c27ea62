"""A program that declares the network library's error classes itself (LANGUAGE.md shows
`Error subclass: #Timeout`): a declaration in the library's shape names the library's class, so
the program's raises and handlers and the sockets' timeouts are one class; another shape is a
clear error (lp/classdecls.py, docs/language.md "Errors")."""
from __future__ import annotations

import pytest

from tests.interp.helpers import run_source
from tests.net.helpers import MODES, run_program

OWN = """
Error subclass: #Timeout.
Timeout subclass: #ReadTimeout.
Timeout >> late = 'late: ' , self message.
(Timeout try: [Timeout raise: 'mine'] onError: [:e | e late]) displayNl.
(Timeout try: [ReadTimeout raise: 'sub'] onError: [:e | e class name , ' ' , e message]) displayNl.
(Error try: [Timeout try: [Error raise: 'plain'] onError: [:e | 'wrong']] onError: [:e | 'outer ' , e message]) displayNl.
"""


def test_a_program_declaring_its_own_timeout_runs(tmp_path):
    status, out, err = run_source(OWN, tmp_path)
    assert (status, err) == (0, ""), err
    assert out == "late: mine\nReadTimeout sub\nouter plain\n"


@pytest.mark.parametrize("mode", MODES)
def test_its_timeout_is_the_network_librarys(tmp_path, mode):
    status, out, err = run_program(OWN + """
Import module: #Http.
server := TCP listenHost: '127.0.0.1' port: 0.
sock := TCP connect: '127.0.0.1' port: server port timeout: 1000.
(Timeout try: [(sock readLine: 20) printString] onError: [:e | e late]) displayNl.
(ReadTimeout try: [(sock readLine: 20) printString] onError: [:e | 'wrong']) displayNl.
""", tmp_path, mode)
    assert status == 1
    assert out == "late: mine\nReadTimeout sub\nouter plain\nlate: readLine: timed out after 20 ms\n"
    assert "Timeout: readLine: timed out after 20 ms" in err    # a subclass handler lets it through


def test_a_network_error_class_declared_in_its_shape(tmp_path):
    status, out, err = run_source("""
NetworkError subclass: #ConnectionRefused.
(NetworkError try: [(TCP connect: '127.0.0.1' port: 9 timeout: 1000) printString] onError: [:e | e class name]) displayNl.
(ConnectionRefused try: [ConnectionRefused raise: 'own'] onError: [:e | e message]) displayNl.
""", tmp_path)
    assert (status, err, out) == (0, "", "ConnectionRefused\nown\n")


def test_another_shape_is_an_error_naming_the_librarys(tmp_path):
    status, out, err = run_source("Error subclass: #Timeout fields: (ms).\n", tmp_path)
    assert status == 1
    assert "`Timeout` is the network library's error class `Error subclass: #Timeout`" in err
    assert "write `Error subclass: #Timeout.`, or choose another name, like `MyTimeout`" in err
    status, out, err = run_source("Error subclass: #ConnectionReset.\n", tmp_path)
    assert status == 1 and "`NetworkError subclass: #ConnectionReset`" in err


def test_declared_twice_is_a_duplicate(tmp_path):
    status, out, err = run_source("Error subclass: #Timeout.\nError subclass: #Timeout.\n", tmp_path)
    assert status == 1 and "The class `Timeout` is declared twice." in err


def test_the_interpreter_alone_agrees(tmp_path):
    status, out, err = run_source(OWN, tmp_path, check=False)
    assert (status, err, out) == (0, "", "late: mine\nReadTimeout sub\nouter plain\n")
    status, out, err = run_source("Error subclass: #Timeout fields: (ms).\n", tmp_path, check=False)
    assert status == 1 and "network library's error class" in err
