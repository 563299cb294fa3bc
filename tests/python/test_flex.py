# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Flexible bodies from Python (issue 34): Mesh.set_positions against a mesh created fresh from the deformed positions
(the oracle: the same pairs bit for bit, the same regions), refused input leaving the mesh as it was, and
nodal_forces summing per region to the given forces (Adams' rule) on inside vertices."""
import numpy as np
import pytest

import meshcontact as mc

PLATE_POSE = [0.0, 0.0, 0.0]
BALL_POSE = [0.0, 0.0, 0.45]  # ball radius 0.5 about z = 0.45: it sinks 0.05 into the plate's top face z = 0


def breathing(rest, s, k):
    """Radius s with a wave: every vertex moves, the surface stays a star-shaped closed sphere (no self-intersection)."""
    r = s * (1.0 + 0.02 * np.sin(6.0 * rest[:, 2] - 0.5 * k))
    return rest * r[:, None]


def test_set_positions_answers_as_a_fresh_mesh():
    plate = mc.box(3.0, 3.0, 1.0).transformed([0.0, 0.0, -0.5])
    ball = mc.sphere(0.5, triangles=2000)
    rest = ball.vertices
    tris = ball.triangles
    version = ball.deform_info.version
    for k in range(3):
        p = breathing(rest, 1.0 + 0.02 * k, k)
        ball.set_positions(p)
        assert np.array_equal(ball.vertices, p)
        info = ball.deform_info
        assert info.version != version and info.refits + info.rebuilds == k + 1
        version = info.version
        assert ball.count_self_intersections() == (0, None)
        fresh = mc.Mesh(p, tris)
        assert np.array_equal(fresh.vertices, p) and np.array_equal(fresh.triangles, tris)  # same numbering
        got = mc.triangle_pairs(plate, PLATE_POSE, ball, BALL_POSE)
        want = mc.triangle_pairs(plate, PLATE_POSE, fresh, BALL_POSE)
        assert len(got) > 0 and got.tobytes() == want.tobytes()  # bit for bit: indices, points, flags
        rg = mc.regions(plate, PLATE_POSE, ball, BALL_POSE)
        rw = mc.regions(plate, PLATE_POSE, fresh, BALL_POSE)
        assert len(rg) == len(rw) == 1
        # volumes to rounding (the region sums may run in another order): 1e-13 relative
        assert rg["volume"][0] == pytest.approx(rw["volume"][0], rel=1e-13)
        assert ball.report.volume == fresh.report.volume and ball.report.area == fresh.report.area
        fresh.close()


def test_bad_positions_are_refused_and_the_mesh_kept():
    ball = mc.sphere(0.5, triangles=500)
    before = ball.vertices
    n = ball.vertex_count
    with pytest.raises(ValueError, match="shape"):
        ball.set_positions(before[:-1])
    bad = before.copy()
    bad[3, 1] = np.nan
    with pytest.raises(mc.Error) as e:
        ball.set_positions(bad)
    assert e.value.status == mc.Status.NON_FINITE
    with pytest.raises(mc.Error) as e:
        ball.set_positions(-before)  # a point reflection: the component turns inside out
    assert e.value.status == mc.Status.INVALID_ARGUMENT and "inside out" in str(e.value)
    assert np.array_equal(ball.vertices, before) and ball.vertex_count == n and ball.deform_info.version == 0


def test_nodal_forces_sum_to_the_region_forces():
    plate = mc.box(3.0, 3.0, 1.0).transformed([0.0, 0.0, -0.5])
    ball = mc.sphere(0.5, triangles=2000)
    ball.set_positions(breathing(ball.vertices, 1.01, 0))
    regions = mc.regions(plate, PLATE_POSE, ball, BALL_POSE)
    assert len(regions) == 1
    forces = np.array([[0.3, -0.2, 100.0]])  # on the ball: up, out of the plate
    nodal, lost = mc.nodal_forces(ball, BALL_POSE, plate, PLATE_POSE, regions, forces)
    assert nodal.dtype == mc.NODAL_FORCE_DTYPE and len(nodal) > 0 and lost.shape == (1, 3)
    assert np.all(nodal["region"] == 0) and np.all(np.diff(nodal["vertex"].astype(np.int64)) > 0)
    # the nodes are the ball's vertices inside the plate: below its top face z = 0 in the world frame
    z = ball.vertices[nodal["vertex"], 2] + BALL_POSE[2]
    assert np.all(z < 0.0) and np.all(nodal["penetration"] > 0.0)
    assert np.sum(z < 0.0) == np.sum(ball.vertices[:, 2] + BALL_POSE[2] < 0.0)  # and all of them
    # shares in proportion to the penetrations, summing to the region force (1e-12 relative: flex.h says 1e-15)
    total = nodal["force"].sum(axis=0)
    assert np.allclose(total, forces[0], rtol=0.0, atol=1e-12 * np.linalg.norm(forces[0]))
    share = nodal["force"][:, 2] / forces[0, 2]
    assert np.allclose(share, nodal["penetration"] / nodal["penetration"].sum(), rtol=1e-12, atol=0.0)
    with pytest.raises(ValueError, match="forces"):
        mc.nodal_forces(ball, BALL_POSE, plate, PLATE_POSE, regions, np.zeros((2, 3)))
