# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Wrong dtypes and shapes, closed objects, bad files and bad parameters give Python exceptions (with the library's
message and status where the library decides), never a crash."""
import numpy as np
import pytest

import meshcontact as mc

CUBE_V = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=np.float64)
CUBE_F = np.array(
    [[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, 1, 5], [0, 5, 4],
     [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]],
    dtype=np.uint32,
)  # fmt: skip


def test_cube_is_fine():
    with mc.Mesh(CUBE_V, CUBE_F) as m:
        assert m.report.volume == 1.0 and m.report.closed


@pytest.mark.parametrize(
    "vertices",
    [CUBE_V.astype(str), CUBE_V.astype(np.complex128), CUBE_V.astype(np.longdouble), CUBE_V > 0.5,
     CUBE_V.astype(object)],
    ids=["str", "complex", "longdouble", "bool", "object"],
)  # fmt: skip
def test_vertices_of_a_wrong_dtype_are_refused(vertices):
    if vertices.dtype == np.longdouble and np.finfo(np.longdouble).bits == 64:
        pytest.skip("longdouble is double on this platform")
    with pytest.raises(TypeError, match="vertices"):
        mc.Mesh(vertices, CUBE_F)


def test_exact_conversions_are_accepted():
    # integers, float32, a transposed (non-contiguous) copy: converted with np.ascontiguousarray
    for v in (CUBE_V.astype(np.int64), CUBE_V.astype(np.float32), np.asfortranarray(CUBE_V), CUBE_V.tolist()):
        with mc.Mesh(v, CUBE_F.astype(np.int64)) as m:
            assert m.report.volume == 1.0
    with pytest.raises(ValueError, match="2\\^53"):
        mc.Mesh(CUBE_V.astype(np.int64) * 2**60, CUBE_F)


def test_triangles_must_be_integers_in_range():
    with pytest.raises(TypeError, match="integer indices"):
        mc.Mesh(CUBE_V, CUBE_F.astype(np.float64))
    bad = CUBE_F.astype(np.int64)
    bad[0, 0] = -1
    with pytest.raises(ValueError, match="indices"):
        mc.Mesh(CUBE_V, bad)
    bad[0, 0] = 8  # past the last vertex: the library says so
    with pytest.raises(mc.Error) as e:
        mc.Mesh(CUBE_V, bad)
    assert e.value.status == mc.Status.INDEX_OUT_OF_RANGE and "8" in str(e.value)


@pytest.mark.parametrize(
    "vertices, triangles",
    [(CUBE_V[:, :2], CUBE_F), (CUBE_V.reshape(-1), CUBE_F), (CUBE_V, CUBE_F[:, :2]), (CUBE_V, CUBE_F.reshape(-1))],
)
def test_wrong_shapes_are_refused(vertices, triangles):
    with pytest.raises(ValueError, match="shape"):
        mc.Mesh(vertices, triangles)


def test_the_library_refuses_bad_meshes_with_its_message():
    v = CUBE_V.copy()
    v[3, 1] = np.nan
    with pytest.raises(mc.Error) as e:
        mc.Mesh(v, CUBE_F)
    assert e.value.status == mc.Status.NON_FINITE and e.value.message
    with pytest.raises(mc.Error) as e:
        mc.Mesh(CUBE_V, CUBE_F[:-1])  # one face missing: open
    assert e.value.status == mc.Status.MESH_NOT_CLOSED
    assert e.value.report.boundary_edges == 3 and not e.value.report.closed
    with pytest.raises(mc.Error) as e:
        mc.Mesh(CUBE_V, CUBE_F, scale=-1.0)
    assert e.value.status == mc.Status.INVALID_ARGUMENT


def test_bad_files(tmp_path, data):
    with pytest.raises(mc.Error) as e:
        mc.Mesh.load(tmp_path / "missing.stl")
    assert e.value.status == mc.Status.IO and "missing.stl" in e.value.message
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 banana\n")
    with pytest.raises(mc.Error) as e:
        mc.Mesh.load(bad)
    assert e.value.status == mc.Status.PARSE and "bad.obj" in e.value.message and e.value.line == 4
    other = tmp_path / "mesh.xyz"
    other.write_text("1 2 3\n")
    with pytest.raises(mc.Error) as e:
        mc.Mesh.load(other)
    assert e.value.status == mc.Status.UNSUPPORTED_FORMAT
    # a self-intersecting part is refused for contact, with the counts in the message and the report
    with pytest.raises(mc.Error) as e:
        mc.Mesh.load(data / "prusa" / "PSU-cover-MK3.stl")
    assert e.value.status == mc.Status.SELF_INTERSECTING and e.value.report.self_intersecting_pairs == 3
    with pytest.raises(mc.Error) as e:
        mc.Mesh.load(data / "spot.obj", max_bytes=1000)
    assert e.value.status == mc.Status.LIMIT


def test_closed_objects_raise():
    m = mc.Mesh(CUBE_V, CUBE_F)
    other = mc.box(1, 1, 1)
    m.close()
    m.close()  # idempotent
    assert m.closed and "closed" in repr(m)
    for use in (lambda: m.vertices, lambda: m.report, lambda: m.contains([0, 0, 0]), lambda: m.write_stl("x.stl"),
                lambda: mc.regions(m, None, other, None), lambda: mc.distance(other, None, m, None),
                lambda: mc.Shape.of(m)._struct(), lambda: mc.World().create_body(m)):  # fmt: skip
        with pytest.raises(mc.ClosedError):
            use()
    w = mc.World()
    b = w.create_body(other)
    with w:
        pass
    for use in (w.evaluate, lambda: w.wrenches([b]), lambda: w.set_pose(b, [0, 0, 0]), w.regions, w.get_state,
                lambda: w.create_body(other)):  # fmt: skip
        with pytest.raises(mc.ClosedError):
            use()
    ws = mc.Workspace()
    ws.close()
    with pytest.raises(mc.ClosedError):
        mc.regions(other, None, other, [0.5, 0, 0], workspace=ws)


def test_a_mesh_in_use_cannot_be_closed():
    m = mc.box(1, 1, 1)
    w = mc.World()
    b = w.create_body(m)
    with pytest.raises(RuntimeError, match="used by 1 bodies"):
        m.close()
    w.destroy_body(b)
    b = w.create_body(m)
    w.close()  # releases it
    m.close()
    assert m.closed


def test_world_errors():
    m = mc.sphere(0.5, triangles=200)
    with mc.World() as w:
        with pytest.raises(mc.Error) as e:
            w.create_body(m, [np.nan, 0, 0, 1, 0, 0, 0])
        assert e.value.status == mc.Status.INVALID_ARGUMENT and "mc_world_create_body" in str(e.value)
        a = w.create_body(m)
        b = w.create_body(m, [0.9, 0, 0])
        with pytest.raises(ValueError, match="shape"):
            w.set_poses([a, b], np.zeros((2, 6)))
        with pytest.raises(ValueError, match="rows"):
            w.set_poses([a, b], np.zeros((1, 7)))
        with pytest.raises(TypeError, match="ids"):
            w.set_poses([1.5], np.zeros((1, 7)))
        with pytest.raises(mc.Error, match="not finite"):
            w.set_poses([a, b], [[0, 0, 0, 1, 0, 0, 0], [0, 0, np.inf, 1, 0, 0, 0]])
        with pytest.raises(ValueError, match="7 \\(or 3\\)"):
            w.set_pose(a, [0, 0, 0, 1, 0])
        with pytest.raises(TypeError, match="float64"):
            w.wrenches([a, b], out=np.zeros((2, 6), dtype=np.float32))
        with pytest.raises(ValueError, match="C-contiguous"):
            w.wrenches([a, b], out=np.zeros((6, 2)).T)
        with pytest.raises(mc.Error) as e:
            w.create_contact([a], [b], model=mc.ForceModel(stiffness=-1.0))
        assert e.value.status == mc.Status.INVALID_ARGUMENT and "stiffness" in e.value.message.lower()
        with pytest.raises(ValueError, match="friction"):
            mc.ForceModel(friction="sometimes")
        with pytest.raises(AttributeError, match="stifness"):
            mc.ForceModel(stifness=1.0)
        c = w.create_contact([a], [b])
        with pytest.raises(mc.Error, match="evaluate first"):
            w.jacobian()
        with pytest.raises(mc.Error, match="nothing to commit"):
            w.commit()
        with pytest.raises(mc.Error) as e:
            w.set_state(b"not a state")
        assert e.value.status == mc.Status.INVALID_ARGUMENT and e.value.message
        w.destroy_body(b)
        with pytest.raises(ValueError, match="not a live body"):
            w.set_pose(b, [0, 0, 0])
        with pytest.raises(ValueError, match="not a live body"):
            w.set_poses([a, b], np.tile([0.0, 0, 0, 1, 0, 0, 0], (2, 1)))
        w.destroy_contact(c)
        assert not w.contact_is_valid(c)


def test_an_exception_in_a_user_law_is_raised_by_evaluate():
    m = mc.sphere(0.5, triangles=200)

    def law(kin, model):
        raise ZeroDivisionError("from the user law")

    with mc.World() as w:
        a = w.create_body(m)
        b = w.create_body(m, [0.9, 0, 0])
        w.create_contact([a], [b], model=mc.ForceModel(normal_law="user", normal_fcn=law))
        with pytest.raises(ZeroDivisionError, match="from the user law"):
            w.evaluate()
        with pytest.raises(ZeroDivisionError):
            w.evaluate()  # raised every time, not only once
        with pytest.raises(ZeroDivisionError, match="from the user law"):
            w.jacobian()  # user laws are differenced (issue 33): the callback runs, and what it raises comes out
