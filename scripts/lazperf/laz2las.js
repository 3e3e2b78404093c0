#!/usr/bin/env node
// laz2las.js: decompress a LAZ file with laz-perf (LASzip compiled to WebAssembly).
//
//   node laz2las.js in.laz out.bin          raw point records, count*recordLength bytes
//   node laz2las.js --las in.laz out.las    a LAS file: the LAZ header and VLRs with the
//                                           laszip bit cleared, the point records, then
//                                           the EVLRs of LAS 1.4
// Prints "format length count" on stdout. Used by lidar/laz's oracle test.
'use strict';
const fs = require('fs');
const { createLazPerf } = require('laz-perf');

async function main() {
  let args = process.argv.slice(2);
  let las = false;
  if (args[0] === '--las') { las = true; args = args.slice(1); }
  if (args.length !== 2) {
    console.error('usage: node laz2las.js [--las] in.laz out');
    process.exit(2);
  }
  const input = fs.readFileSync(args[0]);
  const lp = await createLazPerf();
  const filePtr = lp._malloc(input.length);
  lp.HEAPU8.set(input, filePtr);
  const laszip = new lp.LASZip();
  laszip.open(filePtr, input.length);
  const count = laszip.getCount();
  const len = laszip.getPointLength();
  const fmt = laszip.getPointFormat();
  const pointPtr = lp._malloc(len);
  const out = Buffer.alloc(count * len);
  for (let i = 0; i < count; i++) {
    laszip.getPoint(pointPtr);
    out.set(lp.HEAPU8.subarray(pointPtr, pointPtr + len), i * len);
  }
  laszip.delete();
  lp._free(pointPtr);
  lp._free(filePtr);
  if (las) {
    const offset = input.readUInt32LE(96);
    const head = Buffer.from(input.subarray(0, offset));
    head[104] &= 0x3f; // clear the compression bits of the point format
    const parts = [head, out];
    // LAS 1.4 keeps EVLRs (a WKT CRS, COPC's hierarchy) after the points: move them after the
    // uncompressed points, and say where they now start.
    if (input[25] >= 4 && input.readUInt32LE(243) > 0) {
      const start = Number(input.readBigUInt64LE(235));
      head.writeBigUInt64LE(BigInt(offset + out.length), 235);
      parts.push(input.subarray(start));
    }
    fs.writeFileSync(args[1], Buffer.concat(parts));
  } else {
    fs.writeFileSync(args[1], out);
  }
  console.log(`${fmt} ${len} ${count}`);
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
