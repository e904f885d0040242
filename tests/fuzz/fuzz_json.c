/* libFuzzer target for the JSON reader (lib/base/json.c), which reads
 * every answer of the libpod API and the files the router writes. Whatever
 * the bytes: a refusal is -EPROTO with a one-line message that names the
 * document; an accepted document's strings are valid UTF-8 (the generator,
 * which validates, takes them all back), and written out again through the
 * generator and read once more, it gives the same text: reader and writer
 * agree. Numbers other than integers in range are written as null (the
 * generator has no other kind), which the second round keeps. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "base/json.h"

#define DEPTH_MAX 64         /* yajl's generator refuses deeper nesting */

/* v written out through the generator; false when nested too deep. */
static bool put(json_gen_t *g, const json_t *v, unsigned depth)
{
    long long i;
    bool b;
    const char *s = json_as_str(v);
    if (depth > DEPTH_MAX)
        return false;
    if (s != NULL) {
        json_str(g, s);
    } else if (json_as_int(v, &i)) {
        json_int(g, i);
    } else if (json_as_bool(v, &b)) {
        json_bool(g, b);
    } else if (json_is_array(v)) {
        json_arr_open(g);
        for (size_t k = 0; k < json_array_len(v); k++)
            if (!put(g, json_array_at(v, k), depth + 1))
                return false;
        json_arr_close(g);
    } else if (json_is_object(v)) {
        json_obj_open(g);
        for (size_t k = 0; k < json_object_len(v); k++) {
            const char *key = NULL;
            const json_t *m = json_object_at(v, k, &key);
            CHECK(m != NULL && key != NULL);
            json_key(g, key);
            if (!put(g, m, depth + 1))
                return false;
        }
        json_obj_close(g);
    } else {
        json_str(g, NULL);          /* null, or a number that is not an integer in range */
    }
    return true;
}

/* The document written out; NULL when nested too deep to write. */
static char *dump(const json_t *doc)
{
    json_gen_t *g = json_gen_new();
    CHECK(g != NULL);
    char *text = NULL;
    as_error_t *err = NULL;
    if (put(g, doc, 0)) {
        int r = json_gen_finish(g, &text, &err);
        if (r < 0)
            fprintf(stderr, "%s\n", err->msg);
        CHECK(r == 0 && text != NULL);
    }
    json_gen_free(g);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    json_t *doc = NULL;
    as_error_t *err = NULL;
    int r = json_parse(text, "fuzz", &doc, &err);
    free(text);
    if (r < 0) {
        CHECK(r == -EPROTO && doc == NULL && err != NULL);
        CHECK(strncmp(err->msg, "fuzz: malformed JSON", 20) == 0 && strchr(err->msg, '\n') == NULL);
        as_error_free(&err);
        return 0;
    }
    CHECK(doc != NULL && err == NULL);
    char *once = dump(doc);
    json_free(doc);
    if (once != NULL) {
        CHECK(json_parse(once, "fuzz", &doc, &err) == 0);
        char *twice = dump(doc);
        CHECK(twice != NULL && strcmp(once, twice) == 0);
        free(twice);
        json_free(doc);
    }
    free(once);
    return 0;
}
