/* openssl_load.h — OpenSSL, loaded when first needed instead of linked (openssl_load.c). */
#ifndef LPRT_OPENSSL_LOAD_H
#define LPRT_OPENSSL_LOAD_H
#include <stddef.h>

/* The handle of libssl (which brings libcrypto: dlsym finds both libraries' functions through
 * it), loaded on the first call; NULL, with the reason in err, when it cannot be loaded. */
void *lprt__openssl(char *err, size_t cap);

#endif
