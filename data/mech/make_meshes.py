#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""Generate the meshes of the mechanism scenarios of data/mech/ (cam.obj, gear24.obj, gear36.obj).

Run from anywhere: `python3 data/mech/make_meshes.py [OUTDIR]` rewrites the meshes next to this script (or in OUTDIR); the output
is the same bytes on every run (`--check`, the `mech_meshes` test, regenerates them into a temporary folder and compares).
Every profile is a closed polygon whose vertices lie on the exact curve, star-shaped about the axis, extruded along
z (from -width/2 to width/2) with both caps fanned from a vertex on the axis. Lengths in metres.
"""
import math
import os
import sys


def cycloidal(x):
    """The cycloidal lift law on [0, 1]: s(0) = 0, s(1) = 1, zero velocity and acceleration at both ends."""
    return x - math.sin(2.0 * math.pi * x) / (2.0 * math.pi)


def cycloidal_d1(x):
    return 1.0 - math.cos(2.0 * math.pi * x)


# The cam of data/mech/cam.scn: base radius 25 mm, lift 10 mm; cycloidal rise over 120 degrees of cam turn, dwell
# 60, cycloidal return over 120, dwell 60 (the test tests/test_mech_data.c has the same law).
CAM_BASE, CAM_LIFT, CAM_RISE, CAM_DWELL_HIGH, CAM_RETURN = 0.025, 0.010, 120.0, 60.0, 120.0


def cam_lift(theta):
    """Follower lift s(theta) and ds/dtheta, theta the cam's turn (radians) since the rise began."""
    t = math.degrees(theta) % 360.0
    rise, high, ret = CAM_RISE, CAM_RISE + CAM_DWELL_HIGH, CAM_RISE + CAM_DWELL_HIGH + CAM_RETURN
    if t < rise:
        x = t / rise
        return CAM_LIFT * cycloidal(x), CAM_LIFT * cycloidal_d1(x) / math.radians(CAM_RISE)
    if t < high:
        return CAM_LIFT, 0.0
    if t < ret:
        x = (t - high) / CAM_RETURN
        return CAM_LIFT * (1.0 - cycloidal(x)), -CAM_LIFT * cycloidal_d1(x) / math.radians(CAM_RETURN)
    return 0.0, 0.0


def cam_profile(n):
    """A disc cam for a flat-faced follower that slides along +y: turned by theta (counter-clockwise about z), it
    lifts the follower's face to y = base + s(theta). Its support function in the direction at polar angle phi is
    p(phi) = base + s(pi/2 - phi), and the profile point of that direction is p u + p' u' (u = (cos, sin) phi):
    n points at equal steps of phi, which is the tangent's turn, so every chord's sagitta is at most
    rho_max (2 pi / n)^2 / 8 (rho = p + p'', the radius of curvature)."""
    pts = []
    for k in range(n):
        phi = 2.0 * math.pi * k / n
        s, ds = cam_lift(math.pi / 2.0 - phi)
        p, dp = CAM_BASE + s, -ds
        c, si = math.cos(phi), math.sin(phi)
        pts.append((p * c - dp * si, p * si + dp * c))
    return pts


FLANK_POINTS = 7
BACKLASH = 0.0001


def involute_angle(rb, r):
    a = math.acos(rb / r)
    return math.tan(a) - a


def gear_profile(teeth, module, flank_points, backlash):
    """A standard involute spur gear (pressure angle 20 degrees, addendum m, dedendum 1.25 m), tooth 0 centred
    on +x: per tooth two points on the root circle, flank_points on each involute flank from max(base, root)
    circle to the tip circle, two inside the tip arc (as tests/scenes_cad.c, but the flank points at equal steps
    of the roll angle t, r = rb sqrt(1 + t^2), which is the tangent's turn: every chord's sagitta is at most
    rho_tip dt^2 / 8, rho_tip = sqrt(ra^2 - rb^2) the involute's radius of curvature at the tip). Each tooth is
    thinned by backlash / 2 along the pitch circle (two such gears at the standard centre distance have that
    backlash; without it both flanks of a tooth touch, and the contacts wedge the gears apart)."""
    rp = 0.5 * module * teeth
    rb = rp * math.cos(math.radians(20.0))
    ra, rf = rp + module, max(rp - 1.25 * module, 0.5 * rp)
    pitch = 2.0 * math.pi / teeth
    half_base = 0.25 * pitch - 0.25 * backlash / rp + involute_angle(rb, rp)
    t0, ta = math.sqrt(max(rf * rf - rb * rb, 0.0)) / rb, math.sqrt(ra * ra - rb * rb) / rb
    pts = []
    for z in range(teeth):
        c = z * pitch
        foot, gap_mid = c - half_base, c - 0.5 * pitch
        for a in (gap_mid - 0.5 * (foot - gap_mid), gap_mid + 0.5 * (foot - gap_mid)):
            pts.append((rf * math.cos(a), rf * math.sin(a)))
        for side in (0, 1):
            for i in range(flank_points):
                j = i if side == 0 else flank_points - 1 - i
                t = t0 + (ta - t0) * j / (flank_points - 1)
                r = rb * math.sqrt(1.0 + t * t)
                th = c - half_base + involute_angle(rb, r) if side == 0 else c + half_base - involute_angle(rb, r)
                pts.append((r * math.cos(th), r * math.sin(th)))
            if side == 0:
                tip = half_base - involute_angle(rb, ra)
                for q in (1, 2):
                    th = c - tip + 2.0 * tip * q / 3.0
                    pts.append((ra * math.cos(th), ra * math.sin(th)))
    return pts


# The Geneva drive of data/mech/geneva.scn: 4 slots, centre distance 50 mm, crank (pin centre) radius
# c sin(45 deg) = 35.36 mm, pin radius 3 mm in slots 6.1 mm wide, wheel radius 36 mm; the driver's locking disc
# (radius 26 mm) turns in the wheel's concave locking arcs (radius 26.2 mm) during the dwell.
GEN_N, GEN_C, GEN_PIN, GEN_HALF_SLOT, GEN_R = 4, 0.050, 0.003, 0.00305, 0.036
GEN_LOCK, GEN_LOCK_ARC, GEN_R_IN, GEN_TOL = 0.026, 0.0262, 0.009, 2e-6
GEN_CRANK = GEN_C * math.sin(math.pi / GEN_N)


def arc_steps(r, span):
    """Segments for an arc of radius r over span radians with sagitta at most GEN_TOL."""
    return max(1, int(math.ceil(abs(span) / (2.0 * math.acos(1.0 - GEN_TOL / r)))))


def geneva_tooth():
    """The wheel's material between two slots, its locking arc centred on +x (slots at -45 and +45 degrees):
    side of slot A outward, outer arc, concave locking arc, outer arc, side of slot B inward, inner arc (radius
    9 mm: the pin, whose centre comes to c - crank = 14.6 mm from the wheel's centre, never reaches it). Points
    counter-clockwise; star-shaped about (10 mm, 0)."""
    half = math.pi / GEN_N
    hw, rr, rin = GEN_HALF_SLOT, GEN_R, GEN_R_IN
    x = (rr * rr - GEN_LOCK_ARC**2 + GEN_C**2) / (2.0 * GEN_C)  # outer circle meets the locking arc
    y = math.sqrt(rr * rr - x * x)
    gam, dl = math.atan2(y, x), math.atan2(y, GEN_C - x)
    pts = []

    def side(axis, sign, outward):
        u, nrm = (math.cos(axis), math.sin(axis)), (-math.sin(axis) * sign, math.cos(axis) * sign)
        ends = [math.sqrt(rin * rin - hw * hw), math.sqrt(rr * rr - hw * hw)]
        for sv in (ends if outward else ends[::-1]):
            pts.append((sv * u[0] + hw * nrm[0], sv * u[1] + hw * nrm[1]))

    def arc(cx, cy, r, a0, a1, ends):
        k = arc_steps(r, a1 - a0)
        for i in range(0 if ends[0] else 1, k + (1 if ends[1] else 0)):
            a = a0 + (a1 - a0) * i / k
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))

    side(-half, 1.0, True)
    arc(0.0, 0.0, rr, -half + math.asin(hw / rr), -gam, (False, True))
    arc(GEN_C, 0.0, GEN_LOCK_ARC, -(math.pi - dl), -(math.pi + dl), (False, False))
    arc(0.0, 0.0, rr, gam, half - math.asin(hw / rr), (True, False))
    side(half, -1.0, False)
    arc(0.0, 0.0, rin, half - math.asin(hw / rin), -half + math.asin(hw / rin), (False, False))
    return pts


def rotate(pts, a):
    c, s = math.cos(a), math.sin(a)
    return [(c * x - s * y, s * x + c * y) for x, y in pts]


def geneva_wheel_turn(theta):
    """The wheel's turn (radians, from its start) while the driver's pin is at polar angle theta in [-45, 45]
    degrees about the driver's axis (the origin; the wheel's centre at (c, 0)): the slot points at the pin."""
    px, py = GEN_CRANK * math.cos(theta), GEN_CRANK * math.sin(theta)
    return math.atan2(py, px - GEN_C) - (math.pi + math.pi / GEN_N)


def geneva_lock(bins):
    """The driver's locking disc (radius 26 mm, pin on +x) less the relief the wheel sweeps while it indexes:
    the boundary's radius at each of `bins` polar angles is the disc's or, less 0.3 mm, the smallest radius of
    the wheel's outline (densely resampled, every 0.1 degree of the driver's turn through the indexing) over
    that angle's bin and its two neighbours, so every chord keeps 0.3 mm from the swept wheel."""
    outline = []
    tooth = geneva_tooth()
    for k in range(GEN_N):
        shell = rotate(tooth, math.pi / GEN_N + 2.0 * math.pi * k / GEN_N)
        for i in range(len(shell)):
            (x0, y0), (x1, y1) = shell[i], shell[(i + 1) % len(shell)]
            m = max(1, int(math.hypot(x1 - x0, y1 - y0) / 5e-5))
            outline += [(x0 + (x1 - x0) * j / m, y0 + (y1 - y0) * j / m) for j in range(m)]
    # Points nearer the wheel's centre than c - 26.3 mm never come within 26.3 mm of the driver's axis, nor do those
    # whose direction from the wheel's centre stays farther than acos((c^2 + r^2 - 26.3 mm^2) / (2 c r)) from the
    # driver's while the wheel turns through its quarter (ground angle: theirs plus pi / N plus 0 to -pi / 2).
    near = GEN_LOCK + 0.0003
    keep = []
    for x, y in outline:
        r = math.hypot(x, y)
        if r <= GEN_C - near:
            continue
        reach = math.acos(min(1.0, (GEN_C**2 + r * r - near * near) / (2.0 * GEN_C * r)))
        mid = math.atan2(y, x) + math.pi / GEN_N - math.pi / 4.0  # the middle of its ground angles
        off = abs((mid - math.pi + math.pi) % (2.0 * math.pi) - math.pi)
        if off <= math.pi / 4.0 + reach + 1e-9:
            keep.append((x, y))
    outline = keep
    # At the start the wheel is turned by pi / N: a slot points at the pin's entry, the wheel's centre at (c, 0).
    lo = [GEN_LOCK] * bins
    steps = 900
    for j in range(steps + 1):
        th = -math.pi / 4.0 + (math.pi / 2.0) * j / steps
        turn = math.pi / GEN_N + geneva_wheel_turn(th)
        c, s = math.cos(turn), math.sin(turn)
        cd, sd = math.cos(-th), math.sin(-th)
        for x, y in outline:
            wx, wy = GEN_C + c * x - s * y, c * y + s * x  # ground frame
            dx, dy = cd * wx - sd * wy, sd * wx + cd * wy  # driver frame
            r = math.hypot(dx, dy)
            if r < GEN_LOCK + 0.0003:
                b = int(round(math.atan2(dy, dx) / (2.0 * math.pi) * bins)) % bins
                lo[b] = min(lo[b], r - 0.0003)
    rad = [min(lo[(k - 1) % bins], lo[k], lo[(k + 1) % bins]) for k in range(bins)]
    return [(rad[k] * math.cos(2.0 * math.pi * k / bins), rad[k] * math.sin(2.0 * math.pi * k / bins))
            for k in range(bins)]


def write_prism(path, pts, width, comment, shells=None):
    """The polygon (counter-clockwise) extruded from z = -width/2 to width/2; caps fanned from the axis. shells:
    instead, a list of (polygon, fan centre), one closed shell each."""
    shells = shells if shells is not None else [(pts, (0.0, 0.0))]
    h = 0.5 * width
    nv = sum(2 * len(p) + 2 for p, _ in shells)
    lines = ["# " + c for c in comment] + ["# %d vertices, %d triangles" % (nv, 2 * nv - 4 * len(shells))]
    faces, base = [], 0
    for poly, (cx, cy) in shells:
        n = len(poly)
        for z in (-h, h):
            for x, y in poly:
                lines.append("v %.9g %.9g %.9g" % (x, y, z))
        lines.append("v %.9g %.9g %.9g" % (cx, cy, -h))
        lines.append("v %.9g %.9g %.9g" % (cx, cy, h))
        bot, top = base + 2 * n + 1, base + 2 * n + 2  # 1-based
        for i in range(n):
            j = (i + 1) % n
            a, b, c, d = base + i + 1, base + j + 1, base + n + i + 1, base + n + j + 1
            faces.append("f %d %d %d" % (a, b, d))
            faces.append("f %d %d %d" % (a, d, c))
            faces.append("f %d %d %d" % (bot, b, a))
            faces.append("f %d %d %d" % (top, c, d))
        base += 2 * n + 2
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(lines + faces) + "\n")


def generate(out):
    write_prism(os.path.join(out, "cam.obj"), cam_profile(180), 0.010,
                ["disc cam of data/mech/cam.scn (data/mech/make_meshes.py): base radius 0.025 m, lift 0.01 m,",
                 "cycloidal rise 120 deg, dwell 60, cycloidal return 120, dwell 60; 180 profile points, 10 mm wide"])
    for teeth, width in ((24, 0.010), (36, 0.008)):
        write_prism(os.path.join(out, "gear%d.obj" % teeth), gear_profile(teeth, 0.002, FLANK_POINTS, BACKLASH), width,
                    ["involute spur gear of data/mech/gears.scn (data/mech/make_meshes.py): %d teeth," % teeth,
                     "module 2 mm, pressure angle 20 deg, %d points a flank, %g mm wide, %g mm of backlash" % (FLANK_POINTS, width * 1e3, BACKLASH * 1e3)])
    tooth = geneva_tooth()
    shells = [(rotate(tooth, a), rotate([(0.010, 0.0)], a)[0])
              for a in (math.pi / GEN_N + 2.0 * math.pi * k / GEN_N for k in range(GEN_N))]
    write_prism(os.path.join(out, "geneva_wheel.obj"), None, 0.008,
                ["Geneva wheel of data/mech/geneva.scn (data/mech/make_meshes.py): 4 slots 6.1 mm wide, radius",
                 "36 mm, locking arcs of radius 26.2 mm at 50 mm; one shell per tooth (the hub carries no contact)"],
                shells)
    write_prism(os.path.join(out, "geneva_lock.obj"), geneva_lock(360), 0.010,
                ["locking disc of the Geneva driver of data/mech/geneva.scn (data/mech/make_meshes.py): radius",
                 "26 mm less the relief the wheel sweeps while it indexes (pin on +x)"])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.argv[1:] == ["--check"]:
        # The mech_meshes test: regenerate into a temporary folder, compare with the shipped files byte for byte.
        import filecmp
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            generate(tmp)
            bad = [n for n in sorted(os.listdir(tmp)) if not filecmp.cmp(os.path.join(tmp, n), os.path.join(here, n),
                                                                         shallow=False)]
        if bad:
            print("make_meshes.py: not what data/mech/ holds: " + ", ".join(bad))
            return 1
        print("make_meshes.py: the shipped meshes are regenerated byte for byte")
        return 0
    generate(sys.argv[1] if len(sys.argv) > 1 else here)
    return 0


if __name__ == "__main__":
    sys.exit(main())
