// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Manifold as a peer of bench_regions -M: reads pairs of meshes written by bench_regions (one file per scene), builds
// both solids with manifold-3d, and times their intersection with its volume (Manifold evaluates lazily: the
// boolean runs when the volume is asked for).
//
// Precision (measured on shaft_in_bore: before, Manifold was 1.1e-8 off CGAL's exact volume of the same input, now
// 1e-16). manifold-3d's JS Mesh takes float32 positions only (no MeshGL64 in the JS binding), and a Manifold made from
// a float mesh gets a float-sized tolerance (Impl::SetEpsilon(.., useSingle): FLT_EPSILON x bounding-box scale, about
// 1.2e-7 x scale, instead of its double epsilon, about 1e-12 x scale). At construction Manifold groups neighbouring
// triangles that are coplanar within that tolerance into faces (CreateFaces), and the boolean re-triangulates each
// face of its result: the quads of a CAD mesh, no longer planar once rounded to float32, are re-split along the other
// diagonal, which moves the volume of thin intersections by up to 1e-8 relative. (Lowering the tolerance alone does
// not help: the faces are already made; giving every triangle its own faceID does.) The construction also simplifies
// the input at the float tolerance (motor.stl's slivers: its volume moved by 4e-11). So each solid is made from the
// same triangles on scattered vertex positions (a fixed pseudo-random point per vertex in the unit cube: no short edge,
// nothing coplanar or colinear, so nothing to simplify or group), its tolerance lowered to Manifold's double epsilon
// (setTolerance(0): Manifold keeps it >= epsilon), then warpBatch moves every vertex to its real position (Manifold
// re-makes the faces there, now at the double tolerance), and the tolerance is lowered again: what a native caller
// passing a MeshGL64 gets, less the construction's simplification at the double epsilon. All of it once per solid,
// outside the timed loop (a native caller pays its construction outside the boolean too). Modes:
//   "f64": the scene's float64 positions (the comparison);
//   "f32": the float32-rounded positions (the same triangles and tolerance);
//   "f32_default": the float mesh as manifold-3d makes it (the comparison before the fix), for the record.
// For each mode: volume, best seconds of intersect + volume, the inputs' larger tolerance, and input_rel: the largest
// relative difference between an input solid's Manifold volume and the signed volume of the file's mesh (double sum),
// which shows that making the solids changed nothing. File layout (little endian): uint32 nv_i, nt_i, nv_j, nt_j; then
// for I and J in turn: float32 positions (3 nv), uint32 indices (3 nt), float64 positions (3 nv).
// Usage: node manifold_bench.mjs REPEATS FILE...
import Module from "manifold-3d";

const wasm = await Module();
wasm.setup();
const { Manifold, Mesh } = wasm;

/// Signed volume of a triangle mesh (positions pos, indices tri), summed in double.
function meshVolume(pos, tri) {
  let v = 0;
  for (let t = 0; t < tri.length; t += 3) {
    const a = 3 * tri[t], b = 3 * tri[t + 1], c = 3 * tri[t + 2];
    v += pos[a] * (pos[b + 1] * pos[c + 2] - pos[b + 2] * pos[c + 1]) -
      pos[a + 1] * (pos[b] * pos[c + 2] - pos[b + 2] * pos[c]) +
      pos[a + 2] * (pos[b] * pos[c + 1] - pos[b + 1] * pos[c]);
  }
  return v / 6;
}

/// The solid `base` (made on positions `vert`) moved to `to` (Float64Array, same vertex order as the file) by
/// warpBatch, with Manifold's double tolerance; null when two vertices share a position in `vert` (Manifold reorders
/// its vertices, so they are matched by position).
function warped(base, vert, to, nv) {
  const index = new Map();
  for (let k = 0; k < nv; ++k) index.set(`${vert[3 * k]},${vert[3 * k + 1]},${vert[3 * k + 2]}`, k);
  if (index.size !== nv) return null;
  const low = base.setTolerance(0);
  const m = low.warpBatch((v, count) => {
    for (let i = 0; i < count; ++i) {
      const k = index.get(`${v[3 * i]},${v[3 * i + 1]},${v[3 * i + 2]}`);
      v[3 * i] = to[3 * k];
      v[3 * i + 1] = to[3 * k + 1];
      v[3 * i + 2] = to[3 * k + 2];
    }
  });
  const out = m.setTolerance(0);
  low.delete();
  m.delete();
  return out;
}

function solid(buf, off, nv, nt) {
  const vert = new Float32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + 12 * nv));
  off += 12 * nv;
  const tri = new Uint32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + 12 * nt));
  off += 12 * nt;
  const dbl = new Float64Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + 24 * nv));
  off += 24 * nv;
  const mesh = new Mesh({ numProp: 3, vertProperties: vert, triVerts: tri });
  mesh.merge();
  const f32_default = new Manifold(mesh);
  const scatter = new Float32Array(3 * nv);
  let seed = 12345;
  for (let k = 0; k < 3 * nv; ++k) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    scatter[k] = seed / 4294967296;
  }
  const sm = new Mesh({ numProp: 3, vertProperties: scatter, triVerts: tri });
  sm.merge();
  const base = new Manifold(sm);
  if (base.status() !== f32_default.status()) throw new Error(`scattered solid: ${base.status()}`);
  const s = { f64: warped(base, scatter, dbl, nv), f32: warped(base, scatter, Float64Array.from(vert), nv), f32_default };
  const ref = { f64: meshVolume(dbl, tri), f32: meshVolume(vert, tri), f32_default: meshVolume(vert, tri) };
  const rel = {};
  for (const m of Object.keys(s)) rel[m] = s[m] ? Math.abs(s[m].volume() - ref[m]) / Math.abs(ref[m]) : NaN;
  return [s, rel, off];
}

function time(a, b, repeats, input_rel) {
  let best = Infinity;
  let volume = NaN;
  for (let r = 0; r <= repeats; ++r) {
    const t0 = process.hrtime.bigint();
    const c = a.intersect(b);
    volume = c.volume();
    const t = Number(process.hrtime.bigint() - t0) * 1e-9;
    c.delete();
    if (r > 0 || repeats === 0) best = Math.min(best, t);
  }
  return { volume, seconds: best, tolerance: Math.max(a.tolerance(), b.tolerance()), input_rel };
}

const fs = await import("node:fs");
const repeats = Number(process.argv[2]);
for (const file of process.argv.slice(3)) {
  const buf = fs.readFileSync(file);
  const head = new Uint32Array(buf.buffer, buf.byteOffset, 4);
  const [nvi, nti, nvj, ntj] = head;
  let off = 16;
  let a, b, ra, rb;
  [a, ra, off] = solid(buf, off, nvi, nti);
  [b, rb, off] = solid(buf, off, nvj, ntj);
  const res = { file, status: a.f32_default.status() + "," + b.f32_default.status() };
  // Warm-up of every mode first (untimed): otherwise the first mode timed pays node's and the wasm heap's warm-up,
  // measured up to 3x slower on the small scenes with 5 repeats (cad_part_on_plate). Then one mode after the other,
  // each best of its repeats.
  for (const mode of ["f64", "f32", "f32_default"]) {
    if (a[mode] && b[mode]) {
      for (let r = 0; r < 2; ++r) {
        const c = a[mode].intersect(b[mode]);
        c.volume();
        c.delete();
      }
    }
  }
  for (const mode of ["f64", "f32", "f32_default"]) {
    res[mode] = a[mode] && b[mode] ? time(a[mode], b[mode], repeats, Math.max(ra[mode], rb[mode])) : null;
  }
  console.log(JSON.stringify(res));
  for (const s of [a, b]) for (const m of Object.values(s)) if (m) m.delete();
}
