#include "session_ca.h"

#include <errno.h>
#include <string.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "base/msg.h"

/* An hour back for clocks a little behind; a week ahead, far past any session. */
#define VALID_FROM_S (-3600L)
#define VALID_FOR_S (7L * 24 * 3600)

static void x509_freep(X509 **x) { X509_free(*x); }
static void pkey_freep(EVP_PKEY **k) { EVP_PKEY_free(*k); }

static int ssl_fail(as_error_t **err, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "unknown error";
    if (e != 0)
        ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    return as_error_make(err, EIO, "making the session's TLS certificates: %s: %s", what, buf);
}

static int add_ext(X509 *issuer, X509 *x, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_nconf_nid(NULL, &ctx, nid, value);
    if (ext == NULL)
        return -1;
    int ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

/* "DNS:a,DNS:b" (prefix "DNS:") or "permitted;DNS:a,..." */
static char *name_list(const char *const *names, size_t n, const char *prefix)
{
    msg_t m;
    as_error_t *e = NULL;
    if (msg_open(&m, &e) < 0) {
        as_error_free(&e);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        fprintf(m.f, "%s%s%s", i > 0 ? "," : "", prefix, names[i]);
    char *text = NULL;
    if (msg_close(&m, &text, &e) < 0)
        as_error_free(&e);
    return text;
}

static X509 *new_cert(EVP_PKEY *key, const char *cn)
{
    X509 *x = X509_new();
    unsigned char serial[16];
    BIGNUM *bn = NULL;
    if (x == NULL || RAND_bytes(serial, sizeof(serial)) != 1)
        goto fail;
    serial[0] &= 0x7f;                     /* positive */
    bn = BN_bin2bn(serial, sizeof(serial), NULL);
    if (bn == NULL || BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) == NULL ||
        X509_set_version(x, X509_VERSION_3) != 1 ||
        X509_gmtime_adj(X509_getm_notBefore(x), VALID_FROM_S) == NULL ||
        X509_gmtime_adj(X509_getm_notAfter(x), VALID_FOR_S) == NULL ||
        X509_set_pubkey(x, key) != 1 ||
        X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                                   (const unsigned char *)cn, -1, -1, 0) != 1)
        goto fail;
    BN_free(bn);
    return x;
fail:
    BN_free(bn);
    X509_free(x);
    return NULL;
}

static char *cert_pem(X509 *x)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *data, *text = NULL;
    long len;
    if (b != NULL && PEM_write_bio_X509(b, x) == 1 && (len = BIO_get_mem_data(b, &data)) > 0)
        text = strndup(data, (size_t)len);
    BIO_free(b);
    return text;
}

static char *key_pem(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_secmem());
    char *data, *text = NULL;
    long len;
    if (b != NULL && PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL) == 1 &&
        (len = BIO_get_mem_data(b, &data)) > 0)
        text = strndup(data, (size_t)len);
    BIO_free(b);
    return text;
}

static int make_ca(const char *const *names, size_t n, EVP_PKEY *ca_key, X509 **ret, as_error_t **err)
{
    _cleanup_(x509_freep) X509 *ca = new_cert(ca_key, "agent-sandbox session CA");
    _cleanup_free_ char *permitted = name_list(names, n, "permitted;DNS:");
    if (ca == NULL || permitted == NULL ||
        X509_set_issuer_name(ca, X509_get_subject_name(ca)) != 1)
        return ssl_fail(err, "the session CA");
    _cleanup_free_ char *constraints = NULL;
    if (asprintf(&constraints, "critical,%s", permitted) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    /* pathlen 0 and name constraints: it can vouch only for these names */
    if (add_ext(ca, ca, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") < 0 ||
        add_ext(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign") < 0 ||
        add_ext(ca, ca, NID_subject_key_identifier, "hash") < 0 ||
        add_ext(ca, ca, NID_name_constraints, constraints) < 0 ||
        X509_sign(ca, ca_key, EVP_sha256()) == 0)
        return ssl_fail(err, "the session CA");
    *ret = steal_pointer(&ca);
    return 0;
}

static int make_leaf(const char *const *names, size_t n, X509 *ca, EVP_PKEY *ca_key,
                     EVP_PKEY *key, X509 **ret, as_error_t **err)
{
    _cleanup_(x509_freep) X509 *x = new_cert(key, names[0]);
    _cleanup_free_ char *sans = name_list(names, n, "DNS:");
    if (x == NULL || sans == NULL || X509_set_issuer_name(x, X509_get_subject_name(ca)) != 1 ||
        add_ext(ca, x, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
        add_ext(ca, x, NID_key_usage, "critical,digitalSignature") < 0 ||
        add_ext(ca, x, NID_ext_key_usage, "serverAuth") < 0 ||
        add_ext(ca, x, NID_authority_key_identifier, "keyid:always") < 0 ||
        add_ext(ca, x, NID_subject_alt_name, sans) < 0 ||
        X509_sign(x, ca_key, EVP_sha256()) == 0)
        return ssl_fail(err, "the router's certificate");
    *ret = steal_pointer(&x);
    return 0;
}

int session_tls_make(const char *const *names, size_t n, session_tls_t *ret, as_error_t **err)
{
    if (n == 0)
        return as_error_make(err, EINVAL, "making the session's TLS certificates: no names");
    _cleanup_(pkey_freep) EVP_PKEY *ca_key = EVP_EC_gen("P-256");
    _cleanup_(pkey_freep) EVP_PKEY *key = EVP_EC_gen("P-256");
    if (ca_key == NULL || key == NULL)
        return ssl_fail(err, "a key");
    _cleanup_(x509_freep) X509 *ca = NULL;
    _cleanup_(x509_freep) X509 *leaf = NULL;
    int r;
    if ((r = make_ca(names, n, ca_key, &ca, err)) < 0 ||
        (r = make_leaf(names, n, ca, ca_key, key, &leaf, err)) < 0)
        return r;
    session_tls_t t = { .ca_pem = cert_pem(ca), .cert_pem = cert_pem(leaf), .key_pem = key_pem(key) };
    if (t.ca_pem == NULL || t.cert_pem == NULL || t.key_pem == NULL) {
        session_tls_clear(&t);
        return ssl_fail(err, "writing PEM");
    }
    *ret = t;
    return 0;
}

void session_tls_clear(session_tls_t *t)
{
    if (t == NULL)
        return;
    if (t->key_pem != NULL)
        OPENSSL_cleanse(t->key_pem, strlen(t->key_pem));
    free(t->ca_pem);
    free(t->cert_pem);
    free(t->key_pem);
    *t = (session_tls_t){0};
}
