// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Manifold as a peer of bench_regions -M: reads pairs of meshes written by bench_regions (one file per scene), builds
// both solids with manifold-3d, and times their intersection with its volume (Manifold evaluates lazily: the
// boolean runs when the volume is asked for). Prints one JSON line per file: {"file", "volume", "seconds", "runs"}.
// File layout (little endian): uint32 nv_i, nt_i, nv_j, nt_j; float32 positions of I (3 nv_i), uint32 indices of I
// (3 nt_i), then J's. Usage: node manifold_bench.mjs REPEATS FILE...
import Module from "manifold-3d";

const wasm = await Module();
wasm.setup();
const { Manifold, Mesh } = wasm;

function solid(buf, off, nv, nt) {
  const vert = new Float32Array(buf.buffer, buf.byteOffset + off, 3 * nv);
  off += 12 * nv;
  const tri = new Uint32Array(buf.buffer, buf.byteOffset + off, 3 * nt);
  off += 12 * nt;
  const mesh = new Mesh({ numProp: 3, vertProperties: new Float32Array(vert), triVerts: new Uint32Array(tri) });
  mesh.merge();
  return [new Manifold(mesh), off];
}

const fs = await import("node:fs");
const repeats = Number(process.argv[2]);
for (const file of process.argv.slice(3)) {
  const buf = fs.readFileSync(file);
  const head = new Uint32Array(buf.buffer, buf.byteOffset, 4);
  const [nvi, nti, nvj, ntj] = head;
  let off = 16;
  let a, b;
  [a, off] = solid(buf, off, nvi, nti);
  [b, off] = solid(buf, off, nvj, ntj);
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
  const status = a.status() + "," + b.status();
  console.log(JSON.stringify({ file, volume, seconds: best, runs: repeats, status }));
  a.delete();
  b.delete();
}
