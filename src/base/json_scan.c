/* SPDX-License-Identifier: MIT */
/* The member scan (json_scan.h): the top level of an object, one pass,
 * values skipped by their quotes and brackets. */
#include "base/json_scan.h"

#include <string.h>

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Past the closing quote of the string that opens at P; NULL when the
 * text ends first. *ESCAPED is set when the string holds an escape. */
static const char *string_end(const char *p, bool *escaped)
{
    for (p++; *p != '"'; p++) {
        if (*p == '\0')
            return NULL;
        if (*p == '\\') {
            *escaped = true;
            if (*++p == '\0')
                return NULL;
        }
    }
    return p + 1;
}

/* Past the object or array that opens at P (brackets counted, strings
 * skipped), or NULL. */
static const char *nested_end(const char *p)
{
    int depth = 0;
    bool escaped = false;

    while (*p) {
        if (*p == '"') {
            if (!(p = string_end(p, &escaped)))
                return NULL;
            continue;
        }
        if (*p == '{' || *p == '[')
            depth++;
        else if ((*p == '}' || *p == ']') && --depth == 0)
            return p + 1;
        p++;
    }
    return NULL;
}

/* Past the value at P, or NULL when none is there. */
static const char *value_end(const char *p)
{
    bool escaped = false;
    const char *start = p;

    if (*p == '"')
        return string_end(p, &escaped);
    if (*p == '{' || *p == '[')
        return nested_end(p);
    /* A number, true, false or null. */
    while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || *p == '-' ||
           *p == '+' || *p == '.' || *p == 'E')
        p++;
    return p > start ? p : NULL;
}

sked_json_found sked__json_member(const char *text, const char *key,
                                  const char **val, size_t *len)
{
    size_t keylen = strlen(key);
    sked_json_found found = SKED_JSON_ABSENT;
    const char *p = skip_ws(text);

    if (*p != '{')
        return SKED_JSON_UNSURE;
    p = skip_ws(p + 1);
    if (*p == '}')
        return SKED_JSON_ABSENT;
    for (;;) {
        bool escaped = false;
        const char *key_end, *end;
        if (*p != '"' || !(key_end = string_end(p, &escaped)) || escaped)
            return SKED_JSON_UNSURE; /* an escaped key might be KEY */
        bool match = (size_t) (key_end - p) == keylen + 2 &&
                     memcmp(p + 1, key, keylen) == 0;
        p = skip_ws(key_end);
        if (*p != ':')
            return SKED_JSON_UNSURE;
        p = skip_ws(p + 1);
        if (!(end = value_end(p)))
            return SKED_JSON_UNSURE;
        if (match) { /* the last of duplicates, as jansson keeps */
            *val = p;
            *len = (size_t) (end - p);
            found = SKED_JSON_FOUND;
        }
        p = skip_ws(end);
        if (*p == '}')
            return found;
        if (*p != ',')
            return SKED_JSON_UNSURE;
        p = skip_ws(p + 1);
    }
}

bool sked__json_plain_string(const char *val, size_t len)
{
    return len >= 2 && val[0] == '"' && val[len - 1] == '"' &&
           !memchr(val + 1, '\\', len - 2);
}
