// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Strict JSON parser into a flat value array (see json.h): recursive descent with a depth limit, every byte checked.
#include "mesh/json.h"

#include "src/base/array.h"
#include "src/base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Deepest nesting of arrays and objects accepted (glTF needs 4).
#define JSON_MAX_DEPTH 64

typedef struct json_parser
{
    const char* s;
    size_t n;
    size_t p;
    const char* what;
    mc_json* doc;
    mc_error* err;
} json_parser;

static mc_status json_fail(json_parser* j, const char* why)
{
    return mc_set_error(j->err, MC_ERR_PARSE, -1, (int64_t)j->p, "%s: bad JSON at byte %llu: %s", j->what,
                        (unsigned long long)j->p, why);
}

static void json_skip_space(json_parser* j)
{
    while (j->p < j->n && (j->s[j->p] == ' ' || j->s[j->p] == '\t' || j->s[j->p] == '\n' || j->s[j->p] == '\r'))
    {
        ++j->p;
    }
}

// Append a value; its index is the return value (UINT32_MAX when memory runs out: the caller reports it).
static uint32_t json_push(json_parser* j, mc_json_type type)
{
    mc_json* d = j->doc;
    if (!mc_array_reserve((void**)&d->values, &d->capacity, (uint64_t)d->count + 1, sizeof(mc_json_value), 64))
    {
        return UINT32_MAX;
    }
    mc_json_value* v = &d->values[d->count];
    memset(v, 0, sizeof *v);
    v->type = type;
    v->offset = (int64_t)j->p;
    return d->count++;
}

// A string from the opening quote: escapes checked, control characters refused; the value keeps the raw span.
static mc_status json_string(json_parser* j)
{
    uint32_t v = json_push(j, MC_JSON_STRING);
    if (v == UINT32_MAX)
    {
        return mc_set_error(j->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for the JSON values", j->what);
    }
    size_t start = ++j->p;
    while (j->p < j->n && j->s[j->p] != '"')
    {
        unsigned char c = (unsigned char)j->s[j->p];
        if (c < 0x20)
        {
            return json_fail(j, "control character in a string");
        }
        if (c == '\\')
        {
            char e = j->p + 1 < j->n ? j->s[j->p + 1] : '\0';
            if (e == 'u')
            {
                for (size_t k = 2; k < 6; ++k)
                {
                    if (j->p + k >= j->n || mc_hex_digit(j->s[j->p + k]) < 0)
                    {
                        return json_fail(j, "bad \\u escape");
                    }
                }
                j->p += 6;
                continue;
            }
            if (strchr("\"\\/bfnrt", e) == NULL || e == '\0')
            {
                return json_fail(j, "bad escape in a string");
            }
            j->p += 2;
            continue;
        }
        ++j->p;
    }
    if (j->p >= j->n)
    {
        return json_fail(j, "unterminated string");
    }
    if (j->p - start > UINT32_MAX)
    {
        return json_fail(j, "string too long");
    }
    mc_json_value* x = &j->doc->values[v];
    x->str = j->s + start;
    x->count = (uint32_t)(j->p - start);
    x->end = v + 1;
    ++j->p;
    return MC_OK;
}

static size_t json_digits(json_parser* j)
{
    size_t k = 0;
    while (j->p < j->n && j->s[j->p] >= '0' && j->s[j->p] <= '9')
    {
        ++j->p, ++k;
    }
    return k;
}

// A number in JSON's grammar, converted by strtod (the import runs in the C locale); overflow to inf is refused.
static mc_status json_number(json_parser* j)
{
    size_t start = j->p;
    if (j->s[j->p] == '-')
    {
        ++j->p;
    }
    size_t int_start = j->p;
    size_t nd = json_digits(j);
    if (nd == 0 || (nd > 1 && j->s[int_start] == '0'))
    {
        return json_fail(j, "bad number");
    }
    if (j->p < j->n && j->s[j->p] == '.')
    {
        ++j->p;
        if (json_digits(j) == 0)
        {
            return json_fail(j, "bad number (no digit after '.')");
        }
    }
    if (j->p < j->n && (j->s[j->p] == 'e' || j->s[j->p] == 'E'))
    {
        ++j->p;
        if (j->p < j->n && (j->s[j->p] == '+' || j->s[j->p] == '-'))
        {
            ++j->p;
        }
        if (json_digits(j) == 0)
        {
            return json_fail(j, "bad number (no exponent digits)");
        }
    }
    char buf[128];
    size_t len = j->p - start;
    if (len >= sizeof buf)
    {
        return json_fail(j, "number longer than 127 characters");
    }
    memcpy(buf, j->s + start, len);
    buf[len] = '\0';
    double x = strtod(buf, NULL);
    if (!isfinite(x))
    {
        j->p = start;
        return json_fail(j, "number out of the double range");
    }
    size_t here = j->p;
    j->p = start;
    uint32_t v = json_push(j, MC_JSON_NUMBER);
    j->p = here;
    if (v == UINT32_MAX)
    {
        return mc_set_error(j->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for the JSON values", j->what);
    }
    j->doc->values[v].number = x;
    j->doc->values[v].end = v + 1;
    return MC_OK;
}

static mc_status json_value(json_parser* j, int depth);

// An array or object from its opening bracket: elements (or key/value members) separated by commas.
static mc_status json_container(json_parser* j, int depth)
{
    bool object = j->s[j->p] == '{';
    char close = object ? '}' : ']';
    if (depth >= JSON_MAX_DEPTH)
    {
        return json_fail(j, "nested deeper than 64 levels");
    }
    uint32_t v = json_push(j, object ? MC_JSON_OBJECT : MC_JSON_ARRAY);
    if (v == UINT32_MAX)
    {
        return mc_set_error(j->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for the JSON values", j->what);
    }
    ++j->p;
    json_skip_space(j);
    uint32_t count = 0;
    if (j->p < j->n && j->s[j->p] == close)
    {
        ++j->p;
    }
    else
    {
        for (;;)
        {
            json_skip_space(j);
            if (object)
            {
                if (j->p >= j->n || j->s[j->p] != '"')
                {
                    return json_fail(j, "object key expected");
                }
                mc_status st = json_string(j);
                json_skip_space(j);
                if (st != MC_OK || j->p >= j->n || j->s[j->p] != ':')
                {
                    return st != MC_OK ? st : json_fail(j, "':' expected after an object key");
                }
                ++j->p;
            }
            mc_status st = json_value(j, depth + 1);
            if (st != MC_OK)
            {
                return st;
            }
            if (count == UINT32_MAX)
            {
                return json_fail(j, "too many elements");
            }
            ++count;
            json_skip_space(j);
            if (j->p < j->n && j->s[j->p] == ',')
            {
                ++j->p;
                continue;
            }
            if (j->p < j->n && j->s[j->p] == close)
            {
                ++j->p;
                break;
            }
            return json_fail(j, object ? "',' or '}' expected" : "',' or ']' expected");
        }
    }
    j->doc->values[v].count = count;
    j->doc->values[v].end = j->doc->count;
    return MC_OK;
}

static mc_status json_literal(json_parser* j, const char* word, mc_json_type type)
{
    size_t len = strlen(word);
    if (j->n - j->p < len || memcmp(j->s + j->p, word, len) != 0)
    {
        return json_fail(j, "unexpected character");
    }
    uint32_t v = json_push(j, type);
    if (v == UINT32_MAX)
    {
        return mc_set_error(j->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for the JSON values", j->what);
    }
    j->doc->values[v].end = v + 1;
    j->p += len;
    return MC_OK;
}

static mc_status json_value(json_parser* j, int depth)
{
    json_skip_space(j);
    if (j->p >= j->n)
    {
        return json_fail(j, "unexpected end of the text");
    }
    char c = j->s[j->p];
    switch (c)
    {
    case '{':
    case '[':
        return json_container(j, depth);
    case '"':
        return json_string(j);
    case 't':
        return json_literal(j, "true", MC_JSON_TRUE);
    case 'f':
        return json_literal(j, "false", MC_JSON_FALSE);
    case 'n':
        return json_literal(j, "null", MC_JSON_NULL);
    default:
        return c == '-' || (c >= '0' && c <= '9') ? json_number(j) : json_fail(j, "unexpected character");
    }
}

// The element table: every array's element indices, so that lookups by position do not walk the array (a glTF
// node tree or accessor list of n entries would otherwise cost n^2).
static mc_status index_arrays(json_parser* j)
{
    mc_json* d = j->doc;
    uint64_t total = 0;
    for (uint32_t v = 0; v < d->count; ++v)
    {
        total += d->values[v].type == MC_JSON_ARRAY ? d->values[v].count : 0;
    }
    d->items = mc_alloc((size_t)(total > 0 ? total : 1) * sizeof(uint32_t));
    if (d->items == NULL)
    {
        return mc_set_error(j->err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for the JSON values", j->what);
    }
    uint32_t o = 0;
    for (uint32_t v = 0; v < d->count; ++v)
    {
        if (d->values[v].type == MC_JSON_ARRAY)
        {
            d->values[v].first = o;
            for (uint32_t k = v + 1; k < d->values[v].end; k = d->values[k].end)
            {
                d->items[o++] = k;
            }
        }
    }
    return MC_OK;
}

mc_status mc_json_parse(const char* text, size_t size, const char* what, mc_json* doc, mc_error* err)
{
    memset(doc, 0, sizeof *doc);
    json_parser j = {text, size, 0, what, doc, err};
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    {
        j.p = 3; // a UTF-8 byte-order mark
    }
    mc_status st = json_value(&j, 0);
    if (st != MC_OK)
    {
        return st;
    }
    json_skip_space(&j);
    return j.p == size ? index_arrays(&j) : json_fail(&j, "text after the JSON value");
}

void mc_json_free(mc_json* doc)
{
    mc_free(doc->items);
    mc_free(doc->values);
    memset(doc, 0, sizeof *doc);
}

uint32_t mc_json_member(const mc_json* doc, uint32_t obj, const char* key)
{
    if (obj >= doc->count || doc->values[obj].type != MC_JSON_OBJECT)
    {
        return 0;
    }
    size_t len = strlen(key);
    for (uint32_t k = obj + 1; k < doc->values[obj].end; k = doc->values[k + 1].end)
    {
        const mc_json_value* v = &doc->values[k];
        if (v->count == len && memcmp(v->str, key, len) == 0)
        {
            return k + 1;
        }
    }
    return 0;
}

uint32_t mc_json_element(const mc_json* doc, uint32_t arr, uint32_t i)
{
    if (arr >= doc->count || doc->values[arr].type != MC_JSON_ARRAY || i >= doc->values[arr].count)
    {
        return 0;
    }
    return doc->items[doc->values[arr].first + i];
}

// Append code point c as UTF-8 at buf[*o] (cap checked). @return false when it does not fit or is NUL.
static bool put_utf8(char* buf, size_t cap, size_t* o, uint32_t c)
{
    unsigned char u[4];
    size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c == 0 || *o + n >= cap)
    {
        return false;
    }
    if (n == 1)
    {
        u[0] = (unsigned char)c;
    }
    else
    {
        for (size_t k = n - 1; k > 0; --k)
        {
            u[k] = (unsigned char)(0x80 | (c & 0x3f));
            c >>= 6;
        }
        u[0] = (unsigned char)((n == 2 ? 0xc0 : n == 3 ? 0xe0 : 0xf0) | c);
    }
    memcpy(buf + *o, u, n);
    *o += n;
    return true;
}

static uint32_t hex4(const char* s)
{
    uint32_t x = 0;
    for (int k = 0; k < 4; ++k)
    {
        x = x << 4 | (uint32_t)mc_hex_digit(s[k]);
    }
    return x;
}

bool mc_json_string(const mc_json* doc, uint32_t v, char* buf, size_t cap)
{
    if (v >= doc->count || doc->values[v].type != MC_JSON_STRING || cap == 0)
    {
        return false;
    }
    const char* s = doc->values[v].str;
    size_t n = doc->values[v].count, o = 0;
    for (size_t i = 0; i < n;)
    {
        uint32_t c = (unsigned char)s[i];
        if (c != '\\')
        {
            ++i;
        }
        else if (s[i + 1] != 'u') // the parser checked every escape
        {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            c = (unsigned char)to[strchr(from, s[i + 1]) - from];
            i += 2;
        }
        else
        {
            c = hex4(s + i + 2);
            i += 6;
            if (c >= 0xd800 && c < 0xdc00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u')
            {
                uint32_t lo = hex4(s + i + 2);
                if (lo >= 0xdc00 && lo < 0xe000)
                {
                    c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                    i += 6;
                }
            }
        }
        if (!put_utf8(buf, cap, &o, c))
        {
            return false;
        }
    }
    buf[o] = '\0';
    return true;
}
