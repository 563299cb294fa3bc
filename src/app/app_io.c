// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Files of the application (app_io.h): checked inputs, all-or-nothing outputs, checked stdout, printable messages.
#if !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 // realpath
#endif
#include "src/app/app_io.h"

#include "src/app/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------------------------

/// Length of the valid UTF-8 character at s (1 to 4), or 0 when the bytes there are not one.
static size_t utf8_char(const unsigned char* s)
{
    unsigned char c = s[0];
    if (c < 0x80)
    {
        return 1;
    }
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t k = 1; k < n; ++k)
    {
        if ((s[k] & 0xC0) != 0x80)
        {
            return 0;
        }
    }
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
    {
        return 0;
    }
    return n;
}

void app_json_string(FILE* f, const char* s)
{
    fputc('"', f);
    const unsigned char* p = (const unsigned char*)s;
    while (*p != '\0')
    {
        size_t n = utf8_char(p);
        if (*p == '"' || *p == '\\')
        {
            fputc('\\', f);
            fputc(*p, f);
        }
        else if (*p < 0x20 || *p == 0x7F)
        {
            fprintf(f, "\\u%04x", *p);
        }
        else if (n == 0)
        {
            fputs("\\ufffd", f); // not UTF-8 (a Latin-1 file name): the replacement character
            n = 1;
        }
        else
        {
            fwrite(p, 1, n, f);
        }
        p += n == 0 ? 1 : n;
    }
    fputc('"', f);
}

void app_escape_controls(const char* s, char* buf, size_t cap)
{
    size_t w = 0;
    for (const unsigned char* p = (const unsigned char*)s; *p != '\0' && w + 1 < cap; ++p)
    {
        char esc[8] = {0};
        if (*p == '\n' || *p == '\r' || *p == '\t')
        {
            snprintf(esc, sizeof esc, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        }
        else if (*p < 0x20 || *p == 0x7F)
        {
            snprintf(esc, sizeof esc, "\\x%02X", *p);
        }
        else
        {
            buf[w++] = (char)*p;
            continue;
        }
        size_t n = strlen(esc);
        if (w + n + 1 > cap)
        {
            break;
        }
        memcpy(buf + w, esc, n);
        w += n;
    }
    buf[w] = '\0';
}

const char* app_short_path(const char* path, char* buf, size_t cap)
{
    size_t n = strlen(path);
    if (n < cap || cap < 16)
    {
        return path;
    }
    // Keep a quarter of the room for the start, the rest for the end (the file name), on character boundaries.
    size_t head = (cap - 4) / 4;
    size_t tail = cap - 4 - head;
    while (head > 0 && ((unsigned char)path[head] & 0xC0) == 0x80)
    {
        --head;
    }
    size_t from = n - tail;
    while (from < n && ((unsigned char)path[from] & 0xC0) == 0x80)
    {
        ++from;
    }
    memcpy(buf, path, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, path + from, n - from + 1);
    return buf;
}

// ---------------------------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------------------------

/// What a file of this mode is, when it is not a regular file; NULL for a regular file.
static const char* not_regular(mode_t mode)
{
    return S_ISREG(mode)    ? NULL
           : S_ISDIR(mode)  ? "is a directory"
           : S_ISFIFO(mode) ? "is a FIFO (a pipe), not a regular file"
           : S_ISCHR(mode)  ? "is a character device, not a regular file"
           : S_ISBLK(mode)  ? "is a block device, not a regular file"
           : S_ISSOCK(mode) ? "is a socket, not a regular file"
                            : "is not a regular file";
}

FILE* app_open_input(const char* path, char* err, size_t cap)
{
    char shortened[300];
    const char* shown = app_short_path(path, shortened, sizeof shortened);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
    {
        snprintf(err, cap, "%s: cannot open: %s", shown, strerror(errno));
        return NULL;
    }
    struct stat sb;
    const char* why = fstat(fd, &sb) != 0 ? strerror(errno) : not_regular(sb.st_mode);
    int flags = why == NULL ? fcntl(fd, F_GETFL) : -1;
    if (why == NULL && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0))
    {
        why = strerror(errno);
    }
    FILE* f = why == NULL ? fdopen(fd, "rb") : NULL;
    if (f == NULL)
    {
        snprintf(err, cap, "%s: %s", shown, why != NULL ? why : strerror(errno));
        close(fd);
    }
    return f;
}

long app_text_bad_byte(const char* s, size_t n)
{
    for (size_t i = 0; i < n; ++i)
    {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v')
        {
            return (long)i;
        }
    }
    return -1;
}

void app_describe_byte(unsigned char c, char* buf, size_t cap)
{
    if (c == 0)
    {
        snprintf(buf, cap, "a NUL byte");
    }
    else
    {
        snprintf(buf, cap, "the control byte 0x%02X", (unsigned)c);
    }
}

bool app_read_text(const char* path, size_t max_bytes, char** text, size_t* length, int64_t* line, char* err,
                   size_t cap)
{
    *text = NULL;
    *length = 0;
    *line = 0;
    char shortened[300];
    const char* shown = app_short_path(path, shortened, sizeof shortened);
    FILE* f = app_open_input(path, err, cap);
    if (f == NULL)
    {
        return false;
    }
    struct stat sb;
    size_t n = 0;
    char* buf = NULL;
    bool ok = fstat(fileno(f), &sb) == 0;
    if (ok && (uint64_t)sb.st_size > max_bytes)
    {
        snprintf(err, cap, "%s: %llu bytes, more than the %llu a text file of meshcontact may have", shown,
                 (unsigned long long)sb.st_size, (unsigned long long)max_bytes);
        fclose(f);
        return false;
    }
    // The size from fstat, plus one byte to notice a file that grew while it was read.
    size_t want = ok ? (size_t)sb.st_size + 1 : 0;
    buf = ok ? malloc(want + 1) : NULL;
    if (buf == NULL)
    {
        snprintf(err, cap, "%s: out of memory for %zu bytes: %s", shown, want + 1, strerror(ENOMEM));
        fclose(f);
        return false;
    }
    n = fread(buf, 1, want, f);
    ok = !ferror(f);
    int read_errno = errno;
    fclose(f);
    if (!ok || n == want)
    {
        snprintf(err, cap, "%s: %s", shown,
                 !ok ? strerror(read_errno) : "read error (the file grew while it was read)");
        free(buf);
        return false;
    }
    buf[n] = '\0';
    size_t skip = n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; // a UTF-8 byte order mark
    if (skip > 0)
    {
        memmove(buf, buf + skip, n - skip + 1);
        n -= skip;
    }
    long bad = app_text_bad_byte(buf, n);
    if (bad >= 0)
    {
        int64_t l = 1;
        size_t start = 0;
        for (size_t i = 0; i < (size_t)bad; ++i)
        {
            if (buf[i] == '\n')
            {
                ++l;
                start = i + 1;
            }
        }
        char what[40];
        app_describe_byte((unsigned char)buf[bad], what, sizeof what);
        snprintf(err, cap, "%s:%lld: column %zu: %s (a text file holds none; a damaged or binary file?)", shown,
                 (long long)l, (size_t)bad - start + 1, what);
        *line = l;
        free(buf);
        return false;
    }
    *text = buf;
    *length = n;
    return true;
}

app_line_status app_read_line(FILE* f, size_t max, char** line, size_t* capacity, size_t* length)
{
    size_t n = 0;
    int c = 0;
    flockfile(f);
    while ((c = getc_unlocked(f)) != EOF && c != '\n')
    {
        if (n >= max)
        {
            funlockfile(f);
            return APP_LINE_TOO_LONG;
        }
        if (n + 2 > *capacity)
        {
            size_t cap = *capacity < 256 ? 256 : *capacity * 2;
            char* p = realloc(*line, cap);
            if (p == NULL)
            {
                funlockfile(f);
                return APP_LINE_MEMORY;
            }
            *line = p;
            *capacity = cap;
        }
        (*line)[n++] = (char)c;
    }
    funlockfile(f);
    if (c == EOF && (ferror(f) || n == 0))
    {
        return ferror(f) ? APP_LINE_ERROR : APP_LINE_END;
    }
    if (*line == NULL)
    {
        *line = malloc(1);
        *capacity = 1;
        if (*line == NULL)
        {
            return APP_LINE_MEMORY;
        }
    }
    while (n > 0 && (*line)[n - 1] == '\r')
    {
        --n;
    }
    (*line)[n] = '\0';
    *length = n;
    return APP_LINE_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------------------------

/// The folder of a path ("." when it has none), malloc'ed.
static char* folder_of(const char* path)
{
    const char* slash = strrchr(path, '/');
    if (slash == NULL)
    {
        return strdup(".");
    }
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char* d = malloc(n + 1);
    if (d != NULL)
    {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

bool app_output_open(app_output* o, const char* path, bool allow_stdout, char* err, size_t cap)
{
    memset(o, 0, sizeof *o);
    char shortened[300];
    const char* shown = app_short_path(path, shortened, sizeof shortened);
    o->path = strdup(path);
    if (o->path == NULL)
    {
        snprintf(err, cap, "%s: out of memory: %s", shown, strerror(ENOMEM));
        return false;
    }
    if (allow_stdout && strcmp(path, "-") == 0)
    {
        o->f = stdout;
        return true;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    {
        snprintf(err, cap, "%s: cannot write: %s", shown, strerror(EISDIR));
        app_output_discard(o);
        return false;
    }
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
    {
        // A device (/dev/null, /dev/stdout) or a FIFO: written in place, nothing to rename.
        o->f = fopen(path, "w");
        if (o->f == NULL)
        {
            snprintf(err, cap, "%s: cannot write: %s", shown, strerror(errno));
            app_output_discard(o);
            return false;
        }
        return true;
    }
    // A symbolic link is followed: the temporary goes beside the file it names, and replaces that file.
    char* real = realpath(path, NULL);
    const char* target = real != NULL ? real : path;
    const char* base = strrchr(target, '/');
    base = base != NULL ? base + 1 : target;
    char* dir = folder_of(target);
    size_t n = (dir != NULL ? strlen(dir) : 0) + strlen(base) + 40;
    o->tmp = dir != NULL ? malloc(n) : NULL;
    int fd = -1;
    int e = ENOMEM;
    if (real != NULL)
    {
        free(o->path);
        o->path = real; // rename onto the file, not onto the link
        real = NULL;
    }
    unsigned long seed = (unsigned long)getpid() * 2654435761ul ^ (unsigned long)time(NULL);
    for (int attempt = 0; o->tmp != NULL && attempt < 100 && fd < 0; ++attempt)
    {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        snprintf(o->tmp, n, "%s/.%s.%06lx.tmp", dir, base, (seed >> 33) & 0xFFFFFFul);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        e = errno;
        if (fd < 0 && e != EEXIST)
        {
            break;
        }
    }
    free(dir);
    free(real);
    if (fd >= 0 && stat(o->path, &sb) == 0 && S_ISREG(sb.st_mode))
    {
        (void)fchmod(fd, sb.st_mode & 07777); // the replaced file's permissions (best effort)
    }
    o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (o->f == NULL)
    {
        e = fd >= 0 ? errno : e;
        if (fd >= 0)
        {
            close(fd);
            unlink(o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        snprintf(err, cap, "%s: cannot write: %s", shown, strerror(e));
        app_output_discard(o);
        return false;
    }
    return true;
}

const char* app_output_name(const app_output* o)
{
    return o->tmp != NULL ? o->tmp : o->path;
}

/// fsync the folder of a path, so that a rename survives a crash (errors ignored: some file systems refuse it).
static void sync_folder(const char* path)
{
    char* dir = folder_of(path);
    int fd = dir != NULL ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0)
    {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

bool app_output_commit(app_output* o, char* err, size_t cap)
{
    char shortened[300];
    const char* shown = app_short_path(o->path != NULL ? o->path : "", shortened, sizeof shortened);
    int e = 0;
    if (o->f == NULL)
    {
        e = EBADF;
    }
    else if (o->f == stdout)
    {
        e = fflush(stdout) != 0 || ferror(stdout) ? (errno ? errno : EIO) : 0;
        o->f = NULL;
    }
    else
    {
        errno = 0;
        if (fflush(o->f) != 0 || ferror(o->f))
        {
            e = errno ? errno : EIO;
        }
        // fsync fails with EINVAL on a device or a FIFO written in place: nothing to sync there.
        if (e == 0 && fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != EROFS)
        {
            e = errno;
        }
        if (fclose(o->f) != 0 && e == 0)
        {
            e = errno ? errno : EIO;
        }
        o->f = NULL;
    }
    if (e == 0 && o->tmp != NULL)
    {
        // Only now does the target change: a failed or killed run leaves it as it was.
        if (rename(o->tmp, o->path) != 0)
        {
            e = errno;
        }
        else
        {
            free(o->tmp);
            o->tmp = NULL;
            sync_folder(o->path);
        }
    }
    if (e != 0)
    {
        snprintf(err, cap, "%s: cannot write: %s%s", shown, strerror(e),
                 o->tmp != NULL ? " (the previous file, if any, is unchanged)" : "");
    }
    app_output_discard(o);
    return e == 0;
}

void app_output_discard(app_output* o)
{
    if (o->f != NULL && o->f != stdout)
    {
        fclose(o->f);
    }
    if (o->tmp != NULL)
    {
        unlink(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}

void app_name_target(char* msg, size_t cap, const char* tmp, const char* target)
{
    char* at = tmp != NULL && tmp[0] != '\0' ? strstr(msg, tmp) : NULL;
    if (at == NULL || tmp == target)
    {
        return;
    }
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", at + strlen(tmp));
    snprintf(at, cap - (size_t)(at - msg), "%s%s", target, rest);
}

int app_write_mesh(const mc_mesh* mesh, const char* path, bool shl, double scale)
{
    char why[700];
    app_output o;
    if (!app_output_open(&o, path, false, why, sizeof why))
    {
        return cli_fail(NULL, "%s", why);
    }
    mc_error err;
    memset(&err, 0, sizeof err);
    const char* name = app_output_name(&o);
    mc_status st = shl ? mc_mesh_write_shl(mesh, name, scale, &err) : mc_mesh_write_stl(mesh, name, &err);
    if (st != MC_OK)
    {
        // The writer names the file it wrote (the temporary): say the target instead.
        const char* msg = err.message;
        size_t k = strlen(name);
        if (strncmp(msg, name, k) == 0)
        {
            msg += k;
            msg += strncmp(msg, ": ", 2) == 0 ? 2 : 0;
        }
        char shortened[300];
        cli_fail(app_short_path(path, shortened, sizeof shortened), "%s (the previous file, if any, is unchanged)",
                 msg);
        app_output_discard(&o);
        return 1;
    }
    if (!app_output_commit(&o, why, sizeof why))
    {
        return cli_fail(NULL, "%s", why);
    }
    return 0;
}

int app_finish_stdout(int rc)
{
    // A command may have flushed stdout itself (its error flag stays set, its errno is gone): then the reason is
    // unknown, and said so.
    errno = 0;
    bool bad = fflush(stdout) != 0 || ferror(stdout);
    int e = bad ? errno : 0;
    if (fclose(stdout) != 0 && !bad)
    {
        bad = true;
        e = errno;
    }
    if (bad)
    {
        cli_fail("stdout", "write error%s%s (the output is incomplete)", e != 0 ? ": " : "", e != 0 ? strerror(e) : "");
        return 1;
    }
    return rc;
}
