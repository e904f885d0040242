#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

struct json_gen {
    yajl_gen gen;
    yajl_gen_status status;   /* first non-ok status; later calls are skipped */
};

json_gen_t *json_gen_new(void)
{
    json_gen_t *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return NULL;
    g->gen = yajl_gen_alloc(NULL);
    if (g->gen == NULL) {
        free(g);
        return NULL;
    }
    yajl_gen_config(g->gen, yajl_gen_validate_utf8, 1);
    g->status = yajl_gen_status_ok;
    return g;
}

void json_gen_free(json_gen_t *g)
{
    if (g == NULL)
        return;
    if (g->gen != NULL)
        yajl_gen_free(g->gen);
    free(g);
}

/* yajl keeps emitting after a rejected string, so stop at the first error. */
#define STEP(g, call) do { \
        if ((g) != NULL && (g)->status == yajl_gen_status_ok) \
            (g)->status = (call); \
    } while (0)

void json_obj_open(json_gen_t *g)  { STEP(g, yajl_gen_map_open(g->gen)); }
void json_obj_close(json_gen_t *g) { STEP(g, yajl_gen_map_close(g->gen)); }
void json_arr_open(json_gen_t *g)  { STEP(g, yajl_gen_array_open(g->gen)); }
void json_arr_close(json_gen_t *g) { STEP(g, yajl_gen_array_close(g->gen)); }
void json_bool(json_gen_t *g, bool v) { STEP(g, yajl_gen_bool(g->gen, v)); }
void json_int(json_gen_t *g, long long v) { STEP(g, yajl_gen_integer(g->gen, v)); }

void json_str(json_gen_t *g, const char *v)
{
    if (v == NULL) {
        STEP(g, yajl_gen_null(g->gen));
        return;
    }
    STEP(g, yajl_gen_string(g->gen, (const unsigned char *)v, strlen(v)));
}

void json_key(json_gen_t *g, const char *key)
{
    if (key == NULL) {
        if (g != NULL && g->status == yajl_gen_status_ok)
            g->status = yajl_gen_keys_must_be_strings;
        return;
    }
    STEP(g, yajl_gen_string(g->gen, (const unsigned char *)key, strlen(key)));
}

void json_kv_str(json_gen_t *g, const char *key, const char *value)
{
    json_key(g, key);
    json_str(g, value);
}

void json_kv_int(json_gen_t *g, const char *key, long long value)
{
    json_key(g, key);
    json_int(g, value);
}

void json_kv_bool(json_gen_t *g, const char *key, bool value)
{
    json_key(g, key);
    json_bool(g, value);
}

void json_kv_strv(json_gen_t *g, const char *key, char *const *values, size_t n)
{
    json_key(g, key);
    json_arr_open(g);
    for (size_t i = 0; values != NULL && (n == (size_t)-1 ? values[i] != NULL : i < n); i++)
        json_str(g, values[i]);
    json_arr_close(g);
}

static const char *gen_status_text(yajl_gen_status s)
{
    switch (s) {
    case yajl_gen_keys_must_be_strings: return "an object key is not a string";
    case yajl_max_depth_exceeded: return "nesting too deep";
    case yajl_gen_in_error_state: return "generator in error state";
    case yajl_gen_generation_complete: return "a value after the complete document";
    case yajl_gen_invalid_number: return "invalid number";
    case yajl_gen_no_buf: return "no buffer";
    case yajl_gen_invalid_string: return "a string is not valid UTF-8";
    default: return "unknown generator error";
    }
}

int json_gen_finish(json_gen_t *g, char **ret_text, as_error_t **err)
{
    if (g == NULL)
        return as_error_make(err, ENOMEM, "building JSON: out of memory");
    if (g->status != yajl_gen_status_ok)
        return as_error_make(err, EINVAL, "building JSON: %s", gen_status_text(g->status));
    const unsigned char *buf = NULL;
    size_t len = 0;
    yajl_gen_status s = yajl_gen_get_buf(g->gen, &buf, &len);
    if (s != yajl_gen_status_ok)
        return as_error_make(err, EINVAL, "building JSON: %s", gen_status_text(s));
    char *text = strndup((const char *)buf, len);
    if (text == NULL)
        return as_error_make(err, ENOMEM, "building JSON: out of memory");
    *ret_text = text;
    return 0;
}

/* The tree is yajl's; json_t is its opaque name outside this file. */
static yajl_val val(const json_t *v)
{
    return (yajl_val)v;
}

static const json_t *wrap(yajl_val y)
{
    return (const json_t *)y;
}

int json_parse(const char *text, const char *what, json_t **ret, as_error_t **err)
{
    char errbuf[256] = "";
    if (text == NULL)
        return as_error_make(err, EPROTO, "%s: empty answer where JSON was expected", what);
    yajl_val v = yajl_tree_parse(text, errbuf, sizeof(errbuf));
    if (v == NULL) {
        /* yajl's message spans lines; keep the first */
        errbuf[strcspn(errbuf, "\n")] = '\0';
        return as_error_make(err, EPROTO, "%s: malformed JSON: %s", what,
                             errbuf[0] ? errbuf : "parse error");
    }
    *ret = (json_t *)v;
    return 0;
}

void json_free(json_t *v)
{
    if (v != NULL)
        yajl_tree_free(val(v));
}

const json_t *json_get(const json_t *v, const char *key)
{
    yajl_val y = val(v);
    if (y == NULL || !YAJL_IS_OBJECT(y) || key == NULL)
        return NULL;
    for (size_t i = 0; i < y->u.object.len; i++)
        if (strcmp(y->u.object.keys[i], key) == 0)
            return wrap(y->u.object.values[i]);
    return NULL;
}

const char *json_get_str(const json_t *v, const char *key)
{
    return json_as_str(json_get(v, key));
}

bool json_get_bool(const json_t *v, const char *key, bool *ret)
{
    return json_as_bool(json_get(v, key), ret);
}

bool json_as_bool(const json_t *v, bool *ret)
{
    if (v == NULL || !(YAJL_IS_TRUE(val(v)) || YAJL_IS_FALSE(val(v))))
        return false;
    *ret = YAJL_IS_TRUE(val(v));
    return true;
}

size_t json_array_len(const json_t *v)
{
    return json_is_array(v) ? val(v)->u.array.len : 0;
}

const json_t *json_array_at(const json_t *v, size_t i)
{
    return i < json_array_len(v) ? wrap(val(v)->u.array.values[i]) : NULL;
}

size_t json_object_len(const json_t *v)
{
    return json_is_object(v) ? val(v)->u.object.len : 0;
}

const json_t *json_object_at(const json_t *v, size_t i, const char **ret_key)
{
    if (i >= json_object_len(v))
        return NULL;
    *ret_key = val(v)->u.object.keys[i];
    return wrap(val(v)->u.object.values[i]);
}

const char *json_as_str(const json_t *v)
{
    return v != NULL && YAJL_IS_STRING(val(v)) ? YAJL_GET_STRING(val(v)) : NULL;
}

bool json_as_int(const json_t *v, long long *ret)
{
    if (v == NULL || !YAJL_IS_INTEGER(val(v)))
        return false;
    *ret = YAJL_GET_INTEGER(val(v));
    return true;
}

bool json_is_array(const json_t *v)
{
    return v != NULL && YAJL_IS_ARRAY(val(v));
}

bool json_is_object(const json_t *v)
{
    return v != NULL && YAJL_IS_OBJECT(val(v));
}

bool json_is_null(const json_t *v)
{
    return v != NULL && YAJL_IS_NULL(val(v));
}
