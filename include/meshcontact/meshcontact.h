// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Umbrella header of meshcontact: contact between closed triangle meshes (volumes, areas, depths, forces).
#pragma once

#include "base.h"
#include "mesh.h"
#include "query.h"
#include "shape.h"
#include "vec_math.h"
#include "world.h"
