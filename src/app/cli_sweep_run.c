// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The driver of `meshcontact sweep`: reads the input table, hands its rows out (in one process, or over MPI ranks with
// dynamic distribution: rank 0 hands out chunks of rows on demand, each worker keeps two in hand), writes the output
// rows in input order as they complete (out-of-order chunks wait in a buffer), and resumes an interrupted output.
#include "src/app/app_io.h"
#include "src/app/cli_sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef MC_HAVE_MPI
#include <mpi.h>
#endif

#define SWEEP_DEFAULT_CHUNK 8   // rows per MPI message
#define SWEEP_DEFAULT_WINDOW 64 // chunks handed out past the oldest unwritten one (at least 8 per rank)
#define SWEEP_MAX_COLUMNS 4096  // columns an output line may have
#define SWEEP_RANK0_WORKS_MAX 8 // rank 0 evaluates rows itself only up to this many ranks (beyond, it only hands out)

// ---------------------------------------------------------------------------------------------------------------
// Text and CSV helpers
// ---------------------------------------------------------------------------------------------------------------

static bool text_reserve(sweep_text* t, size_t extra)
{
    if (t->length + extra + 1 <= t->capacity)
    {
        return true;
    }
    size_t cap = t->capacity < 256 ? 256 : t->capacity;
    while (cap < t->length + extra + 1)
    {
        cap *= 2;
    }
    char* d = realloc(t->data, cap);
    if (d == NULL)
    {
        return false;
    }
    t->data = d;
    t->capacity = cap;
    return true;
}

bool sweep_text_append(sweep_text* t, const char* s, size_t n)
{
    if (!text_reserve(t, n))
    {
        return false;
    }
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = '\0';
    return true;
}

bool sweep_text_printf(sweep_text* t, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
    {
        return false;
    }
    if ((size_t)n < sizeof small)
    {
        return sweep_text_append(t, small, (size_t)n);
    }
    if (!text_reserve(t, (size_t)n))
    {
        return false;
    }
    va_start(ap, fmt);
    vsnprintf(t->data + t->length, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->length += (size_t)n;
    return true;
}

void sweep_format_double(char* buf, size_t cap, double v)
{
    buf[0] = '\0';
    if (v != v || v - v != 0.0)
    {
        return;
    }
    // The fewest of 15, 16, 17 significant digits that read back as the same double (17 always do).
    for (int digits = 15; digits <= 17; ++digits)
    {
        snprintf(buf, cap, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
        {
            return;
        }
    }
}

bool sweep_text_double(sweep_text* t, double v)
{
    char buf[40];
    sweep_format_double(buf, sizeof buf, v);
    return sweep_text_append(t, buf, strlen(buf));
}

bool sweep_text_csv_string(sweep_text* t, const char* s)
{
    bool quote = strpbrk(s, ",\"\r\n") != NULL;
    bool ok = !quote || sweep_text_append(t, "\"", 1);
    for (const char* p = s; ok && *p != '\0'; ++p)
    {
        if (*p == '"')
        {
            ok = sweep_text_append(t, "\"\"", 2);
        }
        else
        {
            char c = (*p == '\n' || *p == '\r') ? ' ' : *p;
            ok = sweep_text_append(t, &c, 1);
        }
    }
    return ok && (!quote || sweep_text_append(t, "\"", 1));
}

void sweep_text_free(sweep_text* t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

static char* trim(char* s, char* end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
    {
        ++s;
    }
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
    {
        --end;
    }
    *end = '\0';
    return s;
}

int sweep_csv_split(char* line, char** fields, int max)
{
    int n = 0;
    char* p = line;
    for (;;)
    {
        char* start = p;
        while (*start == ' ' || *start == '\t')
        {
            ++start;
        }
        char* field;
        if (*start == '"')
        {
            // Quoted: unquote in place ("" is a quote), then only blanks up to the comma.
            char* w = start;
            char* r = start + 1;
            for (;;)
            {
                if (*r == '\0')
                {
                    return -1;
                }
                if (*r == '"' && r[1] == '"')
                {
                    *w++ = '"';
                    r += 2;
                }
                else if (*r == '"')
                {
                    ++r;
                    break;
                }
                else
                {
                    *w++ = *r++;
                }
            }
            while (*r == ' ' || *r == '\t')
            {
                ++r;
            }
            if (*r != ',' && *r != '\0')
            {
                return -1;
            }
            field = start;
            char sep = *r;
            *w = '\0';
            p = sep == ',' ? r + 1 : r;
            if (n < max)
            {
                fields[n] = field;
            }
            ++n;
            if (sep == '\0')
            {
                break;
            }
            continue;
        }
        char* comma = strchr(start, ',');
        char* end = comma != NULL ? comma : start + strlen(start);
        field = trim(start, end);
        if (n < max)
        {
            fields[n] = field;
        }
        ++n;
        if (comma == NULL)
        {
            break;
        }
        p = comma + 1;
    }
    return n > max ? max + 1 : n;
}

// ---------------------------------------------------------------------------------------------------------------
// Input reader (rank 0)
// ---------------------------------------------------------------------------------------------------------------

/// Streams the input table: blank lines and lines starting with '#' are skipped.
typedef struct sweep_reader
{
    FILE* f;
    const char* path;
    char* line;
    size_t capacity;
    int64_t line_no;
    int64_t rows;  // data rows read so far
    char why[200]; // what a read error was ("" for errno's)
} sweep_reader;

/// The next line that is not blank or a comment, without its line break: 1, or 0 at the end, -1 on a read error (a
/// line longer than APP_MAX_LINE_BYTES and NUL or control bytes are errors too, with their place in r->why).
static int reader_line(sweep_reader* r)
{
    for (;;)
    {
        errno = 0;
        size_t n = 0;
        app_line_status ls = app_read_line(r->f, APP_MAX_LINE_BYTES, &r->line, &r->capacity, &n);
        if (ls != APP_LINE_OK)
        {
            if (ls == APP_LINE_TOO_LONG || ls == APP_LINE_MEMORY)
            {
                snprintf(r->why, sizeof r->why, "line %lld: %s", (long long)r->line_no + 1,
                         ls == APP_LINE_MEMORY ? "out of memory" : "longer than 1 MiB (not a table of numbers?)");
            }
            return ls == APP_LINE_END ? 0 : -1;
        }
        r->line_no++;
        if (r->line_no == 1 && n >= 3 && memcmp(r->line, "\xEF\xBB\xBF", 3) == 0)
        {
            memmove(r->line, r->line + 3, n - 2); // a UTF-8 byte order mark
            n -= 3;
        }
        long bad = app_text_bad_byte(r->line, n);
        if (bad >= 0)
        {
            char what[40];
            app_describe_byte((unsigned char)r->line[bad], what, sizeof what);
            snprintf(r->why, sizeof r->why, "line %lld, column %ld: %s (a text file holds none)", (long long)r->line_no,
                     bad + 1, what);
            return -1;
        }
        const char* p = r->line;
        while (*p == ' ' || *p == '\t')
        {
            ++p;
        }
        if (*p != '\0' && *p != '#')
        {
            return 1;
        }
    }
}

/// The next data row (its text points into the reader's line buffer): 1, 0 at the end, -1 on a read error.
static int reader_row(sweep_reader* r, sweep_row* row)
{
    int s = reader_line(r);
    if (s == 1)
    {
        row->index = ++r->rows;
        row->line = r->line_no;
        row->text = r->line;
    }
    return s;
}

// ---------------------------------------------------------------------------------------------------------------
// Output writer (rank 0): header, resume, in-order appends
// ---------------------------------------------------------------------------------------------------------------

typedef struct sweep_writer
{
    FILE* f;
    const char* path;
    int64_t written;       // rows in the output (kept from a resumed output included)
    int64_t failed;        // rows whose status is "error"
    int64_t kill_after;    // testing hook (0: off)
    int64_t first_error;   // row number of the first failed row (0: none)
    int status_column;     // 0-based column of the status
    char fingerprint[200]; // the output's first line (without its line break): the inputs' hashes
    sweep_fingerprint fingerprint_data;
} sweep_writer;

/// Check one complete line of an existing output: it starts with row number `k` and the key of input row k, and has
/// the output's column count.
static bool check_resumed_line(const sweep_job* job, char* line, const sweep_row* row, int64_t k, bool* failed,
                               char* why, size_t why_cap)
{
    char prefix[1200];
    char key[1024];
    job->key(job->ctx, row, key, sizeof key);
    int plen = snprintf(prefix, sizeof prefix, "%lld,%s,", (long long)k, key);
    if (plen < 0 || (size_t)plen >= sizeof prefix || strncmp(line, prefix, (size_t)plen) != 0)
    {
        size_t shown = strlen(line) < 60 ? strlen(line) : 60;
        snprintf(why, why_cap, "it starts with '%.*s' where input row %lld gives '%.60s'", (int)shown, line,
                 (long long)k, prefix);
        return false;
    }
    char* fields[SWEEP_MAX_COLUMNS];
    int n = sweep_csv_split(line, fields, SWEEP_MAX_COLUMNS);
    if (n != job->out_columns)
    {
        snprintf(why, why_cap, "%d columns instead of %d", n, job->out_columns);
        return false;
    }
    *failed = strcmp(fields[job->status_column], "error") == 0;
    return true;
}

/// Keep the complete, well-formed rows of an existing output (each must match the input row of its number), cut a
/// torn last line, and leave the file positioned for appending; the reader has consumed the kept rows. Returns 0, or
/// 1 after printing why the output cannot be resumed.
static int resume_output(const sweep_job* job, sweep_reader* in, sweep_writer* w)
{
    char* line = NULL;
    size_t cap = 0;
    long keep = 0; // bytes of the output that are kept
    int rc = 0;
    // The fingerprint line first: an output of other inputs is refused, naming the input that differs. A torn first
    // line (killed while the file was created) is written again.
    ssize_t n = getline(&line, &cap, w->f);
    bool fingerprint_ok = n > 0 && line[n - 1] == '\n';
    if (fingerprint_ok)
    {
        char why[300];
        line[n - 1] = '\0';
        if (!sweep_fingerprint_check(job->name, &w->fingerprint_data, line, why, sizeof why))
        {
            rc = cli_fail(w->path, "cannot resume: %s (remove the file or run without --resume)", why);
        }
        n = rc == 0 ? getline(&line, &cap, w->f) : -1;
    }
    long first = fingerprint_ok ? (long)strlen(w->fingerprint) + 1 : 0;
    bool header_ok = n > 0 && line[n - 1] == '\n' && (size_t)n == strlen(job->out_header) + 1 &&
                     strncmp(line, job->out_header, (size_t)n - 1) == 0;
    if (rc == 0 && n > 0 && line[n - 1] == '\n' && !header_ok)
    {
        rc = cli_fail(w->path, "cannot resume: its first line is not the header of this sweep (remove the file or run "
                               "without --resume)");
    }
    keep = header_ok ? first + (long)n : 0;
    while (rc == 0 && header_ok && (n = getline(&line, &cap, w->f)) > 0 && line[n - 1] == '\n')
    {
        line[n - 1] = '\0';
        sweep_row row;
        int s = reader_row(in, &row);
        char why[300];
        bool failed = false;
        if (s != 1)
        {
            rc = cli_fail(w->path, "cannot resume: it has more rows than %s", in->path);
        }
        else if (!check_resumed_line(job, line, &row, w->written + 1, &failed, why, sizeof why))
        {
            rc = cli_fail(w->path, "cannot resume: line %lld is not row %lld of this sweep: %s",
                          (long long)(w->written + 3), (long long)(w->written + 1), why);
        }
        else
        {
            keep += (long)n;
            w->written++;
            if (failed)
            {
                w->failed++;
                w->first_error = w->first_error == 0 ? w->written : w->first_error;
            }
        }
    }
    free(line);
    if (rc == 0 && (fflush(w->f) != 0 || ftruncate(fileno(w->f), keep) != 0 || fseek(w->f, keep, SEEK_SET) != 0))
    {
        rc = cli_fail(w->path, "cannot resume: %s", strerror(errno));
    }
    if (rc == 0 && keep == 0 && fprintf(w->f, "%s\n%s\n", w->fingerprint, job->out_header) < 0)
    {
        rc = cli_fail(w->path, "cannot write: %s", strerror(errno));
    }
    return rc;
}

/// Open the output: a fresh file with its fingerprint line and header, or (resume) the kept rows of an existing one
/// whose fingerprint matches. The file is locked (flock) before anything in it changes: a second sweep on the same
/// output is refused.
static int open_output(const sweep_job* job, const sweep_io* io, sweep_reader* in, sweep_writer* w,
                       const sweep_fingerprint* fp)
{
    memset(w, 0, sizeof *w);
    w->path = io->output_path;
    w->kill_after = io->kill_after;
    w->status_column = job->status_column;
    w->fingerprint_data = *fp;
    sweep_fingerprint_line(job->name, fp, w->fingerprint, sizeof w->fingerprint);
    // Not O_TRUNC: the file changes only once it is locked.
    int fd = open(io->output_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    w->f = fd >= 0 ? fdopen(fd, "r+") : NULL;
    if (w->f == NULL)
    {
        if (fd >= 0)
        {
            close(fd);
        }
        return cli_fail(io->output_path, "cannot write: %s", strerror(errno));
    }
    if (sweep_lock_output(w->f, io->output_path) != 0)
    {
        fclose(w->f);
        w->f = NULL;
        return 1;
    }
    if (io->resume)
    {
        return resume_output(job, in, w);
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && ftruncate(fd, 0) != 0)
    {
        return cli_fail(io->output_path, "cannot write: %s", strerror(errno));
    }
    if (fprintf(w->f, "%s\n%s\n", w->fingerprint, job->out_header) < 0 || fflush(w->f) != 0)
    {
        return cli_fail(io->output_path, "cannot write: %s", strerror(errno));
    }
    return 0;
}

/// Testing hook: leave a torn line behind (the next row's number and a comma, no line break) and die as `kill -9`
/// would kill the process.
static void kill_now(sweep_writer* w)
{
    fprintf(w->f, "%lld,", (long long)(w->written + 1));
    fflush(w->f);
    raise(SIGKILL);
}

/// Append complete output rows (text of `rows` lines) and flush. Returns 0, or 1 after printing the write error.
static int write_rows(sweep_writer* w, const char* text, size_t length)
{
    const char* p = text;
    const char* end = text + length;
    while (p < end)
    {
        const char* nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (fwrite(p, 1, n, w->f) != n)
        {
            return cli_fail(w->path, "cannot write: %s", strerror(errno));
        }
        // The status field follows `row` and the key columns (numbers: no quoted commas).
        const char* c = p;
        for (int k = 0; k < w->status_column && c != NULL; ++k)
        {
            c = memchr(c, ',', n - (size_t)(c - p));
            c = c != NULL ? c + 1 : NULL;
        }
        w->written++;
        if (c != NULL && strncmp(c, "error,", 6) == 0)
        {
            w->failed++;
            w->first_error = w->first_error == 0 ? w->written : w->first_error;
        }
        if (w->kill_after > 0 && w->written == w->kill_after)
        {
            kill_now(w);
        }
        p += n;
    }
    if (fflush(w->f) != 0)
    {
        return cli_fail(w->path, "cannot write: %s", strerror(errno));
    }
    return 0;
}

/// Close the output and say how the sweep went. Returns the exit status.
static int finish_output(sweep_writer* w)
{
    int rc = 0;
    if (w->f != NULL && fclose(w->f) != 0)
    {
        rc = cli_fail(w->path, "cannot write: %s", strerror(errno));
    }
    w->f = NULL;
    if (rc == 0 && w->failed > 0)
    {
        rc = cli_fail(w->path, "%lld of %lld rows failed (the first: row %lld; see its status and message columns)",
                      (long long)w->failed, (long long)w->written, (long long)w->first_error);
    }
    return rc;
}

#ifdef MC_HAVE_MPI
// ---------------------------------------------------------------------------------------------------------------
// Evaluation of a chunk of rows (every rank)
// ---------------------------------------------------------------------------------------------------------------

/// A chunk of input rows, as sent to a worker: int64 header {seq, count}, then per row int64 {index, line, length}
/// and the text with its NUL.
typedef struct sweep_chunk
{
    int64_t seq;   // chunk number (0, 1, ... in input order)
    int64_t count; // rows in it
    sweep_text bytes;
} sweep_chunk;

static bool chunk_add(sweep_chunk* c, const sweep_row* row)
{
    int64_t h[3] = {row->index, row->line, (int64_t)strlen(row->text)};
    c->count++;
    return sweep_text_append(&c->bytes, (const char*)h, sizeof h) &&
           sweep_text_append(&c->bytes, row->text, (size_t)h[2] + 1);
}

/// Read up to `max` rows into a fresh chunk. Returns rows read (0 at the end), -1 on a read error (printed).
static int64_t chunk_read(sweep_reader* in, int64_t seq, int max, sweep_chunk* c)
{
    sweep_text_free(&c->bytes);
    c->seq = seq;
    c->count = 0;
    sweep_row row;
    int s = 1;
    while (c->count < max && (s = reader_row(in, &row)) == 1)
    {
        if (!chunk_add(c, &row))
        {
            cli_fail(in->path, "out of memory");
            return -1;
        }
    }
    if (s < 0)
    {
        cli_fail(in->path, "cannot read: %s", in->why[0] != '\0' ? in->why : strerror(errno));
        return -1;
    }
    return c->count;
}

/// Evaluate rows of an encoded chunk starting at byte `*offset`, appending output lines; advances *offset.
static bool chunk_eval_row(const sweep_job* job, char* bytes, size_t* offset, sweep_text* out)
{
    int64_t h[3];
    memcpy(h, bytes + *offset, sizeof h);
    sweep_row row = {h[0], h[1], bytes + *offset + sizeof h};
    *offset += sizeof h + (size_t)h[2] + 1;
    return job->evaluate(job->ctx, &row, out) >= 0;
}

#endif

// ---------------------------------------------------------------------------------------------------------------
// MPI
// ---------------------------------------------------------------------------------------------------------------

// The environment variables an MPI launcher sets (Open MPI's mpirun, PMI / PMIx launchers such as Slurm's srun).
static bool launched_by_mpi(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL || getenv("PMI_SIZE") != NULL;
}

#ifdef MC_HAVE_MPI
static bool s_mpi_started;

sweep_ranks sweep_parallel_begin(int* argc, char*** argv)
{
    sweep_ranks r = {0, 1};
    if (launched_by_mpi())
    {
        int provided = 0;
        // OpenMP runs inside each rank, but only the main thread calls MPI.
        MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
        s_mpi_started = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    }
    return r;
}

bool sweep_parallel_all(bool ok)
{
    if (!s_mpi_started)
    {
        return ok;
    }
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all != 0;
}

void sweep_parallel_end(void)
{
    if (s_mpi_started)
    {
        MPI_Finalize();
        s_mpi_started = false;
    }
}
#else
sweep_ranks sweep_parallel_begin(int* argc, char*** argv)
{
    (void)argc;
    (void)argv;
    sweep_ranks r = {0, 1};
    const char* size = getenv("OMPI_COMM_WORLD_SIZE");
    if (size != NULL && strcmp(size, "1") != 0)
    {
        // Every copy would write the whole output: refuse rather than race.
        r.size = -1;
    }
    (void)launched_by_mpi;
    return r;
}

bool sweep_parallel_all(bool ok)
{
    return ok;
}

void sweep_parallel_end(void) {}
#endif

// ---------------------------------------------------------------------------------------------------------------
// The sweep loops
// ---------------------------------------------------------------------------------------------------------------

/// One process: rows one at a time, each appended as soon as it is done.
static int run_serial(const sweep_job* job, sweep_reader* in, sweep_writer* w)
{
    sweep_text out = {0};
    sweep_row row;
    int s;
    int rc = 0;
    while (rc == 0 && (s = reader_row(in, &row)) == 1)
    {
        out.length = 0;
        if (job->evaluate(job->ctx, &row, &out) < 0)
        {
            rc = cli_fail(in->path, "row %lld: out of memory", (long long)row.index);
            break;
        }
        rc = write_rows(w, out.data, out.length);
    }
    if (rc == 0 && s < 0)
    {
        rc = cli_fail(in->path, "cannot read: %s", in->why[0] != '\0' ? in->why : strerror(errno));
    }
    sweep_text_free(&out);
    return rc;
}

#ifdef MC_HAVE_MPI
enum
{
    TAG_CHUNK = 1,  // rank 0 -> worker: a chunk of rows
    TAG_STOP = 2,   // rank 0 -> worker: no more rows
    TAG_RESULT = 3, // worker -> rank 0: int64 seq, then the chunk's output lines
    TAG_SETUP = 4,  // rank 0 -> all: the input header, or an empty message when the sweep cannot run
};

/// Wait for a message without spinning: MPI_Probe busy-polls a core (Open MPI), which on a shared or oversubscribed
/// machine takes the core from the ranks that have rows to evaluate. Polls with a sleep growing from 20 us to 1 ms.
static void wait_for(int source, int tag, MPI_Status* st)
{
    long ns = 20000;
    for (;;)
    {
        int flag = 0;
        MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, st);
        if (flag)
        {
            return;
        }
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        ns = ns < 1000000 ? 2 * ns : ns;
    }
}

/// Messages sent without waiting (MPI_Isend), each buffer kept until its send completes. A blocking MPI_Send over
/// Open MPI's shared-memory transport spins until the receiver polls, which a rank busy with rows does only between
/// rows: measured, rank 0 spent half its time in such sends.
typedef struct send_queue
{
    MPI_Request* req;
    char** buf;
    int count;
    int capacity;
} send_queue;

/// Send `length` bytes of `buf` (malloc'ed or NULL; the queue frees it once sent). Returns false when out of memory
/// (then buf is freed and nothing is sent).
static bool sendq_post(send_queue* q, char* buf, int length, int dest, int tag)
{
    if (q->count == q->capacity)
    {
        int cap = q->capacity < 8 ? 8 : 2 * q->capacity;
        MPI_Request* r = realloc(q->req, (size_t)cap * sizeof *r);
        char** b = r != NULL ? realloc(q->buf, (size_t)cap * sizeof *b) : NULL;
        q->req = r != NULL ? r : q->req;
        if (b == NULL)
        {
            free(buf);
            return false;
        }
        q->buf = b;
        q->capacity = cap;
    }
    MPI_Isend(buf, length, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &q->req[q->count]);
    q->buf[q->count++] = buf;
    return true;
}

/// Free the buffers of the sends that completed.
static void sendq_reap(send_queue* q)
{
    int kept = 0;
    for (int k = 0; k < q->count; ++k)
    {
        int done = 0;
        MPI_Test(&q->req[k], &done, MPI_STATUS_IGNORE);
        if (done)
        {
            free(q->buf[k]);
        }
        else
        {
            q->req[kept] = q->req[k];
            q->buf[kept++] = q->buf[k];
        }
    }
    q->count = kept;
}

/// Wait (polling, with sleeps) until every send completed, then free the queue.
static void sendq_drain(send_queue* q)
{
    long ns = 20000;
    for (sendq_reap(q); q->count > 0; sendq_reap(q))
    {
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        ns = ns < 1000000 ? 2 * ns : ns;
    }
    free(q->req);
    free(q->buf);
    memset(q, 0, sizeof *q);
}

/// Rank 0's bookkeeping: the reader, the writer, per worker its chunks in hand, and the results that wait for an
/// earlier chunk (pending[seq - next_seq]).
typedef struct sweep_master
{
    const sweep_job* job;
    sweep_reader* in;
    sweep_writer* w;
    int size;
    int chunk;
    int64_t next_seq_read;  // next chunk number to read
    int64_t next_seq_write; // next chunk number to write
    bool input_done;
    int* in_hand;         // per rank: chunks sent and not yet returned
    bool* stopped;        // per rank: STOP sent
    sweep_text* pending;  // results waiting for earlier chunks, by seq - next_seq_write
    bool* pending_ready;  // which entries of pending are filled
    int64_t pending_cap;  // entries of pending
    sweep_chunk scratch;  // chunk being sent
    sweep_chunk local;    // rank 0's own chunk
    size_t local_offset;  // next row of the local chunk
    int64_t local_done;   // rows of the local chunk done
    sweep_text local_out; // its output
    bool local_active;
    send_queue sends; // chunks and STOPs on their way
    int64_t window;   // chunks handed out at most past the oldest one not yet written (bounds pending)
    bool* starved;    // per rank: holds no chunk because the window was full
} sweep_master;

static int master_feed(sweep_master* m, int r);

/// Keep the result of chunk `seq`, write every chunk that no longer waits for an earlier one, and feed the workers
/// that the window starved. Returns 0, or 1 after printing the error.
static int master_store(sweep_master* m, int64_t seq, const char* text, size_t length)
{
    int64_t k = seq - m->next_seq_write;
    if (k >= m->pending_cap)
    {
        int64_t cap = m->pending_cap < 16 ? 16 : m->pending_cap;
        while (cap <= k)
        {
            cap *= 2;
        }
        sweep_text* p = realloc(m->pending, (size_t)cap * sizeof *p);
        bool* r = p != NULL ? realloc(m->pending_ready, (size_t)cap * sizeof *r) : NULL;
        if (p != NULL)
        {
            m->pending = p;
        }
        if (r == NULL)
        {
            return cli_fail(NULL, "sweep: out of memory");
        }
        m->pending_ready = r;
        memset(p + m->pending_cap, 0, (size_t)(cap - m->pending_cap) * sizeof *p);
        memset(r + m->pending_cap, 0, (size_t)(cap - m->pending_cap) * sizeof *r);
        m->pending_cap = cap;
    }
    m->pending[k].length = 0;
    if (!sweep_text_append(&m->pending[k], text, length) && length > 0)
    {
        return cli_fail(NULL, "sweep: out of memory");
    }
    m->pending_ready[k] = true;
    // Write every chunk that no longer waits for an earlier one.
    int rc = 0;
    while (rc == 0 && m->pending_cap > 0 && m->pending_ready[0])
    {
        rc = write_rows(m->w, m->pending[0].data != NULL ? m->pending[0].data : "", m->pending[0].length);
        sweep_text done = m->pending[0];
        memmove(m->pending, m->pending + 1, (size_t)(m->pending_cap - 1) * sizeof *m->pending);
        memmove(m->pending_ready, m->pending_ready + 1, (size_t)(m->pending_cap - 1) * sizeof *m->pending_ready);
        done.length = 0;
        m->pending[m->pending_cap - 1] = done; // keep its buffer for reuse
        m->pending_ready[m->pending_cap - 1] = false;
        m->next_seq_write++;
        for (int r = 1; rc == 0 && r < m->size; ++r)
        {
            if (m->starved[r])
            {
                m->starved[r] = false;
                rc = master_feed(m, r);
            }
        }
    }
    return rc;
}

/// True when the next chunk would be `window` chunks or more past the oldest chunk not yet written.
static bool window_full(const sweep_master* m)
{
    return m->next_seq_read >= m->next_seq_write + m->window;
}

/// Read the next chunk into `c`: 1 when it has rows, 0 at the end of the input, 2 when the window is full (nothing
/// read), -1 on error (printed).
static int master_next_chunk(sweep_master* m, sweep_chunk* c)
{
    if (m->input_done)
    {
        return 0;
    }
    if (window_full(m))
    {
        return 2;
    }
    int64_t n = chunk_read(m->in, m->next_seq_read, m->chunk, c);
    if (n <= 0)
    {
        m->input_done = true;
        return n < 0 ? -1 : 0;
    }
    m->next_seq_read++;
    return 1;
}

/// Give worker `r` its next chunk, or STOP when the input is done and it holds none; when the window is full and it
/// holds none, it is starved until the next write.
static int master_feed(sweep_master* m, int r)
{
    int s = master_next_chunk(m, &m->scratch);
    if (s < 0)
    {
        return 1;
    }
    if (s == 2)
    {
        m->starved[r] = m->in_hand[r] == 0;
    }
    else if (s == 1)
    {
        int64_t h[2] = {m->scratch.seq, m->scratch.count};
        sweep_text msg = {0};
        if (!sweep_text_append(&msg, (const char*)h, sizeof h) ||
            !sweep_text_append(&msg, m->scratch.bytes.data, m->scratch.bytes.length) ||
            !sendq_post(&m->sends, msg.data, (int)msg.length, r, TAG_CHUNK))
        {
            sweep_text_free(&msg);
            return cli_fail(NULL, "sweep: out of memory");
        }
        m->in_hand[r]++;
    }
    else if (m->in_hand[r] == 0 && !m->stopped[r])
    {
        if (!sendq_post(&m->sends, NULL, 0, r, TAG_STOP))
        {
            return cli_fail(NULL, "sweep: out of memory");
        }
        m->stopped[r] = true;
    }
    return 0;
}

/// Receive one result (blocking), store it, and feed its worker.
static int master_receive(sweep_master* m, const MPI_Status* probed)
{
    int bytes = 0;
    MPI_Get_count(probed, MPI_BYTE, &bytes);
    char* buf = malloc((size_t)bytes + 1);
    if (buf == NULL)
    {
        return cli_fail(NULL, "sweep: out of memory");
    }
    MPI_Recv(buf, bytes, MPI_BYTE, probed->MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int64_t seq;
    memcpy(&seq, buf, sizeof seq);
    int r = probed->MPI_SOURCE;
    m->in_hand[r]--;
    int rc = master_store(m, seq, buf + sizeof seq, (size_t)bytes - sizeof seq);
    free(buf);
    return rc != 0 ? rc : master_feed(m, r);
}

/// Rank 0 evaluates one row of its own chunk (taking a new chunk when it has none). Returns 0, or 1 on error.
static int master_local_step(sweep_master* m)
{
    if (!m->local_active)
    {
        int s = master_next_chunk(m, &m->local);
        if (s != 1)
        {
            return s < 0 ? 1 : 0;
        }
        m->local_active = true;
        m->local_offset = 0;
        m->local_done = 0;
        m->local_out.length = 0;
    }
    if (!chunk_eval_row(m->job, m->local.bytes.data, &m->local_offset, &m->local_out))
    {
        return cli_fail(NULL, "sweep: out of memory");
    }
    if (++m->local_done == m->local.count)
    {
        m->local_active = false;
        return master_store(m, m->local.seq, m->local_out.data, m->local_out.length);
    }
    return 0;
}

static bool master_finished(const sweep_master* m)
{
    for (int r = 1; r < m->size; ++r)
    {
        if (!m->stopped[r])
        {
            return false;
        }
    }
    return m->input_done && !m->local_active;
}

/// Rank 0 with workers: two chunks to each worker, then one more per result; between its own rows it takes the
/// results that arrived. Output in chunk order.
static int run_master(const sweep_job* job, sweep_reader* in, sweep_writer* w, int size, int chunk, int window)
{
    sweep_master m;
    memset(&m, 0, sizeof m);
    m.job = job;
    m.in = in;
    m.w = w;
    m.size = size;
    m.chunk = chunk;
    m.in_hand = calloc((size_t)size, sizeof *m.in_hand);
    m.stopped = calloc((size_t)size, sizeof *m.stopped);
    m.starved = calloc((size_t)size, sizeof *m.starved);
    m.window = window > 0 ? window : (8 * size > SWEEP_DEFAULT_WINDOW ? 8 * size : SWEEP_DEFAULT_WINDOW);
    int rc = m.in_hand == NULL || m.stopped == NULL || m.starved == NULL ? cli_fail(NULL, "sweep: out of memory") : 0;
    bool works = size <= SWEEP_RANK0_WORKS_MAX;
    for (int k = 0; k < 2 && rc == 0; ++k)
    {
        for (int r = 1; r < size && rc == 0; ++r)
        {
            rc = master_feed(&m, r);
        }
    }
    while (rc == 0 && !master_finished(&m))
    {
        int flag = 0;
        MPI_Status st;
        sendq_reap(&m.sends);
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        if (flag)
        {
            rc = master_receive(&m, &st);
        }
        else if (works && (m.local_active || (!m.input_done && !window_full(&m))))
        {
            rc = master_local_step(&m);
        }
        else
        {
            wait_for(MPI_ANY_SOURCE, TAG_RESULT, &st);
            rc = master_receive(&m, &st);
        }
    }
    if (rc == 0)
    {
        sendq_drain(&m.sends);
    }
    for (int64_t k = 0; k < m.pending_cap; ++k)
    {
        sweep_text_free(&m.pending[k]);
    }
    free(m.pending);
    free(m.pending_ready);
    free(m.in_hand);
    free(m.stopped);
    free(m.starved);
    sweep_text_free(&m.scratch.bytes);
    sweep_text_free(&m.local.bytes);
    sweep_text_free(&m.local_out);
    if (rc != 0)
    {
        MPI_Abort(MPI_COMM_WORLD, 1); // workers may wait for chunks: end them all
    }
    return rc;
}

/// A worker: evaluate each chunk it is given and send back its output lines, until STOP.
static int run_worker(const sweep_job* job)
{
    sweep_text out = {0};
    send_queue sends = {0};
    int rc = 0;
    for (;;)
    {
        MPI_Status st;
        wait_for(0, MPI_ANY_TAG, &st);
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        char* buf = malloc((size_t)bytes + 1);
        if (buf == NULL)
        {
            rc = cli_fail(NULL, "sweep: out of memory");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Recv(buf, bytes, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_STOP)
        {
            free(buf);
            break;
        }
        int64_t h[2];
        memcpy(h, buf, sizeof h);
        out.length = 0;
        bool ok = sweep_text_append(&out, (const char*)&h[0], sizeof h[0]);
        size_t offset = sizeof h;
        for (int64_t k = 0; ok && k < h[1]; ++k)
        {
            ok = chunk_eval_row(job, buf, &offset, &out);
        }
        free(buf);
        if (!ok)
        {
            rc = cli_fail(NULL, "sweep: out of memory");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        // The result goes without waiting; its buffer belongs to the queue from now on.
        if (!sendq_post(&sends, out.data, (int)out.length, 0, TAG_RESULT))
        {
            rc = cli_fail(NULL, "sweep: out of memory");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(&out, 0, sizeof out);
        sendq_reap(&sends);
    }
    sendq_drain(&sends);
    sweep_text_free(&out);
    return rc;
}

/// Share rank 0's input header with every rank (an empty one: the sweep cannot run). Returns the header (malloc'ed)
/// or NULL.
static char* share_header(const char* header)
{
    int n = header != NULL ? (int)strlen(header) + 1 : 0;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (n == 0)
    {
        return NULL;
    }
    char* copy = malloc((size_t)n);
    if (copy == NULL)
    {
        MPI_Abort(MPI_COMM_WORLD, 1);
        return NULL;
    }
    if (header != NULL)
    {
        memcpy(copy, header, (size_t)n);
    }
    MPI_Bcast(copy, n, MPI_CHAR, 0, MPI_COMM_WORLD);
    return copy;
}
#endif

// ---------------------------------------------------------------------------------------------------------------
// Entry
// ---------------------------------------------------------------------------------------------------------------

/// Rank 0: open the input and read its header (a copy into *header, for the other ranks), then open (or resume) the
/// output. Returns 0 or 1 (printed).
static int open_files(const sweep_job* job, const sweep_io* io, sweep_reader* in, sweep_writer* w, char** header)
{
    in->path = io->input_path;
    char why[600] = "";
    // A device, FIFO or directory is refused (app_open_input); the input's bytes are part of the fingerprint.
    sweep_fingerprint fp = io->fingerprint;
    fp.part[3] = sweep_hash_start();
    if (io->input_text != NULL)
    {
        fp.part[3] = sweep_hash_bytes(fp.part[3], io->input_text, strlen(io->input_text));
        in->f = fmemopen((void*)io->input_text, strlen(io->input_text), "r");
        snprintf(why, sizeof why, "%s: out of memory", io->input_path);
    }
    else
    {
        in->f = app_open_input(io->input_path, why, sizeof why);
        if (in->f != NULL && !sweep_hash_file(&fp.part[3], io->input_path))
        {
            snprintf(why, sizeof why, "%s: cannot read: %s", io->input_path, strerror(errno));
            fclose(in->f);
            in->f = NULL;
        }
    }
    if (in->f == NULL)
    {
        return cli_fail(NULL, "%s", why);
    }
    int s = reader_line(in);
    if (s <= 0)
    {
        return cli_fail(io->input_path, s == 0 ? "no header line (the file is empty)" : "cannot read: %s",
                        in->why[0] != '\0' ? in->why : strerror(errno));
    }
    *header = strdup(in->line);
    if (*header == NULL)
    {
        return cli_fail(io->input_path, "out of memory");
    }
    char err[300] = "";
    if (!job->read_header(job->ctx, in->line, err, sizeof err))
    {
        return cli_fail(io->input_path, "line %lld: %s", (long long)in->line_no, err);
    }
    return open_output(job, io, in, w, &fp);
}

int sweep_run(const sweep_job* job, const sweep_io* io, sweep_ranks ranks)
{
    sweep_reader in;
    memset(&in, 0, sizeof in);
    sweep_writer w;
    memset(&w, 0, sizeof w);
    int rc = 0;
    char* header0 = NULL; // rank 0: the input header as read
    if (ranks.rank == 0)
    {
        rc = open_files(job, io, &in, &w, &header0);
    }
#ifdef MC_HAVE_MPI
    if (ranks.size > 1)
    {
        char* header = share_header(rc == 0 ? header0 : NULL);
        if (header == NULL)
        {
            rc = 1;
        }
        else if (ranks.rank != 0)
        {
            char err[300];
            rc = job->read_header(job->ctx, header, err, sizeof err) ? 0 : cli_fail(io->input_path, "%s", err);
        }
        free(header);
        if (!sweep_parallel_all(rc == 0))
        {
            rc = 1;
        }
        else if (ranks.rank == 0)
        {
            rc = run_master(job, &in, &w, ranks.size, io->chunk > 0 ? io->chunk : SWEEP_DEFAULT_CHUNK, io->window);
        }
        else
        {
            rc = run_worker(job);
        }
    }
    else
#endif
        if (rc == 0)
    {
        rc = run_serial(job, &in, &w);
    }
    if (ranks.rank == 0)
    {
        int frc = w.f != NULL ? finish_output(&w) : 0;
        rc = rc != 0 ? rc : frc;
        if (in.f != NULL)
        {
            fclose(in.f);
        }
        free(in.line);
    }
    free(header0);
    return rc;
}
