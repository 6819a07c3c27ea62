"""cffi builder for lp.runtime._lprt: the C runtime plus its Python callbacks.

setup.py names this module in cffi_modules; `python runtime/build_lprt.py`
builds the extension in place for development.
"""
import os
import re
import sys

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["rt.c", "sched.c", "det.c", "deque.c", "mailbox.c", "wait.c", "timer.c", "poller.c",
           "resolver.c", "links.c", "fiber.c", "snapshot.c", "deadlock.c", "net_sock.c", "net_conn.c",
           "net_fiber.c", "net_http.c", "net_udp.c", "net_tls.c",
           "net_ws.c", "workers.c", "jobs.c", "sql.c", "reclaim.c", "openssl_load.c", "fiber_x86_64.S"]


def _allow_assembly_sources():
    # distutils refuses unknown suffixes; gcc compiles preprocessed assembly itself.
    mods = []
    try:
        from setuptools._distutils import unixccompiler
        mods.append(unixccompiler)
    except ImportError:
        pass
    try:
        from distutils import unixccompiler as legacy  # noqa: F401 (older setuptools)
        mods.append(legacy)
    except ImportError:
        pass
    for m in mods:
        if ".S" not in m.UnixCCompiler.src_extensions:
            m.UnixCCompiler.src_extensions.append(".S")


_allow_assembly_sources()

def header_cdef(path=os.path.join(HERE, "lprt.h")):
    """lprt.h as cffi declarations: the header is the single source of the API's types."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"#ifdef __cplusplus\n.*?#endif\n", "", text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))


CDEF = header_cdef() + r"""
/* Python side (binding.py) */
extern "Python" int lprt_py_step(lprt_actor *self, void *userdata);
extern "Python" void lprt_py_retain(void *value, void *ud);
extern "Python" void lprt_py_release(void *value, void *ud);
extern "Python" void lprt_py_on_exit(lprt_actor *a, int reason_kind, void *reason_value,
                                     void *actor_userdata, void *ud);
extern "Python" void lprt_py_unobserved(lprt_actor *a, int reason_kind, void *reason_value, void *ud);
extern "Python" void lprt_py_deadlock(lprt *rt, void *ud);

/* helpers for the binding */
int lprt_py_send(lprt_actor *to, uintptr_t key);
uintptr_t lprt_py_msg_key(lprt_msg *m);
uint64_t lprt_py_msg_seq(lprt_msg *m);
int lprt_py_msg_kind(lprt_msg *m);
uintptr_t lprt_py_take_user(lprt *rt, lprt_actor *self, lprt_msg *m);
lprt_msg *lprt_py_scan(lprt_actor *self, lprt_msg *m, uint64_t after_seq, uint64_t *out);
lprt_actor *lprt_py_create(lprt *rt, lprt_step_fn fn, void *ud, int start, uint64_t *id);
int lprt_py_addrinfo_next(struct addrinfo **cursor, int *family, char *host, size_t hostlen, int *port);
void lprt_py_freeaddrinfo(struct addrinfo *ai);
const char *lprt_py_gai_strerror(int status);
"""

HELPERS = r"""
#include "lprt.h"
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>

/* Value handles are small integers (keys of the binding's table), passed as uintptr_t so
   Python ints cross without casts. */
static int lprt_py_send(lprt_actor *to, uintptr_t key) { return lprt_send(to, (void *)key); }
static uintptr_t lprt_py_msg_key(lprt_msg *m) { return m->kind == LPRT_MSG_USER ? (uintptr_t)m->value : 0; }
static uint64_t lprt_py_msg_seq(lprt_msg *m) { return m->seq; }
static int lprt_py_msg_kind(lprt_msg *m) { return m->kind; }

/* Take a user message and free its entry, handing the value's reference to the caller
   (the binding drops it in Python, sparing a release callback). */
static uintptr_t lprt_py_take_user(lprt *rt, lprt_actor *self, lprt_msg *m) {
    uintptr_t key = (uintptr_t)m->value;
    m->value = NULL;
    lprt_mbox_take(self, m);
    lprt_msg_free(rt, m);
    return key;
}

/* One step of a mailbox scan in one call: the entry after m (or, when m is NULL, the first
   entry after after_seq, or the first of all), with out[0] = its seq and out[1] = its value key
   (0 for Down / Exit entries). */
static lprt_msg *lprt_py_scan(lprt_actor *self, lprt_msg *m, uint64_t after_seq, uint64_t *out) {
    lprt_msg *n = m ? lprt_mbox_next(self, m) : (after_seq ? lprt_mbox_after(self, after_seq) : lprt_mbox_first(self));
    if (n) {
        out[0] = n->seq;
        out[1] = n->kind == LPRT_MSG_USER ? (uint64_t)(uintptr_t)n->value : 0;
    }
    return n;
}

/* Create a step actor holding one extra reference (for the binding's two handles), report its
   id, and start it when asked: one crossing instead of four. */
static lprt_actor *lprt_py_create(lprt *rt, lprt_step_fn fn, void *ud, int start, uint64_t *id) {
    lprt_actor *a = lprt_create_step(rt, fn, ud);
    if (!a) return NULL;
    lprt_retain(a);
    *id = lprt_id(a);
    if (start) lprt_start(a);
    return a;
}

/* Walk an addrinfo list: fills family/host/port of *cursor and advances it. */
static int lprt_py_addrinfo_next(struct addrinfo **cursor, int *family, char *host, size_t hostlen, int *port) {
    struct addrinfo *ai = *cursor;
    if (!ai) return 0;
    *family = ai->ai_family;
    *port = 0;
    host[0] = 0;
    if (ai->ai_family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)ai->ai_addr;
        inet_ntop(AF_INET, &s->sin_addr, host, (socklen_t)hostlen);
        *port = ntohs(s->sin_port);
    } else if (ai->ai_family == AF_INET6) {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)ai->ai_addr;
        inet_ntop(AF_INET6, &s->sin6_addr, host, (socklen_t)hostlen);
        *port = ntohs(s->sin6_port);
    }
    *cursor = ai->ai_next;
    return 1;
}

static void lprt_py_freeaddrinfo(struct addrinfo *ai) { if (ai) freeaddrinfo(ai); }
static const char *lprt_py_gai_strerror(int status) { return gai_strerror(status); }
"""


def make_builder(absolute=False):
    # setuptools wants paths relative to the project root (its cwd);
    # a direct ffi.compile() runs the compiler from a temporary directory.
    def path(p):
        full = os.path.join(HERE, p)
        return full if absolute else os.path.relpath(full)

    b = FFI()
    b.cdef(CDEF)
    b.set_source(
        "lp.runtime._lprt",
        HELPERS,
        sources=[path(s) for s in SOURCES],
        include_dirs=[path(".")],
        define_macros=[("_GNU_SOURCE", None)],
        extra_compile_args=["-O2", "-g", "-Wno-unused-parameter"],
        libraries=["pthread", "sqlite3"],   # SQLite: libsqlite3-dev; OpenSSL (TLS) is loaded when first used (net_tls.c): libssl-dev
    )
    return b


ffibuilder = make_builder()

if __name__ == "__main__":
    # development build into a scratch dir: python runtime/build_lprt.py [tmpdir]
    import tempfile
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="lprt_build_")
    lib = make_builder(absolute=True).compile(tmpdir=out, verbose=False)
    sys.stdout.write(lib + "\n")
