// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private XML pull reader of the 3MF and COLLADA readers: elements and their attributes, in document order, with names
// matched on their local part (the namespace prefix dropped); text, comments, processing instructions and CDATA are
// skipped; a DTD is refused (no entity expansion); end tags must match, nesting is limited to 256 levels.
#pragma once

#include "meshcontact/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Deepest element nesting accepted.
#define MC_XML_MAX_DEPTH 256

/// What mc_xml_next found.
typedef enum mc_xml_event
{
    MC_XML_START, ///< an element opened (a self-closing one is followed by its MC_XML_END)
    MC_XML_END,   ///< an element closed
    MC_XML_DONE,  ///< the end of the document (the root element closed)
} mc_xml_event;

/// Reader state over a NUL-terminated text.
typedef struct mc_xml
{
    const char* p;     ///< next byte to read
    const char* start; ///< the text
    const char* end;   ///< its end (a NUL)
    const char* what;  ///< the file and part, for messages
    const char* name;  ///< local name of the current element (START and END)
    size_t name_length;
    const char* attrs; ///< its attribute text (START)
    const char* attrs_end;
    bool pending_end;                       ///< a self-closing element's END is due
    int depth;                              ///< open elements
    const char* open[MC_XML_MAX_DEPTH];     ///< qualified names of the open elements
    uint32_t open_length[MC_XML_MAX_DEPTH]; ///< their lengths
} mc_xml;

/// Start reading `size` bytes of text (text[size] must be NUL).
void mc_xml_init(mc_xml* x, const char* text, size_t size, const char* what);

/// The next element boundary. A malformed document is MC_ERR_PARSE with the byte offset in the message.
mc_status mc_xml_next(mc_xml* x, mc_xml_event* event, mc_error* err);

/// True when the current element's local name is `local`.
bool mc_xml_is(const mc_xml* x, const char* local);

/// The value of the current element's attribute with local name `local` (entities not decoded): its span, or false.
bool mc_xml_attr(const mc_xml* x, const char* local, const char** value, size_t* length);

/// The character data of the current element, valid right after its MC_XML_START: the text up to its end tag (empty
/// for a self-closing element), entities not decoded. @return false when the element holds markup (a child element,
/// comment, CDATA section) or the document ends first: an element read for its text must hold text only.
bool mc_xml_text(const mc_xml* x, const char** text, size_t* length);

/// The byte offset of the reader in the text (for messages).
int64_t mc_xml_offset(const mc_xml* x);
