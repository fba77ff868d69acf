// Draws media/icon.png (128x128, the marketplace icon) without an image library: supersampled shapes -> PNG via zlib.
// Run: node media/generate-icon.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const size = 128;
const samples = 4;
const radius = 26;
const pulse = [[22, 66], [46, 66], [56, 40], [72, 94], [82, 66], [106, 66]].map(([x, y]) => [x, y]);
const strokeHalf = 5.5;

function insideRoundedSquare(x, y) {
  const inset = 4;
  const min = inset + radius;
  const max = size - inset - radius;
  const dx = Math.max(min - x, 0, x - max);
  const dy = Math.max(min - y, 0, y - max);
  return dx * dx + dy * dy <= radius * radius && x >= inset && y >= inset && x <= size - inset && y <= size - inset;
}

function distanceToSegment(px, py, [ax, ay], [bx, by]) {
  const vx = bx - ax, vy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * vx + (py - ay) * vy) / (vx * vx + vy * vy)));
  return Math.hypot(px - (ax + t * vx), py - (ay + t * vy));
}

function onPulse(x, y) {
  for (let i = 1; i < pulse.length; i++) if (distanceToSegment(x, y, pulse[i - 1], pulse[i]) <= strokeHalf) return true;
  return false;
}

const top = [0x1f, 0x6f, 0xb2];
const bottom = [0x12, 0x2b, 0x4a];
const rows = [];
for (let y = 0; y < size; y++) {
  const row = Buffer.alloc(1 + size * 4);
  for (let x = 0; x < size; x++) {
    let cover = 0, line = 0;
    for (let sy = 0; sy < samples; sy++) {
      for (let sx = 0; sx < samples; sx++) {
        const px = x + (sx + 0.5) / samples, py = y + (sy + 0.5) / samples;
        if (!insideRoundedSquare(px, py)) continue;
        cover++;
        if (onPulse(px, py)) line++;
      }
    }
    const n = samples * samples;
    const t = y / (size - 1);
    const base = top.map((c, i) => c + (bottom[i] - c) * t);
    const mix = cover ? line / cover : 0;
    const ink = [0x5c, 0xf2, 0xa8];
    const rgb = base.map((c, i) => Math.round(c + (ink[i] - c) * mix));
    row.set([...rgb, Math.round((255 * cover) / n)], 1 + x * 4);
  }
  rows.push(row);
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

function crc32(bytes) {
  let crc = ~0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

const header = Buffer.alloc(13);
header.writeUInt32BE(size, 0);
header.writeUInt32BE(size, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('./icon.png', import.meta.url), png);
console.log(`media/icon.png: ${png.length} bytes`);
