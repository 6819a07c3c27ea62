"""TLS against Python's ssl module with a private CA made in the test (trustme): an LP client
of a Python TLS server, an LP TLS server for a Python client, certificate and host name
verification failures, and the handshake's deadline; under `lp run` and as a binary (`lp build`)."""
from __future__ import annotations

import socket
import ssl
import threading

import pytest

trustme = pytest.importorskip("trustme")

from tests.net.helpers import MODES, LPProcess, python_server, run_program  # noqa: E402


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    ca = trustme.CA()
    cert = ca.issue_cert("localhost", "127.0.0.1")
    ca.cert_pem.write_to_path(str(d / "ca.pem"))
    cert.private_key_pem.write_to_path(str(d / "key.pem"))
    cert.cert_chain_pems[0].write_to_path(str(d / "cert.pem"))
    for pem in cert.cert_chain_pems[1:]:
        pem.write_to_path(str(d / "cert.pem"), append=True)
    return ca, cert, d


def _tls_echo_server(ca, cert):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(ctx)

    def handler(c):
        with ctx.wrap_socket(c, server_side=True) as t:
            f = t.makefile("rb")
            for line in f:
                t.sendall(b"tls " + line)

    return python_server(handler)


@pytest.mark.parametrize("mode", MODES)
def test_lp_client_verifies_and_talks_to_a_python_tls_server(pki, tmp_path, mode):
    ca, cert, d = pki
    port, stop = _tls_echo_server(ca, cert)
    src = f"""
    sock := TCP connect: '127.0.0.1' port: {port} timeout: 5000.
    tls := TLS wrapClient: sock host: 'localhost' caFile: '{d / "ca.pem"}' timeout: 5000.
    (tls == sock) printNl.
    tls write: 'hello', String lf.
    (tls readLine: 5000) printNl.
    """
    try:
        status, out, err = run_program(src, tmp_path, mode)
    finally:
        stop()
    assert (status, err) == (0, ""), err
    assert out.split("\n")[:2] == ["true", "Maybe some: 'tls hello'"]


@pytest.mark.parametrize("mode", MODES)
def test_verification_failures_raise_tls_errors(pki, tmp_path, mode):
    ca, cert, d = pki
    port, stop = _tls_echo_server(ca, cert)
    silent_port, stop2 = python_server(lambda c: threading.Event().wait(10))
    src = f"""
    Object subclass: #T.
    T class >> show: blk = (Error try: [blk value. 'no error'] onError: [:e | e printString]) displayNl.
    T show: [TLS wrapClient: (TCP connect: '127.0.0.1' port: {port} timeout: 5000) host: 'localhost' timeout: 5000].
    T show: [TLS wrapClient: (TCP connect: '127.0.0.1' port: {port} timeout: 5000) host: 'example.com'
                 caFile: '{d / "ca.pem"}' timeout: 5000].
    T show: [TLS wrapClient: (TCP connect: '127.0.0.1' port: {silent_port} timeout: 5000) host: 'localhost'
                 caFile: '{d / "ca.pem"}' timeout: 50].
    T show: [TLS wrapClient: (TCP connect: '127.0.0.1' port: {port} timeout: 5000) host: 'localhost'
                 caFile: '{d / "missing.pem"}' timeout: 5000].
    """
    try:
        status, out, err = run_program(src, tmp_path, mode)
    finally:
        stop(), stop2()
    assert (status, err) == (0, ""), err
    lines = out.split("\n")
    assert lines[0].startswith("TLSError(message: 'TLS wrapClient:host:timeout: with 127.0.0.1:") and \
        "certificate verify failed: unable to get local issuer certificate" in lines[0]
    assert lines[1].startswith("TLSError(") and "certificate verify failed: hostname mismatch" in lines[1]
    assert lines[2] == "Timeout(message: 'TLS wrapClient:host:caFile:timeout: timed out after 50 ms')"
    assert lines[3].startswith("TLSError(message: 'TLS wrapClient:host:caFile:timeout: cannot load the CA file")


@pytest.mark.parametrize("mode", MODES)
def test_lp_tls_server_for_a_python_client(pki, tmp_path, mode):
    ca, cert, d = pki
    src = f"""
    server := TCP listenHost: '127.0.0.1' port: 0.
    server port printNl.
    conn := TLS wrapServer: (server accept: 10000) certFile: '{d / "cert.pem"}' keyFile: '{d / "key.pem"}'
        timeout: 10000.
    (conn readLine: 10000) ifPresent: [:l | conn write: 'secure ', l, String lf] ifAbsent: [].
    (conn readLine: 10000) printNl.
    """
    with LPProcess(src, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        ctx = ssl.create_default_context()
        ca.configure_trust(ctx)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as t:
                t.sendall(b"ping\n")
                answer = t.makefile("rb").readline()
                t.unwrap()
        rc, out, err = lp.finish()
    assert (rc, err) == (0, "")
    assert answer == b"secure ping\n"
    assert out.split("\n")[1] == "Maybe none"     # the client's close_notify is a clean end of stream


@pytest.mark.parametrize("mode", MODES)
def test_https_server_and_client(pki, tmp_path, monkeypatch, mode):
    ca, cert, d = pki
    monkeypatch.setenv("SSL_CERT_FILE", str(d / "ca.pem"))    # OpenSSL's default CAs: the test's CA
    src = f"""
    Import module: #HttpServer.
    Import module: #Http.
    server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: 'secret ', req path]
        certFile: '{d / "cert.pem"}' keyFile: '{d / "key.pem"}'.
    url := 'https://localhost:', server port printString.
    (Http get: url, '/one' timeout: 5000) text printNl.
    (Http get: url, '/two' timeout: 5000) text printNl.
    (Error try: [(Http get: 'http://127.0.0.1:', server port printString, '/plain' timeout: 2000) text]
        onError: [:e | e class printString]) printNl.
    """.replace(" e class printString", " 'refused: ', e messageText")
    status, out, err = run_program(src, tmp_path, mode)
    assert (status, err) == (0, ""), err
    lines = out.split("\n")
    assert lines[:2] == ["'secret /one'", "'secret /two'"]
    assert lines[2].startswith("'refused: ")     # plain HTTP to an HTTPS port gets no HTTP answer


@pytest.mark.parametrize("mode", MODES)
def test_python_client_of_the_lp_https_server(pki, tmp_path, mode):
    ca, cert, d = pki
    src = f"""
    Import module: #HttpServer.
    server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: 'over tls']
        certFile: '{d / "cert.pem"}' keyFile: '{d / "key.pem"}'.
    server port printNl.
    Actor self receive: {{ #never -> [] }} after: 30000 do: [].
    """
    import urllib.request
    with LPProcess(src, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        ctx = ssl.create_default_context()
        ca.configure_trust(ctx)
        with urllib.request.urlopen(f"https://localhost:{port}/", context=ctx, timeout=10) as r:
            assert r.read() == b"over tls"


@pytest.mark.parametrize("mode", MODES)
def test_a_plain_server_fails_the_handshake_and_the_socket_is_not_wrapped_twice(tmp_path, mode):
    status, out, err = run_program("""
    l := TCP listenHost: '127.0.0.1' port: 0.
    plain := Actor spawn: [:me | c := l accept: 5000. c write: 'HTTP/1.1 400 Bad Request', String crlf, String crlf].
    s := TCP connect: '127.0.0.1' port: l port timeout: 1000.
    (Error try: [TLS wrapClient: s host: 'localhost' timeout: 2000. 'ok'] onError: [:e | e class name]) displayNl.
    (Error try: [TLS wrapClient: s host: 'localhost' timeout: 2000. 'ok'] onError: [:e | e message]) displayNl.
    """, tmp_path, mode)
    assert (status, err) == (0, ""), err
    assert out == ("TLSError\nTLS wrapClient:host:timeout: the socket is already TLS (a handshake was begun on "
                   "it)\n")
