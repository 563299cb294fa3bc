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


def write_prism(path, pts, width, comment):
    """The polygon (counter-clockwise) extruded from z = -width/2 to width/2; caps fanned from the axis."""
    n = len(pts)
    h = 0.5 * width
    lines = ["# " + c for c in comment] + ["# %d vertices, %d triangles" % (2 * n + 2, 4 * n)]
    for z in (-h, h):
        for x, y in pts:
            lines.append("v %.9g %.9g %.9g" % (x, y, z))
    lines.append("v 0 0 %.9g" % -h)
    lines.append("v 0 0 %.9g" % h)
    bot, top = 2 * n + 1, 2 * n + 2  # 1-based
    for i in range(n):
        j = (i + 1) % n
        a, b, c, d = i + 1, j + 1, n + i + 1, n + j + 1
        lines.append("f %d %d %d" % (a, b, d))
        lines.append("f %d %d %d" % (a, d, c))
        lines.append("f %d %d %d" % (bot, b, a))
        lines.append("f %d %d %d" % (top, c, d))
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def generate(out):
    write_prism(os.path.join(out, "cam.obj"), cam_profile(180), 0.010,
                ["disc cam of data/mech/cam.scn (data/mech/make_meshes.py): base radius 0.025 m, lift 0.01 m,",
                 "cycloidal rise 120 deg, dwell 60, cycloidal return 120, dwell 60; 180 profile points, 10 mm wide"])
    for teeth, width in ((24, 0.010), (36, 0.008)):
        write_prism(os.path.join(out, "gear%d.obj" % teeth), gear_profile(teeth, 0.002, FLANK_POINTS, BACKLASH), width,
                    ["involute spur gear of data/mech/gears.scn (data/mech/make_meshes.py): %d teeth," % teeth,
                     "module 2 mm, pressure angle 20 deg, %d points a flank, %g mm wide, %g mm of backlash" % (FLANK_POINTS, width * 1e3, BACKLASH * 1e3)])


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
