#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
# Mechanical energy of one part over a `meshcontact simulate` CSV: kinetic (translation and rotation, with the
# inertia of the part's binary STL mesh of uniform density) plus gravity's potential, at every output row; prints
# the largest rises between consecutive rows (a passive contact cannot add energy, except the elastic energy it
# stored at the earlier row) and the total loss. Used for the knob drop in integrator.md.
# Usage: energy_gain.py CSV MESH.stl SCALE DENSITY [PART] [GRAVITY]   (PART default part2, GRAVITY 9.81 along -z)
import csv
import struct
import sys


def mass_properties(path, scale, density):
    """Mass and inertia tensor about the centre of mass (mesh frame) of a closed binary STL."""
    data = open(path, "rb").read()
    n = struct.unpack("<I", data[80:84])[0]
    vol, first, second = 0.0, [0.0] * 3, [[0.0] * 3 for _ in range(3)]
    for i in range(n):
        v = struct.unpack("<9f", data[84 + 50 * i + 12:84 + 50 * i + 48])
        a, b, c = ([x * scale for x in v[k:k + 3]] for k in (0, 3, 6))
        det = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
               a[2] * (b[0] * c[1] - b[1] * c[0]))
        vol += det / 6.0
        for k in range(3):
            first[k] += det / 24.0 * (a[k] + b[k] + c[k])
        for p in range(3):
            for q in range(3):
                s = sum(x[p] * x[q] for x in (a, b, c)) + (a[p] + b[p] + c[p]) * (a[q] + b[q] + c[q])
                second[p][q] += det / 120.0 * s
    cm = [x / vol for x in first]
    cov = [[second[p][q] - vol * cm[p] * cm[q] for q in range(3)] for p in range(3)]
    tr = cov[0][0] + cov[1][1] + cov[2][2]
    inertia = [[density * ((tr if p == q else 0.0) - cov[p][q]) for q in range(3)] for p in range(3)]
    return vol * density, inertia


def rotation(qw, qx, qy, qz):
    return [[1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)],
            [2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)],
            [2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)]]


def main():
    path, mesh, scale, density = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    part = sys.argv[5] if len(sys.argv) > 5 else "part2"
    gravity = float(sys.argv[6]) if len(sys.argv) > 6 else 9.81
    mass, inertia = mass_properties(mesh, scale, density)
    energy = []
    for r in csv.DictReader(open(path)):
        g = [float(r[part + "_" + k]) for k in ("qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz", "z")]
        rot = rotation(*g[0:4])
        wb = [sum(rot[j][i] * g[7 + j] for j in range(3)) for i in range(3)]
        rotational = 0.5 * sum(wb[i] * sum(inertia[i][j] * wb[j] for j in range(3)) for i in range(3))
        energy.append((float(r["time"]), 0.5 * mass * sum(x * x for x in g[4:7]) + rotational + mass * gravity * g[10]))
    rises = sorted(((energy[k + 1][1] - energy[k][1], energy[k + 1][0]) for k in range(len(energy) - 1)), reverse=True)
    print("mass %.6g kg; largest rises of the energy between rows (J): %s; total loss %.4g J" % (
        mass, ", ".join("%.3g at t = %g" % r for r in rises[:4]), energy[0][1] - energy[-1][1]))


if __name__ == "__main__":
    main()
