#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""A pile of parts: a host loop in Python. Real meshes (Spot, two Prusa i3 parts from data/) and primitives fall
into a tray and onto each other; meshcontact gives the contact wrenches, NumPy integrates the rigid bodies with
semi-implicit Euler (velocities first, then positions).

    python3 src/python/examples/pile.py [--steps 1200] [--dt 5e-4] [--data DIR]

Units are SI. Each part's mesh is moved so that its centre of mass is the body's reference point (the wrenches'
torques are then about the centre of mass); masses and inertias come from the meshes (density of PLA).
"""
import argparse
import pathlib
import sys
import time

import numpy as np

import meshcontact as mc

DENSITY = 1240.0  # kg/m^3 (PLA)
TRAY = 0.25  # m, inner width of the tray
GRAVITY = np.array([0.0, 0.0, -9.81])


def mass_properties(vertices, triangles):
    """Volume, centre of mass and inertia tensor about it (per unit density) of a closed outward mesh: the signed
    tetrahedra from the origin over each triangle."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    det = np.einsum("ij,ij->i", a, np.cross(b, c))  # 6 x signed tetrahedron volume
    volume = det.sum() / 6.0
    com = ((a + b + c) * det[:, None]).sum(axis=0) / (24.0 * volume)
    a, b, c = a - com, b - com, c - com
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    s = a + b + c
    second = np.einsum("i,ij,ik->jk", det, a, a) + np.einsum("i,ij,ik->jk", det, b, b)
    second += np.einsum("i,ij,ik->jk", det, c, c) + np.einsum("i,ij,ik->jk", det, s, s)
    second /= 120.0  # the integral of x x^T over the solid
    return volume, com, np.trace(second) * np.eye(3) - second


def rotation(q):
    """Rotation matrices of unit quaternions (n, 4), w first."""
    w, x, y, z = q.T
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
        ],
        axis=1,
    )


def load_parts(data):
    """The parts as (name, Mesh centred on its centre of mass, mass, body-frame inertia)."""
    sources = [
        ("spot", mc.Mesh.load(data / "spot.obj", scale=0.08)),
        ("knob", mc.Mesh.load(data / "prusa" / "LCD-knob.stl", scale=2e-3)),  # printed at twice the size
        ("lever", mc.Mesh.load(data / "prusa" / "fs-lever.stl", scale=2e-3)),
        ("ball", mc.sphere(0.02, triangles=2000)),
        ("torus", mc.torus(0.025, 0.008)),
        ("peg", mc.cylinder(0.012, 0.05)),
        ("brick", mc.box(0.05, 0.03, 0.02)),
        ("ball2", mc.sphere(0.015, triangles=1000)),
    ]
    parts = []
    for name, mesh in sources:
        v, f = mesh.vertices, mesh.triangles
        volume, com, inertia = mass_properties(v, f)
        mesh.close()
        parts.append((name, mc.Mesh(v - com, f), DENSITY * volume, DENSITY * inertia))
    return parts


def run(steps=1200, dt=5e-4, data=None, quiet=False):
    data = pathlib.Path(data) if data else pathlib.Path(__file__).resolve().parents[3] / "data"
    parts = load_parts(data)
    n = len(parts)
    world = mc.World()
    # The tray: a floor and four walls, fixed (their wrenches are not integrated).
    floor = mc.box(TRAY, TRAY, 0.02)
    wall = mc.box(TRAY, 0.02, 0.1)
    tray = [world.create_body(floor, [0.0, 0.0, -0.01])]
    for angle in (0.0, 0.5 * np.pi, np.pi, 1.5 * np.pi):
        c, s = np.cos(angle), np.sin(angle)
        turn = [np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)]  # about z
        tray.append(world.create_body(wall, mc.pose([-s * (TRAY / 2 + 0.01), c * (TRAY / 2 + 0.01), 0.05], turn)))
    ids = np.array([world.create_body(m) for _, m, _, _ in parts], dtype=np.uint64)
    # IMPACT, soft enough for explicit steps of dt on parts of a few grams, with Coulomb friction
    contact = mc.ForceModel(stiffness=1e4, exponent=1.5, damping=10.0, dmax=1e-3, friction="on", mu_static=0.4,
                            mu_dynamic=0.3, stiction_velocity=1e-3, friction_velocity=1e-2)  # fmt: skip
    world.create_contact(tray, ids, model=contact)
    world.create_contact(ids, model=contact)  # the parts against each other: a group

    mass = np.array([m for _, _, m, _ in parts])
    inertia = np.array([i for _, _, _, i in parts])
    # A loose column: each part's bounding sphere 5 mm above the last one's, shifted around the axis, turned a little.
    k = np.arange(n)
    radius = np.array([np.linalg.norm(m.vertices, axis=1).max() for _, m, _, _ in parts])
    z = 0.002 + radius + np.concatenate([[0.0], np.cumsum(2 * radius[:-1] + 0.005)])
    x = np.stack([0.01 * np.cos(2.4 * k), 0.01 * np.sin(2.4 * k), z], axis=1)
    half = 0.3 * k
    q = np.stack([np.cos(half), np.sin(half) * 0.6, np.sin(half) * 0.8, np.zeros(n)], axis=1)
    v = np.zeros((n, 3))
    w = np.zeros((n, 3))
    poses = np.empty((n, 7))
    twists = np.empty((n, 6))
    wrenches = np.empty((n, 6))
    energy = [energy_of(mass, x, v, w, q, inertia)]
    t0 = time.perf_counter()
    for step in range(steps):
        poses[:, :3], poses[:, 3:] = x, q
        twists[:, :3], twists[:, 3:] = v, w
        world.set_poses(ids, poses)
        world.set_velocities(ids, twists)
        world.evaluate()
        world.wrenches(ids, out=wrenches)
        # semi-implicit Euler: velocities from the forces at the current state, then positions from the new velocities
        v += dt * (wrenches[:, :3] / mass[:, None] + GRAVITY)
        r = rotation(q)
        i_world = r @ inertia @ r.transpose(0, 2, 1)
        momentum = np.einsum("nij,nj->ni", i_world, w) + dt * wrenches[:, 3:]
        w = np.linalg.solve(i_world, momentum[..., None])[..., 0]
        x += dt * v
        wx, wy, wz = w.T
        omega = np.stack(
            [
                np.stack([np.zeros(n), -wx, -wy, -wz], axis=-1),
                np.stack([wx, np.zeros(n), wz, -wy], axis=-1),
                np.stack([wy, -wz, np.zeros(n), wx], axis=-1),
                np.stack([wz, wy, -wx, np.zeros(n)], axis=-1),
            ],
            axis=1,
        )
        q += 0.5 * dt * np.einsum("nij,nj->ni", omega, q)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        if not quiet and (step % 100 == 0 or step == steps - 1):
            touching = world.step_info().touching_pairs
            print(f"step {step:4d}  t {step * dt:.3f} s  touching pairs {touching:2d}  lowest z {x[:, 2].min():+.4f} m"
                  f"  highest z {x[:, 2].max():+.4f} m")  # fmt: skip
    seconds = time.perf_counter() - t0
    energy.append(energy_of(mass, x, v, w, q, inertia))
    if not quiet:
        print(f"{steps} steps in {seconds:.2f} s ({1e3 * seconds / steps:.2f} ms per step, {n} parts); "
              f"energy {energy[0]:.4f} J -> {energy[1]:.4f} J")  # fmt: skip
    world.close()
    floor.close()
    wall.close()
    for _, m, _, _ in parts:
        m.close()
    return x, v, energy


def energy_of(mass, x, v, w, q, inertia):
    """Kinetic plus potential energy (J)."""
    r = rotation(q)
    spin = np.einsum("ni,nij,nj->", w, r @ inertia @ r.transpose(0, 2, 1), w)
    return 0.5 * (mass * (v * v).sum(axis=1)).sum() + 0.5 * spin - (mass * (x @ GRAVITY)).sum()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=1200)
    p.add_argument("--dt", type=float, default=5e-4)
    p.add_argument("--data", help="the repository's data folder (default: found from this file)")
    a = p.parse_args(argv)
    x, v, energy = run(a.steps, a.dt, a.data)
    # a host loop that works: finite, and no energy gained (contact damping and friction only take it away)
    return 0 if np.isfinite(x).all() and np.isfinite(v).all() and energy[1] <= energy[0] else 1


if __name__ == "__main__":
    sys.exit(main())
