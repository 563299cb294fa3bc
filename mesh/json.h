// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private JSON parser of the glTF reader (RFC 8259, strict): the whole text becomes a flat array of values in document
// order, each knowing where its subtree ends, so that lookups walk the array without pointers. Strings are kept as
// spans of the text (escapes validated, decoded on request).
#pragma once

#include "meshcontact/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Value of hexadecimal digit c, or -1 (shared with the glTF reader's URI %-escapes).
static inline int mc_hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/// Kind of a JSON value.
typedef enum mc_json_type
{
    MC_JSON_NULL,
    MC_JSON_FALSE,
    MC_JSON_TRUE,
    MC_JSON_NUMBER,
    MC_JSON_STRING,
    MC_JSON_ARRAY,
    MC_JSON_OBJECT,
} mc_json_type;

/// One value. An object's children alternate key (a string) and value.
typedef struct mc_json_value
{
    mc_json_type type;
    uint32_t count;  ///< array: elements; object: members; string: bytes of the raw span
    uint32_t end;    ///< index one past the last value of this value's subtree
    uint32_t first;  ///< array: where its element indices start in mc_json.items
    double number;   ///< MC_JSON_NUMBER
    const char* str; ///< MC_JSON_STRING: the raw text between the quotes (escapes not decoded)
    int64_t offset;  ///< byte offset of the value in the text
} mc_json_value;

/// A parsed document: values[0] is the root.
typedef struct mc_json
{
    mc_json_value* values; ///< library allocator
    uint32_t count;        ///< values stored
    uint32_t capacity;     ///< values allocated
    uint32_t* items;       ///< the elements of every array, array by array (mc_json_element in constant time)
} mc_json;

/// Parse `size` bytes of text (need not be NUL-terminated). Nesting deeper than 64 levels, a control character or bad
/// escape in a string, a number that is not JSON's grammar or overflows, trailing bytes: MC_ERR_PARSE with the byte
/// offset and `what` (the file's name) in the message. Free with mc_json_free, also after a failure.
mc_status mc_json_parse(const char* text, size_t size, const char* what, mc_json* doc, mc_error* err);

/// Free the document's values and zero it.
void mc_json_free(mc_json* doc);

/// Member `key` of object value `obj` (an index into doc->values), or 0 when obj is not an object or has no such
/// member (0 is the root, never a member). Keys are compared on their raw text.
uint32_t mc_json_member(const mc_json* doc, uint32_t obj, const char* key);

/// Element i of array value `arr`, or 0 when arr is not an array or i is out of range (constant time).
uint32_t mc_json_element(const mc_json* doc, uint32_t arr, uint32_t i);

/// Decode string value `v` (escapes, \u to UTF-8) into buf of cap bytes, NUL-terminated. @return false when v is not a
/// string, the result does not fit, or it would contain a NUL character.
bool mc_json_string(const mc_json* doc, uint32_t v, char* buf, size_t cap);
