// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Files of the application (issue 41): inputs that are regular files of text (no devices, FIFOs or directories, no
// NUL or control bytes, bounded lines and sizes), outputs that are all or nothing (a temporary beside the target,
// flushed, synced and renamed over it), stdout checked at the end, and messages safe to print (long paths shortened
// in the middle, control bytes escaped, JSON strings valid UTF-8).
#pragma once

#include "meshcontact/meshcontact.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// Largest text file the application reads whole (scenario files): 256 MiB.
#define APP_MAX_TEXT_BYTES ((size_t)256 << 20)
/// Longest line of a table read line by line (poses, parameters): 1 MiB.
#define APP_MAX_LINE_BYTES ((size_t)1 << 20)

/// Open a file for reading in binary mode. Refuses directories, devices, FIFOs and sockets: the file is opened with
/// O_NONBLOCK (a FIFO without a writer does not block) and checked with fstat before anything is read.
/// @return the stream, or NULL with `<path>: <why>` in err
FILE* app_open_input(const char* path, char* err, size_t cap);

/// Read a whole text file (app_open_input): at most max_bytes, a leading UTF-8 byte order mark skipped, NUL and
/// control bytes (below 0x20 but tab, line feed, carriage return, form feed, vertical tab) refused with their line and
/// column. @param text receives the malloc'ed text, NUL-terminated; @param line receives the line of a bad byte (0
/// otherwise). @return false with `<path>: [line L, column C: ]<why>` in err
bool app_read_text(const char* path, size_t max_bytes, char** text, size_t* length, int64_t* line, char* err,
                   size_t cap);

/// The first NUL or control byte (as app_read_text refuses them) of s[0..n): its index, or -1.
long app_text_bad_byte(const char* s, size_t n);
/// Name a bad byte for a message: "a NUL byte" or "the control byte 0x07".
void app_describe_byte(unsigned char c, char* buf, size_t cap);

/// What app_read_line found.
typedef enum app_line_status
{
    APP_LINE_OK = 1,        ///< a line (without its line break and carriage return)
    APP_LINE_END = 0,       ///< end of the file
    APP_LINE_ERROR = -1,    ///< read error (errno)
    APP_LINE_TOO_LONG = -2, ///< longer than max bytes (the rest is not read)
    APP_LINE_MEMORY = -3,   ///< out of memory
} app_line_status;

/// Read one line of at most max bytes (getline with a cap: a file without line breaks cannot grow memory without
/// end). *line is a malloc'ed buffer of *capacity bytes, grown as needed; *length receives the line's length (it may
/// hold NUL bytes: check it with app_text_bad_byte).
app_line_status app_read_line(FILE* f, size_t max, char** line, size_t* capacity, size_t* length);

/// An output written all or nothing: a temporary in the target's folder, renamed over the target by
/// app_output_commit. A target that exists and is not a regular file (a device such as /dev/null, a FIFO), and `-`
/// for stdout when allowed, are written in place.
typedef struct app_output
{
    char* path; ///< the target (malloc'ed copy)
    char* tmp;  ///< the temporary beside it (malloc'ed), or NULL when written in place
    FILE* f;    ///< the open stream (stdout for `-`)
} app_output;

/// Open an output: create its temporary (mode 0666 less the umask), so that an unwritable folder fails at once.
/// @return false with `<path>: <why>` in err (nothing is left behind)
bool app_output_open(app_output* o, const char* path, bool allow_stdout, char* err, size_t cap);
/// The file name to write when a writer opens the file by its name (a library writer, the SVG plot): the temporary,
/// or the target when written in place.
const char* app_output_name(const app_output* o);
/// Finish an output: flush, check for write errors, fsync, close, rename the temporary over the target and sync the
/// folder. On any failure the temporary is removed (the previous target is untouched) and err says why.
bool app_output_commit(app_output* o, char* err, size_t cap);
/// Give an output up: close it and remove its temporary (the target is untouched). Safe on a zeroed app_output.
void app_output_discard(app_output* o);

/// In a message, replace the first occurrence of a temporary's name by its target's (a writer that opened the
/// temporary by name reports that name).
void app_name_target(char* msg, size_t cap, const char* tmp, const char* target);

/// Write a mesh as binary STL (`shl` false) or .shl scaled by `scale`, all or nothing (app_output). Prints the error
/// (`meshcontact: <path>: <why>`) and returns 1 on failure; returns 0 on success.
int app_write_mesh(const mc_mesh* mesh, const char* path, bool shl, double scale);

/// Flush and close stdout and check that everything written to it arrived (`info --json > /dev/full`). Prints
/// `meshcontact: stdout: <why>` and returns 1 on a failure; otherwise returns rc.
int app_finish_stdout(int rc);

/// A path shortened in the middle to at most `cap` - 1 bytes (its start, `...`, its end: the file name stays),
/// cut on UTF-8 character boundaries. Returns path itself when it fits, else buf.
const char* app_short_path(const char* path, char* buf, size_t cap);
/// Print s as a JSON string literal: quotes and backslashes escaped, control bytes as \uXXXX, bytes that are not
/// valid UTF-8 replaced by U+FFFD (so that the document stays valid JSON whatever a file name holds).
void app_json_string(FILE* f, const char* s);
/// Copy s into buf (cap bytes) with control bytes written as \n, \t, \r or \xHH, so that a message stays one line.
void app_escape_controls(const char* s, char* buf, size_t cap);
