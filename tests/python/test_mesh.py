# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Meshes from arrays, files and primitives; the report; repair; export; containment and the stateless queries."""
import math

import numpy as np
import pytest

import meshcontact as mc


def test_arrays_round_trip_and_report():
    v, f = mc.tessellate("sphere", 1.0, triangles=1000)
    assert v.dtype == np.float64 and v.shape[1] == 3 and f.dtype == np.uint32 and f.shape == (972, 3)  # 12 n^2
    with mc.Mesh(v, f) as m:
        assert m.triangle_count == 972 and m.vertex_count == len(v)
        # the library numbers the vertices its own way: the same points, and the same triangles through them
        assert np.array_equal(np.unique(m.vertices, axis=0), np.unique(v, axis=0))
        assert np.array_equal(np.sort(m.vertices[m.triangles].sum(axis=1), axis=0), np.sort(v[f].sum(axis=1), axis=0))
        r = m.report
        assert r.closed and r.contact_ready and 0.95 * 4 / 3 * math.pi < r.volume < 4 / 3 * math.pi
        assert tuple(r.bbox_max) == pytest.approx((1, 1, 1), abs=1e-2) and r.to_dict()["triangles"] == 972
        assert m.byte_count > 0
    with mc.Mesh(v, f, scale=2.0, flip=True) as m:
        assert m.report.flipped and m.report.scale == 2.0 and not m.contains([0, 0, 0])
        assert m.contains([5, 0, 0])


def test_primitives():
    assert mc.box(1, 2, 3).report.volume == pytest.approx(6.0)
    assert mc.cylinder(0.5, 2.0, chord_tolerance=1e-4).report.volume == pytest.approx(math.pi * 0.5, rel=1e-3)
    assert mc.torus(1.0, 0.25).report.volume == pytest.approx(2 * math.pi**2 * 0.25**2, rel=1e-2)
    assert mc.frustum(1.0, 0.5, 1.0).report.volume == pytest.approx(math.pi / 3 * 1.75, rel=1e-2)
    assert mc.ellipsoid(1, 2, 3).report.volume == pytest.approx(4 / 3 * math.pi * 6, rel=1e-2)
    with pytest.raises(mc.Error) as e:
        mc.sphere(1.0, chord_tolerance=1e-5, max_triangles=1000)
    assert e.value.status == mc.Status.LIMIT
    with pytest.raises(ValueError, match="kind"):
        mc.tessellate("cone", (1, 1, 1))


def test_files(tmp_path, data):
    knob = mc.Mesh.load(data / "prusa" / "LCD-knob.stl", scale=1e-3)
    assert knob.report.scale == 1e-3 and knob.triangle_count == 4630
    fractions = []
    mc.Mesh.load(data / "spot.obj", progress=fractions.append)
    assert fractions and fractions[-1] == 1.0 and fractions == sorted(fractions)

    def stop(fraction):
        raise KeyboardInterrupt("stop")

    with pytest.raises(KeyboardInterrupt):
        mc.Mesh.load(data / "spot.obj", progress=stop)
    report = mc.check_file(data / "prusa" / "PSU-cover-MK3.stl")
    assert not report.contact_ready and report.self_intersecting_pairs == 3
    knob.write_shl(tmp_path / "knob.shl")
    back = mc.Mesh.load(tmp_path / "knob.shl")
    assert np.array_equal(back.vertices, knob.vertices)  # %.17g: doubles read back exactly
    knob.write_stl(tmp_path / "knob.stl")
    assert mc.Mesh.load(tmp_path / "knob.stl").triangle_count == knob.triangle_count


def test_repair():
    v, f = mc.tessellate("box", (1, 1, 1))
    soup = np.vstack([f[:-1], f[:1]])  # one face half missing, one triangle twice
    with pytest.raises(mc.Error):
        mc.Mesh(v, soup)
    v2, f2, report = mc.repair(v, soup)
    assert report.ran and report.duplicate_triangles == 1 and report.filled_holes == 1
    assert mc.Mesh(v2, f2).report.volume == pytest.approx(1.0)
    with pytest.raises(ValueError, match="flags"):
        mc.repair(v, soup, flags=["nonsense"])
    _, _, report = mc.repair(v, soup, flags="duplicates")
    assert report.duplicate_triangles == 1 and report.filled_holes == 0


def test_queries():
    a = mc.sphere(1.0, triangles=2000)
    b = mc.box(1, 1, 1)
    ws = mc.Workspace()
    r, stats = mc.regions(a, None, b, [1.25, 0, 0], workspace=ws, stats=True)
    assert len(r) == 1 and stats.regions == 1 and ws.byte_count > 0
    assert r["normal"][0] == pytest.approx([1, 0, 0], abs=1e-2)
    assert r.dtype == mc.REGION_DTYPE and r["centroid"].shape == (1, 3)
    # the same query through a Shape, and with more threads: the same bits
    assert mc.regions(mc.Shape.of(a), None, b, [1.25, 0, 0], threads=2).tobytes() == r.tobytes()
    assert len(mc.regions(a, None, b, [3, 0, 0])) == 0
    pairs = mc.triangle_pairs(a, None, b, [1.25, 0, 0])
    assert len(pairs) > 0 and pairs.dtype == mc.TRIANGLE_PAIR_DTYPE
    assert np.all(np.diff(pairs["i"].astype(np.int64)) >= 0)
    d = mc.distance(a, None, b, [3, 0, 0])
    assert mc.DISTANCE_KINDS[d.kind] == "separated" and d.distance == pytest.approx(1.5, abs=1e-2)
    assert d.point_j[0] == 2.5 and d.triangle_i != 2**32 - 1
    d = mc.distance(a, None, b, [3, 0, 0], max_distance=0.5)
    assert mc.DISTANCE_KINDS[d.kind] == "beyond"
    inside = mc.contains(a, [[0, 0, 0], [2, 0, 0], [0.5, 0.5, 0.5]])
    assert inside.tolist() == [True, False, True]
    assert mc.orient3d([0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]) == 1
    assert mc.orient3d([0, 0, 0], [1, 0, 0], [0, 1, 0], [3, 4, 0]) == 0
    # many regions: the buffer grows to what the library says it needs
    v, f = mc.tessellate("box", (0.5, 0.5, 0.5))
    cubes = mc.Mesh(np.vstack([v + (k, 0, 0) for k in range(12)]), np.vstack([f + 8 * k for k in range(12)]))
    many = mc.regions(mc.Shape.plane(), None, cubes, [0, 0, 0.125])
    assert len(many) == 12 and np.allclose(many["volume"], 0.5 * 0.5 * 0.125)
    with pytest.raises(mc.Error) as e:
        mc.regions(mc.Shape.plane(), None, mc.Shape.plane(), None)
    assert e.value.status == mc.Status.UNBOUNDED
    ws.close()


def test_force_laws():
    assert mc.step(0.5, 0, 0, 1, 1) == 0.5
    assert mc.impact_force(1e-3, 0.0, 1e7, 1.0, 0.0, 1e-3) == pytest.approx(1e4)
    assert mc.friction_coefficient(2.0, 0.3, 0.1, 0.1, 1.0) == pytest.approx(0.1)
    model = mc.ForceModel(stiffness=1e7, exponent=1.0, friction="on", mu_static=0.3, mu_dynamic=0.1)
    kin = mc.kinematics(depth=1e-3, area=1e-4, volume=1e-7, radius=math.sqrt(1e-4 / math.pi), slip_velocity=(2.0, 0, 0))
    f = mc.contact_force(model, kin)
    assert f.normal_force == pytest.approx(1e4) and f.friction_force[0] == pytest.approx(-1e3)
    mu, ft, kept = mc.stiction_force(mc.ForceModel(friction="on", stiction=True), 10.0, (1e-5, 0, 0), (0, 0, 0))
    assert 0 < mu <= 0.3 and ft[0] < 0 and kept[0] == pytest.approx(1e-5)
    mc.ForceModel(friction="on").check()
    with pytest.raises(mc.Error, match="MU_DYNAMIC"):
        mc.ForceModel(friction="on", mu_static=0.1, mu_dynamic=0.5).check()


def test_brep_files_after_register_brep(data):
    try:
        mc.Mesh.load(data / "brep" / "bracket.step")
    except mc.Error as e:  # no reader installed yet: the message says what to load
        assert e.status == mc.Status.UNSUPPORTED_FORMAT and "meshcontact-brep" in e.message
    try:
        mc.register_brep()
    except OSError as exc:
        pytest.skip(f"no meshcontact-brep in this build: {exc}")
    bracket = mc.Mesh.load(data / "brep" / "bracket.step")
    assert bracket.triangle_count > 1000 and bracket.report.brep_solids == 1
    assert bracket.report.volume == pytest.approx(bracket.report.brep_volume, rel=1e-2)
