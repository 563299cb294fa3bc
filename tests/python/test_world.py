# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The world from Python: bodies, contacts and groups, user force laws, shapes, state save and restore, Jacobians,
threads, and what the library promises (world regions are the stateless query's, action = reaction, the same bits for
any worker count)."""
import threading

import numpy as np
import pytest

import meshcontact as mc


@pytest.fixture(scope="module")
def parts(data):
    return {
        "spot": mc.Mesh.load(data / "spot.obj"),
        "ball": mc.sphere(0.2, triangles=3000),
        "plate": mc.box(2.0, 2.0, 0.1),
    }


def pile(parts, threads=0):
    w = mc.World(threads=threads)
    plate = w.create_body(parts["plate"], [0, 0, -0.05])
    spot = w.create_body(parts["spot"], [0, 0, -parts["spot"].report.bbox_min[2] - 0.01], [0.1, 0, -0.2, 0, 0, 0.3])
    ball = w.create_body(parts["ball"], [0.5, 0.1, 0.19], [0, 0.2, -0.1, 1, 0, 0])
    w.create_contact([plate], [spot, ball], model=mc.ForceModel(stiffness=1e6, damping=1e2, dmax=1e-3, friction="on"))
    w.create_contact([spot, ball], model={"stiffness": 1e5})
    return w, np.array([plate, spot, ball], dtype=np.uint64)


def test_world_regions_are_the_stateless_queries(parts):
    w, ids = pile(parts)
    w.evaluate()
    rec = w.regions()
    assert len(rec) >= 2 and rec.dtype == mc.CONTACT_REGION_DTYPE
    mesh = dict(zip(ids.tolist(), (parts["plate"], parts["spot"], parts["ball"])))
    for r in rec:
        i, j = int(r["body_i"]), int(r["body_j"])
        q = mc.regions(mesh[i], w.pose(i), mesh[j], w.pose(j))
        assert any(q[k].tobytes() == r["region"].tobytes() for k in range(len(q)))
    wr = w.wrenches(ids)
    assert wr.shape == (3, 6) and np.allclose(wr[:, :3].sum(axis=0), 0, atol=1e-9 * np.abs(wr).max())
    for k, b in enumerate(ids):
        assert np.array_equal(w.wrench(b), wr[k])
    out = np.empty((3, 6))
    assert w.wrenches(ids, out=out) is out and np.array_equal(out, wr)
    assert w.step_hint() > 0  # the ball moves towards the spot
    info = w.step_info()
    assert info.candidate_pairs == 3 and info.regions == len(rec) and info.evaluations == 1
    assert w.max_capacity().region_count >= len(rec)
    w.close()


def test_same_bits_for_any_worker_count_and_from_threads(parts):
    results = []
    for threads in (1, 2):
        w, ids = pile(parts, threads)
        w.evaluate()
        results.append((w.regions().tobytes(), w.wrenches(ids).tobytes(), w.jacobian().tobytes()))
        w.close()
    assert results[0] == results[1]
    # separate worlds evaluated concurrently from Python threads (the GIL is released during the calls)
    got = [None] * 4

    def run(k):
        w, ids = pile(parts, 1)
        for _ in range(3):
            w.evaluate()
        got[k] = w.wrenches(ids).tobytes()
        w.close()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(g == results[0][1] for g in got)


def test_bodies_poses_and_velocities(parts):
    with mc.World() as w:
        a = w.create_body(parts["ball"], mc.pose([1, 2, 3], [2, 0, 0, 0]), [1, 2, 3, 4, 5, 6])
        assert np.array_equal(w.pose(a), [1, 2, 3, 1, 0, 0, 0])  # the quaternion is normalised
        assert np.array_equal(w.velocity(a), [1, 2, 3, 4, 5, 6])
        w.set_pose(a, [0, 0, 1])
        w.set_velocity(a, np.zeros(6))
        assert np.array_equal(w.pose(a), [0, 0, 1, 1, 0, 0, 0])
        b = w.create_body(mc.Shape.plane())
        assert w.is_valid(a) and w.is_valid(b) and w.bodies.tolist() == [a, b]
        w.set_poses(w.bodies, np.array([[0, 0, 0.15, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0]]))
        w.set_velocities(w.bodies, np.zeros((2, 6)))
        w.create_contact([b], [a], model=mc.ForceModel(stiffness=1e5, exponent=1.0))
        w.evaluate()
        r = w.regions()
        assert len(r) == 1 and r["normal_force"][0] == pytest.approx(1e5 * r["region"]["depth"][0])
        w.destroy_body(a)
        assert not w.is_valid(a) and w.bodies.tolist() == [b]
        w.destroy_body(a)  # stale: ignored


def test_analytic_shapes_and_static_analysis():
    with mc.World() as w:
        floor = w.create_body(mc.Shape.plane())
        ball = w.create_body(mc.Shape.sphere(0.1), [0, 0, 0.099], [1, 0, 0, 0, 0, 0])
        c = w.create_contact([floor], [ball], model=mc.ForceModel(friction="dynamics_only"))
        w.evaluate()
        assert w.wrench(ball)[0] < 0  # friction against the sliding
        w.set_analysis("static")
        w.evaluate()
        assert w.wrench(ball)[0] == 0 and w.wrench(ball)[2] > 0
        w.set_model(c, mc.ForceModel(stiffness=2e5))
        w.evaluate()
        assert w.contact_is_valid(c)


def test_user_laws_match_the_builtin_ones():
    ball, plate = mc.sphere(0.1, triangles=2000), mc.box(1, 1, 0.1)
    seen = []

    def normal(kin, model):
        seen.append(kin.normal)
        return model.stiffness * kin.depth

    def friction(kin, fn, model):
        v = kin.slip_velocity
        return -0.25 * fn * v / np.linalg.norm(v), np.zeros(3)

    forces = []
    for model in (
        mc.ForceModel(stiffness=1e6, exponent=1.0),
        mc.ForceModel(stiffness=1e6, normal_law="user", normal_fcn=normal),
    ):
        model.friction = "on"
        model.mu_static = model.mu_dynamic = 0.25
        model.friction_velocity = 1e-3
        model.stiction_velocity = 1e-4
        if model.normal_law == "user":
            model.friction_fcn = friction
        with mc.World() as w:
            p = w.create_body(plate, [0, 0, -0.05])
            b = w.create_body(ball, [0, 0, 0.099], [0.5, 0, 0, 0, 0, 0])
            w.create_contact([p], [b], model=model)
            w.evaluate()
            forces.append(w.wrench(b))
    assert seen and seen[0].shape == (3,)
    np.testing.assert_allclose(forces[1], forces[0], rtol=1e-12, atol=1e-12 * np.abs(forces[0]).max())


def test_stiction_state_save_and_restore():
    block, plate = mc.box(0.1, 0.1, 0.1), mc.box(1, 1, 0.1)
    model = mc.ForceModel(stiffness=1e6, exponent=1.0, friction="on", stiction=True, max_stiction_deformation=1e-3)
    with mc.World() as w:
        p = w.create_body(plate, [0, 0, -0.05])
        b = w.create_body(block, [0, 0, 0.049])
        w.create_contact([p], [b], model=model)
        w.evaluate()
        w.commit()
        saved = w.get_state()
        assert isinstance(saved, bytes) and len(saved) > 0
        w.set_pose(b, [2e-4, 0, 0.049])  # creep: the anchor holds the block back
        w.evaluate()
        held = w.wrench(b)
        assert held[0] < 0 and w.regions()["sticking"].all()
        w.commit()
        assert w.get_state() != saved
        w.set_state(saved)  # back to the first anchors: the same state gives the same force
        w.evaluate()
        assert np.array_equal(w.wrench(b), held)
        with pytest.raises(mc.Error, match="STICTION|stiction"):
            w.jacobian()
        with mc.World() as other:
            with pytest.raises(mc.Error):
                other.set_state(saved)


def test_jacobian_methods_and_groups(parts):
    w, ids = pile(parts)
    w.evaluate()
    analytic = w.jacobian()
    n = w.step_info().touching_pairs
    assert n >= 2 and len(analytic) == n and analytic["stiffness"].shape == (n, 12, 12)
    assert set(analytic["body_j"].tolist()) <= set(ids.tolist())
    w.set_jacobian_method("differences")
    diff = w.jacobian()
    # faceted parts on a plate: the two differ where a kink lies within the difference step (world.h)
    rel = np.linalg.norm(diff["stiffness"] - analytic["stiffness"]) / np.linalg.norm(analytic["stiffness"])
    assert rel < 0.05 and diff["stiffness"].shape == analytic["stiffness"].shape
    assert np.array_equal(diff["damping"], analytic["damping"])  # exact either way: no geometry in it
    with pytest.raises(ValueError, match="method"):
        w.set_jacobian_method("finite")
    w.close()
    # a group with an excluded pair
    with mc.World() as w2:
        a = w2.create_body(parts["ball"])
        b = w2.create_body(parts["ball"], [0.3, 0, 0])
        c = w2.create_body(parts["ball"], [0.15, 0.3, 0])
        w2.create_contact([a, b, c], exclude=[(a, b)])
        w2.evaluate()
        pairs = {(int(r["body_i"]), int(r["body_j"])) for r in w2.regions()}
        assert pairs == {(a, c), (b, c)}


def test_closing_frees_the_library_memory(data):
    before = mc.byte_count()
    ws = mc.Workspace()
    spot = mc.Mesh.load(data / "spot.obj")
    ball = mc.sphere(0.3, triangles=1000)
    assert len(mc.regions(spot, None, ball, [0.2, 0, 0.5], workspace=ws)) >= 1
    w = mc.World()
    a, b = w.create_body(spot), w.create_body(ball, [0.2, 0, 0.5], flip=False)
    w.create_contact([a], [b])
    w.evaluate()
    w.jacobian()
    assert mc.byte_count() > before
    for obj in (w, spot, ball, ws):
        obj.close()
    assert mc.byte_count() == before
    # garbage collection closes them too
    m = mc.box(1, 1, 1)
    w = mc.World()
    w.create_body(m)
    del w, m
    assert mc.byte_count() == before


def test_a_flipped_body_mesh_gives_the_world_regions():
    cup, ball = mc.sphere(0.5, triangles=3000), mc.sphere(0.1, triangles=1000)
    with mc.World() as w:
        socket = w.create_body(cup, flip=True)  # the solid is the outside: a spherical socket
        b = w.create_body(ball, [0.0, 0.0, -0.45])
        w.create_contact([socket], [b])
        w.evaluate()
        rec = w.regions()
        assert len(rec) == 1
        flipped = w.body_mesh(socket)
        assert isinstance(flipped, mc.BodyMesh) and flipped.report.flipped and w.body_mesh(b) is ball
        q = mc.regions(flipped, w.pose(socket), w.body_mesh(b), w.pose(b))
        assert q.tobytes() == rec["region"].tobytes()
        with pytest.raises(TypeError, match="BodyMesh"):
            w.create_body(flipped)
        w.destroy_body(socket)
        with pytest.raises(mc.ClosedError):
            flipped.report
    with pytest.raises(mc.ClosedError):
        mc.regions(flipped, None, ball, None)
    plane_world = mc.World()
    assert plane_world.body_mesh(plane_world.create_body(mc.Shape.plane())) is None


def test_patches_events_and_rest(parts):
    """Contact patches per record equal the stateless query's; events begin, persist and end; sleeping bodies keep
    the wrenches and reuse their regions."""
    w, ids = pile(parts)
    w.set_patches(4)
    w.evaluate()
    rec, pat = w.regions(), w.patches()
    assert len(pat) == len(rec) >= 2
    mesh = dict(zip(ids.tolist(), (parts["plate"], parts["spot"], parts["ball"])))
    for r, p in zip(rec, pat):
        i, j = int(r["body_i"]), int(r["body_j"])
        regs, qp = mc.patches(mesh[i], w.pose(i), mesh[j], w.pose(j), manifold=4)
        k = [n for n in range(len(regs)) if regs[n]["volume"] == r["region"]["volume"]][0]
        assert len(p["loops"]) == len(qp[k]["loops"]) >= 1 and p["open_loops"] == 0
        for a, b in zip(p["loops"], qp[k]["loops"]):
            assert np.array_equal(a, b)
        assert np.array_equal(p["manifold"], qp[k]["manifold"]) and len(p["manifold"]) == 4
        # each manifold point is a vertex of the curve
        verts = np.concatenate(p["loops"])
        assert all((verts == m).all(axis=1).any() for m in p["manifold"])
    ev = w.events()
    assert len(ev) == len({(e[1], e[2], e[3]) for e in ev}) and all(e[0] == "begin" for e in ev)
    before = w.wrenches(ids)
    for b in ids:
        w.set_awake(b, False)
    assert not w.is_awake(int(ids[1]))
    w.evaluate()
    info = w.step_info()
    assert info.sleeping_bodies == 3 and info.sleeping_pairs == info.candidate_pairs == info.reused_pairs
    assert np.array_equal(w.wrenches(ids), before)
    assert all(e[0] == "persist" for e in w.events())
    w.set_pose(int(ids[2]), [5.0, 5.0, 5.0])  # the ball leaves: it wakes, its pair ends
    w.evaluate()
    assert w.is_awake(int(ids[2])) and w.step_info().woken_bodies == 1
    assert [e[0] for e in w.events()].count("end") == 1
    with pytest.raises(mc.Error):
        w.set_patches(9)


def test_mass_properties_and_transformed_mesh():
    """A 1 x 2 x 3 box: V = 6, I = m / 12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2); turned by a half turn about z and
    scaled by -2 (a mirror): volume 48, inertia 32 times the box's (diagonal entries unchanged by the half turn)."""
    box = mc.Mesh.primitive("box", (1.0, 2.0, 3.0))
    mp = box.mass_properties(density=2.0)
    assert abs(mp.volume - 6.0) < 1e-14 and abs(mp.mass - 12.0) < 1e-13
    want = np.diag([12.0 / 12 * 13, 12.0 / 12 * 10, 12.0 / 12 * 5])
    assert np.allclose(mp.inertia, want, rtol=0, atol=1e-13)
    assert np.allclose(mp.principal_moments, [5.0, 10.0, 13.0], rtol=0, atol=1e-13)
    big = box.transformed([1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0], -2.0)
    mq = big.mass_properties(density=2.0)
    assert abs(mq.volume - 48.0) < 1e-12
    assert np.allclose(mq.centroid, [1.0, 2.0, 3.0], rtol=0, atol=1e-12)
    assert np.allclose(mq.inertia, 32.0 * want, rtol=1e-13, atol=1e-12)
    with pytest.raises(mc.Error, match="density"):
        box.mass_properties(density=0.0)
    big.close()
    box.close()
