/* The only module that knows yajl (no other file includes its headers).
 * Building: a generator whose first error sticks, so callers emit a whole
 * document and check once at the end. Reading: an opaque tree, with
 * accessors that check the type before use. */
#ifndef AS_JSON_H
#define AS_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "util.h"

typedef struct json_gen json_gen_t;

json_gen_t *json_gen_new(void);
void json_gen_free(json_gen_t *g);
DEFINE_CLEANUP_FUNC(json_gen_t, json_gen_free)

void json_obj_open(json_gen_t *g);
void json_obj_close(json_gen_t *g);
void json_arr_open(json_gen_t *g);
void json_arr_close(json_gen_t *g);
void json_key(json_gen_t *g, const char *key);
void json_str(json_gen_t *g, const char *value);
void json_int(json_gen_t *g, long long value);
void json_bool(json_gen_t *g, bool value);

/* key + value in one call */
void json_kv_str(json_gen_t *g, const char *key, const char *value);
void json_kv_int(json_gen_t *g, const char *key, long long value);
void json_kv_bool(json_gen_t *g, const char *key, bool value);
/* key + array of strings (n of them; NULL-terminated when n is (size_t)-1) */
void json_kv_strv(json_gen_t *g, const char *key, char *const *values, size_t n);

/* Returns the document as a new string, or the first error met while building
 * it (invalid UTF-8, unbalanced nesting, out of memory). */
int json_gen_finish(json_gen_t *g, char **ret_text, as_error_t **err);

/* A value of a parsed document; only json_parse's result is freed. */
typedef struct json json_t;

/* Parse a complete document; `what` names it in the error message. */
int json_parse(const char *text, const char *what, json_t **ret, as_error_t **err);
void json_free(json_t *v);
DEFINE_CLEANUP_FUNC(json_t, json_free)

/* Member of an object, or NULL when v is not an object or has no such key. */
const json_t *json_get(const json_t *v, const char *key);
/* Typed members: NULL / false when missing or of another type. */
const char *json_get_str(const json_t *v, const char *key);
bool json_get_bool(const json_t *v, const char *key, bool *ret);

size_t json_array_len(const json_t *v);             /* 0 when not an array */
const json_t *json_array_at(const json_t *v, size_t i);
/* An object's members in document order: 0 / NULL when not an object. */
size_t json_object_len(const json_t *v);
const json_t *json_object_at(const json_t *v, size_t i, const char **ret_key);
bool json_as_bool(const json_t *v, bool *ret);      /* false when not true or false */
const char *json_as_str(const json_t *v);           /* NULL when not a string */
bool json_as_int(const json_t *v, long long *ret);  /* false when not an integer */
bool json_is_array(const json_t *v);
bool json_is_object(const json_t *v);
bool json_is_null(const json_t *v);                 /* JSON's null (not a NULL pointer) */

#endif
