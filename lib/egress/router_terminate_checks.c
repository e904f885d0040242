/* The request checks of terminated names (docs/secrets.md): one nginx map
 * per question, each "" when the answer is fine, else why the request is
 * refused (the 403's text). Every check reads the request as the client
 * sent it, which is what the upstream gets: $request_uri, every copy of a
 * header ($http_NAME joins them, nginx 1.23 and later), and the header
 * lines themselves (router-image/njs/, by njs: nginx has no variable that
 * holds every header). tests/unit/test_router_query.c runs these maps with
 * PCRE2, the library nginx uses. */
#include "router_terminate_int.h"

#include <string.h>

#include "router_credentials.h"
#include "router_protocol.h"
#include "router_query.h"
#include "base/util.h"

/* What asks a server to take a request for another method than its own:
 * refused, in any copy, on a read-only name, and never passed upstream. */
static const char *const override_headers[] = { "x-http-method-override", "x-http-method", "x-method-override" };
static const char *const override_args[] = { "_method" };

/* ---- headers by name ---------------------------------------------------- */

/* Per held header: its value must be the stand-in, once. An absent header
 * stays absent; a second copy of it (joined: "STANDIN, X") or anything
 * else is refused. Per credential header: present at all, in any copy. */
static void put_header_names(FILE *f, const router_terminate_t *t)
{
    for (size_t k = 0; k < t->n_held; k++)
        if (terminate_first_in_place(t, k))
            fprintf(f, "    map $sandbox_held_%zu $sandbox_held_bad_%zu {\n        \"!\" \"%s in %s "
                "carries a value other than the sandbox's stand-in, or more than one copy; \";\n"
                "        default \"\";\n    }\n", k, k, t->held[k].var, t->held[k].header);
    size_t n;
    const cred_name_t *cred = router_cred_headers(&n);
    for (size_t i = 0; i < n; i++) {
        fputs("    map ", f);
        terminate_put_header_var(f, cred[i].name);
        fprintf(f, " $sandbox_cred_%zu {\n        \"\" \"\";\n        default \"a credential in "
                "%s, which no held secret of this name uses; \";\n    }\n", i, cred[i].name);
    }
}

/* ---- header lines by value ---------------------------------------------- */

/* The header lines as sent: "\n", then "name:value\n" for each, every copy,
 * the name in lower case (header-lines.js). When njs fails, the variable
 * is empty: the request is refused, never passed unjudged. */
static void put_header_lines(FILE *f)
{
    fputs("    js_import sandbox_headers from " ROUTER_PROTO_HEADER_LINES_JS ";\n"
          "    js_set $sandbox_header_lines sandbox_headers." ROUTER_PROTO_HEADER_LINES_FN ";\n"
          "    map $sandbox_header_lines $sandbox_lines_unread {\n"
          "        \"~\\n\\z\" \"\";\n"
          "        default \"the router could not read this request's header lines; \";\n    }\n", f);
}

/* A header line of host i, but of the headers its held secrets go in
 * (judged by the stand-in, once, exactly): "\n", its name captured ($1),
 * ":" and the value up to what follows. With names_credential, only a line
 * whose name carries a word of router_cred_words, or a cookie. */
static void put_line(FILE *f, const router_terminate_t *t, size_t i, bool names_credential)
{
    fputs("\\n(?!(?:", f);
    const char *sep = "";
    for (size_t k = 0; k < t->n_held; k++)
        if (strcmp(t->held[k].host, t->hosts[i]) == 0 && terminate_first_in_place(t, k)) {
            fprintf(f, "%s%s", sep, t->held[k].header);
            sep = "|";
        }
    /* "(?:):" passes over a line with an empty name only, which no header has */
    fputs("):)(", f);
    if (names_credential) {
        size_t n;
        const char *const *words = router_cred_words(&n);
        fputs("[^:\\n]*(?:", f);
        for (size_t k = 0; k < n; k++)
            fprintf(f, "%s%s", k > 0 ? "|" : "", words[k]);
        fputs(")[^:\\n]*|cookie", f);
    } else {
        fputs("[^:\\n]*", f);
    }
    fputs("):[^\\n]*", f);
}

/* Per host i: a known vendor's token in any header but the ones its held
 * secrets go in; a credential-shaped value in a header named as a
 * credential place, or a cookie. $1 is the header's name. */
static void put_header_values(FILE *f, const router_terminate_t *t, size_t i)
{
    fprintf(f, "    map $sandbox_header_lines $sandbox_vendor_header_%zu {\n        \"~", i);
    put_line(f, t, i, false);
    router_cred_put_vendor_token(f);
    fputs("\"\n            \"a known vendor's token in the header $1, which no held secret of "
          "this name puts there; \";\n        default \"\";\n    }\n", f);
    fprintf(f, "    map $sandbox_header_lines $sandbox_shaped_header_%zu {\n        \"~", i);
    put_line(f, t, i, true);
    router_cred_put_shaped(f);
    fputs("\"\n            \"a credential-shaped value in the header $1, which no held secret of "
          "this name puts there; \";\n        default \"\";\n    }\n", f);
}

/* ---- the query ---------------------------------------------------------- */

/* The query, judged as the upstream will read it (router_query.h): every
 * argument, its name decoded and compared case-insensitively; a name the
 * router cannot read is refused; a known vendor's token in any value. The
 * override names count on read-only names only. */
static void put_query_checks(FILE *f, const router_terminate_t *t)
{
    fputs("    map $request_uri $sandbox_cred_query {\n", f);
    size_t n;
    const cred_name_t *args = router_cred_args(&n);
    for (size_t i = 0; i < n; i++) {
        fputs("        \"", f);
        router_query_put_name(f, args[i].name);
        fprintf(f, "\"\n            \"a credential in the query argument %s; \";\n", args[i].name);
    }
    fputs("        \"", f);
    router_query_put_unreadable(f);
    fputs("\"\n            \"a query argument whose name the router cannot read as every server "
          "would (a bad %-escape, a control or non-ASCII byte); \";\n        default \"\";\n    }\n", f);
    fputs("    map $request_uri $sandbox_vendor_query {\n        \"~^[^?]*\\?.*", f);
    router_cred_put_vendor_token(f);
    fputs("\"\n            \"a known vendor's token in the query; \";\n        default \"\";\n    }\n", f);
    if (t->n_read_only == 0)
        return;
    fputs("    map $request_uri $sandbox_override_query {\n", f);
    for (size_t i = 0; i < ARRAY_SIZE(override_args); i++) {
        fputs("        \"", f);
        router_query_put_name(f, override_args[i]);
        fprintf(f, "\"\n            \"the rule read-only refuses the method-override argument %s; \";\n",
                override_args[i]);
    }
    fputs("        default \"\";\n    }\n", f);
}

/* A form body (application/x-www-form-urlencoded, in any copy of
 * Content-Type) is where RFC 6750 lets a client put an access_token: on a
 * name with a held secret it is refused, as a credential argument is
 * (rendered when a name holds one). */
static void put_form_check(FILE *f)
{
    fputs("    map $http_content_type $sandbox_form_body {\n"
          "        \"~*application/x-www-form-urlencoded\" \"a form body (application/x-www-form-urlencoded), "
          "which can carry an access_token no held secret of this name uses; \";\n"
          "        default \"\";\n    }\n", f);
}

/* ---- read-only: the git protocol ---------------------------------------- */

/* The rule read-only: GET and HEAD anywhere, without a body; a POST only as
 * git's smart-HTTP fetch (gitprotocol-http(5)): to a path that ends in
 * /git-upload-pack, without a dot segment, %-escape or query, with one
 * Content-Type, application/x-git-upload-pack-request. A forge's API
 * reads no such body: a POST of JSON or a form to .../git-upload-pack (a
 * file of that name, written through the API) is refused. No
 * method-override header or argument. The path is read as sent
 * ($request_uri, what the upstream gets), never decoded. */
static void put_read_only(FILE *f)
{
    fputs("    map \"$request_method $request_uri\" $sandbox_read_only {\n"
          "        \"~^(?:GET|HEAD) \" \"\";\n"
          "        \"~^POST (?!.*/[.][.]?(?:/|\\z))/[A-Za-z0-9._~/+-]*/git-upload-pack\\z\" \"\";\n"
          "        default \"the rule read-only allows only GET, HEAD and git's fetch (POST to "
          ".../git-upload-pack; a push or any other write is refused); \";\n    }\n", f);
    fputs("    map \"$request_method:$http_content_type\" $sandbox_read_only_type {\n"
          "        \"~*^POST:application/x-git-upload-pack-request\\z\" \"\";\n"
          "        \"~^POST:\" \"the rule read-only takes a POST only as git's fetch (one Content-Type: "
          "application/x-git-upload-pack-request); \";\n        default \"\";\n    }\n", f);
    fputs("    map \"$request_method:$http_content_length:$http_transfer_encoding\" $sandbox_read_only_body {\n"
          "        \"~^(?:GET|HEAD):0?:\\z\" \"\";\n"
          "        \"~^(?:GET|HEAD):\" \"the rule read-only refuses a GET or HEAD with a body; \";\n"
          "        default \"\";\n    }\n", f);
    fputs("    map \"", f);
    for (size_t i = 0; i < ARRAY_SIZE(override_headers); i++)
        terminate_put_header_var(f, override_headers[i]);
    fputs("\" $sandbox_read_only_override {\n        \"\" \"\";\n        default \"the rule read-only "
          "refuses a method-override header (X-HTTP-Method-Override, X-HTTP-Method, "
          "X-Method-Override); \";\n    }\n", f);
}

/* ---- per name ------------------------------------------------------------ */

/* The variables that say what is refused about a request to host i. */
static void put_refusal_vars(FILE *f, const router_terminate_t *t, size_t i)
{
    for (size_t k = 0; k < t->n_held; k++)
        if (strcmp(t->held[k].host, t->hosts[i]) == 0 && terminate_first_in_place(t, k))
            fprintf(f, "$sandbox_held_bad_%zu", k);
    size_t n;
    const cred_name_t *cred = router_cred_headers(&n);
    for (size_t c = 0; c < n; c++)
        if (!terminate_host_places(t, i, cred[c].name))
            fprintf(f, "$sandbox_cred_%zu", c);
    fprintf(f, "$sandbox_lines_unread$sandbox_vendor_header_%zu$sandbox_shaped_header_%zu"
            "$sandbox_cred_query$sandbox_vendor_query", i, i);
    if (terminate_holds_secrets(t, t->hosts[i]))
        fputs("$sandbox_form_body", f);
    if (terminate_read_only(t, t->hosts[i]))
        fputs("$sandbox_read_only$sandbox_read_only_type$sandbox_read_only_body"
              "$sandbox_read_only_override$sandbox_override_query", f);
}

/* Everything refused about a request to host i, as one string. */
static void put_refusal(FILE *f, const router_terminate_t *t, size_t i)
{
    put_header_values(f, t, i);
    fputs("    map \"", f);
    put_refusal_vars(f, t, i);
    fprintf(f, "\" $sandbox_refusal_%zu {\n        \"\" \"\";\n        default \"", i);
    put_refusal_vars(f, t, i);
    fputs("\";\n    }\n", f);
}

/* The name the TLS connection was made to (its SNI, in any spelling the
 * stream{} block took for a terminated name), canonical: a request whose
 * Host names another is answered 421, whatever that name is. */
static void put_tls_name(FILE *f, const router_terminate_t *t)
{
    fputs("    map $ssl_server_name $sandbox_tls_name {\n        hostnames;\n", f);
    for (size_t i = 0; i < t->n_hosts; i++)
        fprintf(f, "        %s %s;\n", t->hosts[i], t->hosts[i]);
    fputs("        default \"\";\n    }\n", f);
}

void terminate_put_checks(FILE *f, const router_terminate_t *t)
{
    put_tls_name(f, t);
    put_header_names(f, t);
    put_header_lines(f);
    put_query_checks(f, t);
    if (t->n_held > 0)
        put_form_check(f);
    if (t->n_read_only > 0)
        put_read_only(f);
    for (size_t i = 0; i < t->n_hosts; i++)
        put_refusal(f, t, i);
}

void terminate_put_refusals(FILE *f, const router_terminate_t *t, size_t i)
{
    const char *h = t->hosts[i];
    fprintf(f, "        if ($sandbox_tls_name != \"%s\") {\n"
            "            return 421 \"blocked by agent-sandbox: the Host of this request is not "
            "the name it connected to\\n\";\n        }\n", h);
    fprintf(f, "        if ($sandbox_refusal_%zu) {\n"
            "            return 403 \"blocked by agent-sandbox: this request to %s: "
            "$sandbox_refusal_%zu\\n%s (docs/secrets.md).\\n\";\n        }\n", i, h, i,
            terminate_holds_secrets(t, h) ? "The router holds this name's credentials"
                                          : "Your request rules apply to this name");
}

/* What of the request never goes upstream, whatever the checks said: every
 * copy of a credential header no held secret of host i uses, and on a
 * read-only name every method-override header (a proxy_set_header of a
 * header replaces all the client's copies of it). */
void terminate_put_dropped_headers(FILE *f, const router_terminate_t *t, size_t i)
{
    size_t n;
    const cred_name_t *cred = router_cred_headers(&n);
    for (size_t c = 0; c < n; c++)
        if (!terminate_host_places(t, i, cred[c].name))
            fprintf(f, "            proxy_set_header %s \"\";\n", cred[c].name);
    for (size_t c = 0; terminate_read_only(t, t->hosts[i]) && c < ARRAY_SIZE(override_headers); c++)
        fprintf(f, "            proxy_set_header %s \"\";\n", override_headers[c]);
}
