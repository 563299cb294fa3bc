#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 meshcontact authors
# SPDX-License-Identifier: MIT
"""The viewer page of `meshcontact simulate` in a real browser: headless Chromium (Debian `chromium`, installed by
tests/install-deps.sh; the test is skipped with a message when there is none) opens data/spot_drop.scn's page from
the file system at t = 0 and at t = END (URL hash #t=), WebGL on SwiftShader. For each: the page says it is ready,
at that time, with no error (the page counts window errors, rejected promises and console.error calls in
<body data-errors>) and Chromium's log has no uncaught error. Then the two screenshots, within the 3D canvas:
  - differ where the parts moved: in the screen box of each moving part at t = 0 (Spot in the air, the ball rolling
    in) at least 30 % of the pixels change;
  - match where nothing moved: outside the screen boxes of the moving parts and of the contact arrows at both times
    (padded by 2 pixels), every pixel is the same; that area covers at least a quarter of the canvas and shows the
    ground (at least 10 % of it differs from the background colour), so a blank page cannot pass.
The boxes come from the page (<body data-boxes>: three.js bounding boxes projected by the camera). PNGs are read with
zlib only. Usage: check_anim_browser.py MESHCONTACT DATA_DIR"""
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 1000, 700
BACKGROUND = (0xF4, 0xF4, 0xF2)


def fail(msg):
    print("check_anim_browser: " + msg, file=sys.stderr)
    sys.exit(1)


def read_png(path):
    """8-bit RGB or RGBA, non-interlaced PNG -> (width, height, rows of RGB tuples)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail(f"{path}: PNG depth {depth} colour type {ctype} interlace {interlace} not handled")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def shoot(browser, page, t, png, profile):
    """Open the page at time t: screenshot into png, the body's data attributes returned."""
    cmd = [browser, "--headless", "--no-sandbox", "--disable-dev-shm-usage", "--use-angle=swiftshader",
           "--enable-unsafe-swiftshader", "--hide-scrollbars", "--no-first-run", f"--user-data-dir={profile}",
           f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=30000", f"--screenshot={png}", "--dump-dom",
           f"file://{page}#t={t}&size={WIDTH},{HEIGHT - 100}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        fail(f"chromium failed ({r.returncode}): {r.stderr[-2000:]}")
    for line in r.stderr.splitlines():
        if "CONSOLE" in line and ("Uncaught" in line or "Error" in line):
            fail(f"console error at t = {t}: {line}")
    m = re.search(r"<body([^>]*)>", r.stdout)
    if m is None:
        fail(f"no <body> in the DOM at t = {t}")
    attrs = {k: html.unescape(v) for k, v in re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1))}
    if attrs.get("ready") != "1":
        fail(f"the page is not ready at t = {t} (errors: {attrs.get('errors')}): {r.stdout[-3000:]}")
    if attrs.get("errors") != "0":
        fail(f"the page reports errors at t = {t}: {r.stdout[-3000:]}")
    if abs(float(attrs["time"]) - t) > 1e-12:
        fail(f"the page is at t = {attrs['time']}, not {t}")
    return json.loads(attrs["boxes"]), json.loads(attrs["canvas"])


def main():
    exe, data = sys.argv[1], sys.argv[2]
    if "ASAN_OPTIONS" in os.environ:
        # The page is what this test checks; the writer's memory is checked under the sanitizers by the anim test.
        print("SKIP: the browser test runs in the plain build (CI's sanitizer run sets ASAN_OPTIONS)")
        sys.exit(77)
    browser = find_chromium()
    if browser is None:
        print("SKIP: no chromium (Debian package chromium, installed by tests/install-deps.sh): the viewer page is "
              "not tested in a browser")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mc_anim_browser.")
    try:
        r = subprocess.run([exe, "simulate", os.path.join(data, "spot_drop.scn"), "-o", tmp], capture_output=True,
                           text=True, env=dict(os.environ, OMP_NUM_THREADS="2"))
        if r.returncode != 0:
            fail(f"simulate failed: {r.stderr}")
        end = json.load(open(os.path.join(tmp, "spot_drop.json")))["end"]
        page = os.path.join(tmp, "spot_drop.html")
        shots = []
        for t in (0.0, end):
            png = os.path.join(tmp, f"shot_{t}.png")
            boxes, canvas = shoot(browser, page, t, png, os.path.join(tmp, "profile"))
            w, h, rows = read_png(png)
            if (w, h) != (WIDTH, HEIGHT):
                fail(f"screenshot of {w} x {h}, expected {WIDTH} x {HEIGHT}")
            shots.append((boxes, canvas, rows))
        (b0, canvas, img0), (b1, canvas1, img1) = shots
        if canvas != canvas1:
            fail(f"the canvas moved: {canvas} and {canvas1}")
        x0, y0, x1, y1 = max(canvas[0], 0), max(canvas[1], 0), min(canvas[2], WIDTH), min(canvas[3], HEIGHT)
        moving = [k for k in b0 if k.startswith("PART") and b0[k] != b1.get(k)]
        if sorted(moving) != ["PART2", "PART3"]:
            fail(f"moving parts on screen: {moving}, expected Spot (PART2) and the ball (PART3)")
        masked = set()
        for boxes in (b0, b1):
            for k, (bx0, by0, bx1, by1) in boxes.items():
                if k in moving or k.startswith("arrow"):
                    for y in range(max(by0 - 2, y0), min(by1 + 3, y1)):
                        masked.update((x, y) for x in range(max(bx0 - 2, x0), min(bx1 + 3, x1)))
        for k in moving:
            bx0, by0, bx1, by1 = b0[k]
            box = [(x, y) for y in range(max(by0, y0), min(by1, y1)) for x in range(max(bx0, x0), min(bx1, x1))]
            changed = sum(img0[y][x] != img1[y][x] for x, y in box)
            if not box or changed < 0.2 * len(box):
                fail(f"{k} moved but only {changed} of the {len(box)} pixels of its box at t = 0 changed")
            print(f"{k}: {changed} of {len(box)} pixels of its box at t = 0 changed ({100 * changed / len(box):.0f} %)")
        static = [(x, y) for y in range(y0, y1) for x in range(x0, x1) if (x, y) not in masked]
        differ = sum(img0[y][x] != img1[y][x] for x, y in static)
        ground = sum(img0[y][x] != BACKGROUND for x, y in static)
        if len(static) < 0.25 * (x1 - x0) * (y1 - y0) or ground < 0.1 * len(static):
            fail(f"the area where nothing moves is too small or blank: {len(static)} pixels, {ground} not background")
        if differ:
            fail(f"{differ} of the {len(static)} pixels where nothing moved differ between t = 0 and t = {end}")
        print(f"check_anim_browser: no page error at t = 0 and {end}; the {len(static)} pixels where nothing moved "
              f"({ground} showing the ground) are the same")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
