#!/usr/bin/env node
// bench.js: time laz-perf 0.0.7 (LASzip in WebAssembly) decoding a LAZ file.
//   node bench.js file.laz [seconds]
// Decodes the whole file repeatedly for at least the given time (default 5 s,
// after one warm-up pass) and prints points per second.
'use strict';
const fs = require('fs');
const { createLazPerf } = require('laz-perf');

async function main() {
  const path = process.argv[2];
  const seconds = Number(process.argv[3] || 5);
  const input = fs.readFileSync(path);
  const lp = await createLazPerf();
  const filePtr = lp._malloc(input.length);
  lp.HEAPU8.set(input, filePtr);
  const pass = () => {
    const laszip = new lp.LASZip();
    laszip.open(filePtr, input.length);
    const count = laszip.getCount();
    const ptr = lp._malloc(laszip.getPointLength());
    for (let i = 0; i < count; i++) laszip.getPoint(ptr);
    lp._free(ptr);
    laszip.delete();
    return count;
  };
  pass();
  let points = 0, passes = 0;
  const t0 = process.hrtime.bigint();
  let el = 0;
  while (el < seconds) {
    points += pass();
    passes++;
    el = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  console.log(`${path}: ${passes} passes, ${points} points in ${el.toFixed(2)} s: ${(points / el / 1e6).toFixed(3)} Mpoints/s`);
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
