// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// `meshcontact sweep KIND ...`: many independent evaluations from a table (poses, scenario parameters), spread over
// MPI ranks when started by mpirun. Dispatches to the kinds of sweep (cli_sweep_poses.c, cli_sweep_scenario.c).
#include "src/app/cli_sweep.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int s_saved_stderr = -1; // rank > 0: the real stderr while the command line is parsed

void sweep_restore_stderr(void)
{
    if (s_saved_stderr >= 0)
    {
        fflush(stderr);
        dup2(s_saved_stderr, STDERR_FILENO);
        close(s_saved_stderr);
        s_saved_stderr = -1;
    }
}

typedef int sweep_kind_fcn(int argc, char** argv, sweep_ranks ranks);

static const struct
{
    const char* name;
    sweep_kind_fcn* fcn;
    const char* summary;
} s_kinds[] = {
    {"poses", cli_sweep_poses, "two meshes at every row of a table of poses: regions, volume, area, depth, forces"},
    {"scenario", cli_sweep_scenario, "a scenario simulated for every row of a table or grid of parameter values"},
};

static void print_help(FILE* f)
{
    fprintf(f, "usage: meshcontact sweep KIND ... -o OUT.csv [--resume]\n\n"
               "Run many independent contact evaluations from a table, one output row per input row, in input\n"
               "order, the rows appended to OUT.csv as they complete (--resume continues an interrupted run).\n"
               "Started by mpirun (built with Open MPI), the rows are spread over the ranks with dynamic\n"
               "distribution (rank 0 hands out chunks of rows and writes the output); the output is the same\n"
               "bytes for any number of ranks and threads. Without MPI the same command runs in one process.\n\n"
               "kinds:\n");
    for (size_t k = 0; k < sizeof s_kinds / sizeof s_kinds[0]; ++k)
    {
        fprintf(f, "  %-9s %s\n", s_kinds[k].name, s_kinds[k].summary);
    }
    fprintf(f, "\n'meshcontact sweep KIND --help' describes a kind's input and output.\n"
#ifdef MC_HAVE_MPI
               "This build has MPI: mpirun -np N meshcontact sweep ...\n"
#else
               "This build has no MPI: 'sh tests/install-mpi.sh' (in the source tree) installs Open MPI and\n"
               "reconfigures build/; then compile again.\n"
#endif
    );
}

int cli_sweep(int argc, char** argv)
{
    if (argc < 2)
    {
        return cli_usage_error("sweep", "missing KIND (poses or scenario)");
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
    {
        print_help(stdout);
        return 0;
    }
    sweep_kind_fcn* fcn = NULL;
    for (size_t k = 0; k < sizeof s_kinds / sizeof s_kinds[0]; ++k)
    {
        if (strcmp(argv[1], s_kinds[k].name) == 0)
        {
            fcn = s_kinds[k].fcn;
        }
    }
    if (fcn == NULL)
    {
        return cli_usage_error("sweep", "unknown KIND '%s' (poses or scenario)", argv[1]);
    }
    sweep_ranks ranks = sweep_parallel_begin(&argc, &argv);
    if (ranks.size < 0)
    {
        return cli_fail(
            NULL, "sweep: started by mpirun, but this meshcontact was built without MPI (every copy "
                  "would write the whole output); 'sh tests/install-mpi.sh' installs Open MPI and reconfigures build/");
    }
    // Every rank parses the same command line: only rank 0 shows what is wrong with it (the kind calls
    // sweep_restore_stderr once its command line is good).
    if (ranks.rank > 0)
    {
        fflush(stderr);
        s_saved_stderr = dup(STDERR_FILENO);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
        {
            dup2(null, STDERR_FILENO);
            close(null);
        }
    }
    int rc = fcn(argc - 1, argv + 1, ranks);
    sweep_restore_stderr();
    sweep_parallel_end();
    return rc;
}
