/* openssl_load.c — OpenSSL is loaded (dlopen) the first time TLS or SHA-256 is used, not linked:
 * relocating libcrypto alone touches about 1.5 MB of pages at start, which a program that never
 * uses either would pay in resident memory (docs/observer.md, "Measured"). */
#include "openssl_load.h"

#include <dlfcn.h>
#include <openssl/opensslv.h>
#include <pthread.h>
#include <stdio.h>

#define OPENSSL_STR(x) #x
#define OPENSSL_XSTR(x) OPENSSL_STR(x)
#define LIBSSL "libssl.so." OPENSSL_XSTR(OPENSSL_SHLIB_VERSION)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *handle;
static char why[200];

static void load(void) {
    handle = dlopen(LIBSSL, RTLD_NOW | RTLD_LOCAL);
    if (!handle) snprintf(why, sizeof why, "OpenSSL is not available: %s", dlerror());
}

void *lprt__openssl(char *err, size_t cap) {
    pthread_once(&once, load);
    if (!handle && err) snprintf(err, cap, "%s", why);
    return handle;
}
