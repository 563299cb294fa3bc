// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// XML pull reader (see xml.h).
#include "mesh/xml.h"

#include "src/base/core.h"

#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void mc_xml_init(mc_xml* x, const char* text, size_t size, const char* what)
{
    memset(x, 0, sizeof *x);
    x->p = x->start = text;
    x->end = text + size;
    x->what = what;
}

int64_t mc_xml_offset(const mc_xml* x)
{
    return (int64_t)(x->p - x->start);
}

static mc_status xml_fail(const mc_xml* x, mc_error* err, const char* why)
{
    return mc_set_error(err, MC_ERR_PARSE, -1, mc_xml_offset(x), "%s: bad XML at byte %lld: %s", x->what,
                        (long long)mc_xml_offset(x), why);
}

// Skip past the first occurrence of `token` (false when the text ends first).
static bool skip_past(mc_xml* x, const char* token)
{
    const char* s = strstr(x->p, token);
    if (s == NULL || s >= x->end)
    {
        return false;
    }
    x->p = s + strlen(token);
    return true;
}

// A name: up to white space, '/', '>' or '='.
static size_t name_length(const char* s)
{
    size_t n = 0;
    while (s[n] != '\0' && !is_space(s[n]) && s[n] != '/' && s[n] != '>' && s[n] != '=' && s[n] != '<')
    {
        ++n;
    }
    return n;
}

// The local part of a qualified name.
static void set_local(mc_xml* x, const char* q, size_t n)
{
    const char* colon = memchr(q, ':', n);
    x->name = colon != NULL ? colon + 1 : q;
    x->name_length = colon != NULL ? n - (size_t)(colon + 1 - q) : n;
}

// The attributes of a start tag, from after its name to '>' or "/>": name="value" or name='value' pairs.
static mc_status read_attributes(mc_xml* x, bool* empty, mc_error* err)
{
    x->attrs = x->p;
    for (;;)
    {
        while (is_space(*x->p))
        {
            ++x->p;
        }
        if (*x->p == '>' || (x->p[0] == '/' && x->p[1] == '>'))
        {
            x->attrs_end = x->p;
            *empty = *x->p == '/';
            x->p += *empty ? 2 : 1;
            return MC_OK;
        }
        size_t n = name_length(x->p);
        x->p += n;
        while (is_space(*x->p))
        {
            ++x->p;
        }
        if (n == 0 || *x->p != '=')
        {
            return xml_fail(x, err, "attribute name and '=' expected");
        }
        ++x->p;
        while (is_space(*x->p))
        {
            ++x->p;
        }
        char q = *x->p;
        const char* close = q == '"' || q == '\'' ? strchr(x->p + 1, q) : NULL;
        const char* lt = close != NULL ? memchr(x->p + 1, '<', (size_t)(close - x->p - 1)) : NULL;
        if (close == NULL || lt != NULL)
        {
            return xml_fail(x, err, "quoted attribute value expected");
        }
        x->p = close + 1;
    }
}

// A start tag from its '<': push its name; a self-closing one leaves its END pending.
static mc_status start_tag(mc_xml* x, mc_error* err)
{
    const char* q = x->p + 1;
    size_t n = name_length(q);
    if (n == 0 || n > UINT32_MAX)
    {
        return xml_fail(x, err, "element name expected after '<'");
    }
    if (x->depth >= MC_XML_MAX_DEPTH)
    {
        return xml_fail(x, err, "elements nested deeper than 256 levels");
    }
    x->p = q + n;
    bool empty = false;
    mc_status st = read_attributes(x, &empty, err);
    if (st != MC_OK)
    {
        return st;
    }
    set_local(x, q, n);
    x->open[x->depth] = q;
    x->open_length[x->depth] = (uint32_t)n;
    x->depth++;
    x->pending_end = empty;
    return MC_OK;
}

// An end tag from its "</": it must close the innermost open element.
static mc_status end_tag(mc_xml* x, mc_error* err)
{
    const char* q = x->p + 2;
    size_t n = name_length(q);
    const char* e = q + n;
    while (is_space(*e))
    {
        ++e;
    }
    if (x->depth == 0 || *e != '>' || n != x->open_length[x->depth - 1] || memcmp(q, x->open[x->depth - 1], n) != 0)
    {
        return xml_fail(x, err, "end tag that does not match its start tag");
    }
    set_local(x, q, n);
    x->depth--;
    x->p = e + 1;
    return MC_OK;
}

// Skip a comment, processing instruction or CDATA section at x->p. @return false when it is none of them.
static bool skip_markup(mc_xml* x, mc_status* st, mc_error* err)
{
    static const char* const open[] = {"<?", "<!--", "<![CDATA["};
    static const char* const close[] = {"?>", "-->", "]]>"};
    for (int k = 0; k < 3; ++k)
    {
        size_t n = strlen(open[k]);
        if (strncmp(x->p, open[k], n) == 0)
        {
            x->p += n;
            *st = skip_past(x, close[k])
                      ? MC_OK
                      : mc_set_error(err, MC_ERR_PARSE, -1, mc_xml_offset(x), "%s: bad XML: '%s' without its '%s'",
                                     x->what, open[k], close[k]);
            return true;
        }
    }
    return false;
}

mc_status mc_xml_next(mc_xml* x, mc_xml_event* event, mc_error* err)
{
    if (x->pending_end)
    {
        x->pending_end = false;
        x->depth--;
        *event = x->depth == 0 ? MC_XML_DONE : MC_XML_END;
        return MC_OK;
    }
    for (;;)
    {
        const char* lt = strchr(x->p, '<');
        if (lt == NULL || lt >= x->end)
        {
            x->p = x->end;
            return mc_set_error(err, MC_ERR_PARSE, -1, mc_xml_offset(x), "%s: bad XML: %s", x->what,
                                x->depth > 0 ? "the text ends inside an element" : "no root element");
        }
        x->p = lt;
        mc_status st = MC_OK;
        if (skip_markup(x, &st, err))
        {
            if (st != MC_OK)
            {
                return st;
            }
            continue;
        }
        if (x->p[1] == '!')
        {
            return mc_set_error(err, MC_ERR_PARSE, -1, mc_xml_offset(x),
                                "%s: XML with a document type declaration (DTD) is not read", x->what);
        }
        if (x->p[1] == '/')
        {
            st = end_tag(x, err);
            *event = x->depth == 0 ? MC_XML_DONE : MC_XML_END;
            return st;
        }
        st = start_tag(x, err);
        *event = MC_XML_START;
        return st;
    }
}

bool mc_xml_is(const mc_xml* x, const char* local)
{
    size_t n = strlen(local);
    return x->name_length == n && memcmp(x->name, local, n) == 0;
}

bool mc_xml_attr(const mc_xml* x, const char* local, const char** value, size_t* length)
{
    size_t want = strlen(local);
    const char* p = x->attrs;
    while (p < x->attrs_end)
    {
        while (p < x->attrs_end && is_space(*p))
        {
            ++p;
        }
        if (p >= x->attrs_end)
        {
            break;
        }
        size_t n = name_length(p);
        const char* colon = memchr(p, ':', n);
        const char* l = colon != NULL ? colon + 1 : p;
        size_t ln = colon != NULL ? n - (size_t)(colon + 1 - p) : n;
        const char* v = strpbrk(p + n, "\"'"); // read_attributes checked the layout
        const char* close = strchr(v + 1, *v);
        if (ln == want && memcmp(l, local, want) == 0 && !(colon != NULL && colon - p == 5 && !memcmp(p, "xmlns", 5)))
        {
            *value = v + 1;
            *length = (size_t)(close - v - 1);
            return true;
        }
        p = close + 1;
    }
    return false;
}

bool mc_xml_text(const mc_xml* x, const char** text, size_t* length)
{
    *text = x->p;
    *length = 0;
    if (x->pending_end)
    {
        return true;
    }
    const char* lt = strchr(x->p, '<');
    if (lt == NULL || lt >= x->end || lt[1] != '/')
    {
        return false;
    }
    *length = (size_t)(lt - x->p);
    return true;
}
