// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact sweep`: the pieces shared by its kinds of sweep (poses, scenario runs) and its driver, which reads the
// input table, hands rows out (one process, or MPI ranks with dynamic distribution), writes the output rows in input
// order as they complete, and resumes an interrupted output.
#pragma once

#include "src/app/cli.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A growable text buffer (malloc'ed; data is NUL-terminated when length > 0).
typedef struct sweep_text
{
    char* data;      ///< the text
    size_t length;   ///< bytes used (without the terminating NUL)
    size_t capacity; ///< bytes allocated
} sweep_text;

/// Append printf-formatted text. @return false when out of memory (the text is unchanged).
bool sweep_text_printf(sweep_text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/// Append `n` bytes. @return false when out of memory.
bool sweep_text_append(sweep_text* t, const char* s, size_t n);
/// Format a double with the fewest of 15, 16 or 17 significant digits that read back as the same double ("0.3", not
/// "0.29999999999999999"); NaN and infinity give an empty string. @param cap at least 32
void sweep_format_double(char* buf, size_t cap, double v);
/// Append a double as a CSV field (sweep_format_double).
bool sweep_text_double(sweep_text* t, double v);
/// Append a CSV string field, quoted when it holds a comma, a quote or a line break (quotes doubled; line breaks
/// replaced by blanks so that a row stays one line).
bool sweep_text_csv_string(sweep_text* t, const char* s);
/// Free the buffer and zero it.
void sweep_text_free(sweep_text* t);

/// Split one CSV line (no line break) into fields, in place: quoted fields are unquoted ("" -> "), blanks around
/// unquoted fields are trimmed. @return the number of fields (at most `max`; more gives max + 1), or -1 on a bad
/// quote.
int sweep_csv_split(char* line, char** fields, int max);

/// One row of a sweep's input table.
typedef struct sweep_row
{
    int64_t index; ///< 1-based data row number (comments, blank lines and the header are not rows)
    int64_t line;  ///< line number in the input file
    char* text;    ///< the line, without its line break (the evaluator may modify it)
} sweep_row;

/// A kind of sweep: how its input header is read, and how one input row becomes one output line. Every output line
/// starts with `row` (the input row number) and the job's key columns (the pose sweep's time, the scenario sweep's
/// parameter values), numbers only, then `status` ('ok' or 'error'), the job's results and a last `message`.
typedef struct sweep_job
{
    const char* name;       ///< "poses", "scenario"
    const char* out_header; ///< output header line, without line break; may be set by read_header
    int out_columns;        ///< columns of every output line; may be set by read_header
    int status_column;      ///< 0-based column of `status` (1 + the number of key columns)
    /// Read the input header (the first line that is not blank or a comment; every rank calls it, before any row);
    /// on failure write a message into err.
    bool (*read_header)(void* ctx, char* header, char* err, size_t err_cap);
    /// Evaluate one row and append its output line (with its line break) to out. @return 1 when the row succeeded,
    /// 0 when it failed (its line then says why), -1 when out of memory (nothing appended).
    int (*evaluate)(void* ctx, sweep_row* row, sweep_text* out);
    /// Write the key columns of a row (what its output line holds between `row,` and `,status`) into key; used to
    /// check that a resumed output belongs to this input.
    void (*key)(void* ctx, const sweep_row* row, char* key, size_t key_cap);
    void* ctx; ///< passed to the callbacks
} sweep_job;

/// What a sweep's output records of its inputs (cli_sweep_guard.c): 64-bit FNV-1a hashes of the meshes' contents,
/// the options that change results, the scenario file's bytes and the input table's bytes (or expanded grid).
#define SWEEP_FINGERPRINT_PARTS 4
typedef struct sweep_fingerprint
{
    uint64_t part[SWEEP_FINGERPRINT_PARTS]; ///< meshes, options, scenario, input (the driver sets input)
} sweep_fingerprint;

/// The FNV-1a start value.
uint64_t sweep_hash_start(void);
/// Hash n more bytes into h.
uint64_t sweep_hash_bytes(uint64_t h, const void* data, size_t n);
/// Hash a double (as %.17g text) into h.
uint64_t sweep_hash_double(uint64_t h, double v);
/// Hash a file's contents into *h. @return false when it cannot be read (*h then holds what was read)
bool sweep_hash_file(uint64_t* h, const char* path);
/// The first line of an output: `# meshcontact sweep KIND fingerprint: meshes=HEX options=HEX scenario=HEX input=HEX`.
void sweep_fingerprint_line(const char* kind, const sweep_fingerprint* fp, char* buf, size_t cap);
/// Check an output's first line (without its line break) against this sweep's fingerprint. @return false with why
/// (naming the input that differs) in buf
bool sweep_fingerprint_check(const char* kind, const sweep_fingerprint* fp, const char* line, char* why, size_t cap);
/// Take an exclusive lock (flock, not waiting) on an open output. @return 0, or 1 after printing that another sweep
/// writes it
int sweep_lock_output(FILE* f, const char* path);

/// Files and options of the driver.
typedef struct sweep_io
{
    const char* input_path;  ///< the input table (CSV)
    const char* input_text;  ///< rank 0: the input table's text when it is made in memory (a grid), else NULL
    const char* output_path; ///< the output table (CSV)
    bool resume;             ///< keep the complete rows of an existing output and do the rest
    int chunk;               ///< rows per MPI message (0: the default)
    int window;              ///< MPI: chunks handed out at most past the oldest one not yet written, which bounds the
                             ///< results rank 0 holds back for ordering (0: the default, max(64, 8 x ranks))
    int64_t kill_after;      ///< testing: after this many rows written, write a torn line and SIGKILL (0: off)
    sweep_fingerprint fingerprint; ///< rank 0: the inputs' hashes but the input table's (the driver adds it)
} sweep_io;

/// The processes of a sweep: MPI ranks when started by mpirun and built with MPI, else one.
typedef struct sweep_ranks
{
    int rank; ///< this process (0 reads the input and writes the output)
    int size; ///< number of processes
} sweep_ranks;

/// Start MPI when the build has it and the process was started by an MPI launcher; otherwise rank 0 of 1.
sweep_ranks sweep_parallel_begin(int* argc, char*** argv);
/// True on every rank when `ok` is true on every rank (a collective call; just `ok` without MPI).
bool sweep_parallel_all(bool ok);
/// Finalize MPI when it was started.
void sweep_parallel_end(void);

/// Give a rank > 0 its stderr back (it is silenced while the command line is parsed, which every rank does alike).
void sweep_restore_stderr(void);

/// Run a sweep: read the input table, evaluate every row (skipping the complete rows of a resumed output), append
/// each output row in input order as soon as it and every row before it are done. Prints its own errors (one line,
/// `meshcontact: <file>: ...`). Collective: every rank calls it after the job is ready.
/// @return the exit status: 0 when every row succeeded, 1 when a row failed (the output is complete anyway) or the
///         sweep could not run
int sweep_run(const sweep_job* job, const sweep_io* io, sweep_ranks ranks);

/// `meshcontact sweep poses ...` (argv[0] is "poses").
int cli_sweep_poses(int argc, char** argv, sweep_ranks ranks);
/// `meshcontact sweep scenario ...` (argv[0] is "scenario").
int cli_sweep_scenario(int argc, char** argv, sweep_ranks ranks);
