// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Umbrella header of meshcontact: contact between closed triangle meshes (volumes, areas, depths, forces).
// brep.h is not included: it belongs to the separate library meshcontact-brep (B-rep import through gmsh).
#pragma once

#include "base.h"
#include "flex.h"
#include "law.h"
#include "mass.h"
#include "mesh.h"
#include "query.h"
#include "routine.h"
#include "shape.h"
#include "vec_math.h"
#include "world.h"
