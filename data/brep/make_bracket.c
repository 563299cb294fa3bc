// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// One-off generator of data/brep/bracket.step with gmsh's OpenCASCADE kernel: a plate 40 x 30 x 10 mm with its four
// vertical edges rounded (radius 4 mm), minus a through hole of radius 6 mm at its centre and two of radius 2.5 mm.
// Build and run (Debian 12, libgmsh-dev): cc make_bracket.c -o make_bracket -lgmsh && ./make_bracket bracket.step
#include <gmshc.h>

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        return 2;
    }
    int ierr = 0;
    gmshInitialize(0, 0, 0, &ierr);
    gmshOptionSetNumber("General.Terminal", 0, &ierr);
    gmshModelAdd("bracket", &ierr);
    int plate = gmshModelOccAddBox(0, 0, 0, 40, 30, 10, -1, &ierr);
    int edges[4];
    int* dim_tags = 0;
    size_t n = 0;
    // The four vertical edges: curves of the box whose bounding box spans z from 0 to 10 at a corner.
    int count = 0;
    double corners[4][2] = {{0, 0}, {40, 0}, {40, 30}, {0, 30}};
    for (int k = 0; k < 4; ++k)
    {
        int* tags = 0;
        size_t nt = 0;
        gmshModelOccGetEntitiesInBoundingBox(corners[k][0] - 0.1, corners[k][1] - 0.1, -0.1, corners[k][0] + 0.1,
                                             corners[k][1] + 0.1, 10.1, &tags, &nt, 1, &ierr);
        if (nt == 2)
        {
            edges[count++] = tags[1];
        }
        gmshFree(tags);
    }
    int vol[1] = {plate};
    double radius[1] = {4};
    gmshModelOccFillet(vol, 1, edges, (size_t)count, radius, 1, &dim_tags, &n, 1, &ierr);
    int filleted = dim_tags[1];
    gmshFree(dim_tags);
    int big = gmshModelOccAddCylinder(20, 15, -1, 0, 0, 12, 6, -1, 2 * 3.141592653589793, &ierr);
    int s1 = gmshModelOccAddCylinder(7, 7, -1, 0, 0, 12, 2.5, -1, 2 * 3.141592653589793, &ierr);
    int s2 = gmshModelOccAddCylinder(33, 23, -1, 0, 0, 12, 2.5, -1, 2 * 3.141592653589793, &ierr);
    int object[2] = {3, filleted};
    int tools[6] = {3, big, 3, s1, 3, s2};
    int** map = 0;
    size_t* map_n = 0;
    size_t map_nn = 0;
    gmshModelOccCut(object, 2, tools, 6, &dim_tags, &n, &map, &map_n, &map_nn, -1, 1, 1, &ierr);
    gmshModelOccSynchronize(&ierr);
    gmshWrite(argv[1], &ierr);
    gmshFinalize(&ierr);
    return ierr != 0;
}
