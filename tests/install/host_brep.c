// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A host program built against an installed meshcontact-brep with pkg-config (tests/install/check.sh): a STEP file is
// refused before mc_brep_register() with a message naming it, then imported closed. Usage: host_brep FILE.step
#include <meshcontact/brep.h>
#include <meshcontact/meshcontact.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        fprintf(stderr, "usage: host_brep FILE.step\n");
        return 2;
    }
    mc_mesh* mesh = NULL;
    mc_error err;
    if (mc_mesh_import_file(argv[1], NULL, &mesh, NULL, &err) != MC_ERR_UNSUPPORTED_FORMAT ||
        strstr(err.message, "mc_brep_register") == NULL)
    {
        fprintf(stderr, "host_brep: without the registration the import must fail naming mc_brep_register\n");
        return 1;
    }
    mc_brep_register();
    mc_mesh_report report;
    if (mc_mesh_import_file(argv[1], NULL, &mesh, &report, &err) != MC_OK)
    {
        fprintf(stderr, "host_brep: %s\n", err.message);
        return 1;
    }
    printf("host_brep: %u triangles, %u solids, volume %.6g (B-rep %.6g)\n", report.triangles, report.brep_solids,
           report.volume, report.brep_volume);
    mc_mesh_destroy(mesh);
    return report.closed && report.brep_solids > 0 ? 0 : 1;
}
