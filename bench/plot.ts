// A dependency-free SVG plot of the bench: p99 start latency and time to all
// Running, against --workers, one line per pod count.
import type { ScenarioResult } from './scenario.js';

const WIDTH = 720;
const HEIGHT = 360;
const MARGIN = 50;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

export function renderPlot(results: ScenarioResult[]): string {
  const workerValues = [...new Set(results.map((r) => r.workers))].sort((a, b) => a - b);
  const podCounts = [...new Set(results.map((r) => r.pods))].sort((a, b) => a - b);
  const maxMs = Math.max(...results.map((r) => r.allRunningMs), 1);
  const x = (workers: number) => MARGIN + (workerValues.indexOf(workers) / Math.max(workerValues.length - 1, 1)) * (WIDTH - 2 * MARGIN);
  const y = (ms: number) => HEIGHT - MARGIN - (ms / maxMs) * (HEIGHT - 2 * MARGIN);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle">shardlet density: time to all Running (solid) and p99 start latency (dashed)</text>`,
    `<line x1="${MARGIN}" y1="${HEIGHT - MARGIN}" x2="${WIDTH - MARGIN}" y2="${HEIGHT - MARGIN}" stroke="black"/>`,
    `<line x1="${MARGIN}" y1="${MARGIN}" x2="${MARGIN}" y2="${HEIGHT - MARGIN}" stroke="black"/>`,
    `<text x="${WIDTH / 2}" y="${HEIGHT - 12}" text-anchor="middle">--workers</text>`,
    `<text x="14" y="${HEIGHT / 2}" transform="rotate(-90 14 ${HEIGHT / 2})" text-anchor="middle">ms (max ${Math.round(maxMs)})</text>`,
  ];
  for (const workers of workerValues) {
    parts.push(`<text x="${x(workers)}" y="${HEIGHT - MARGIN + 16}" text-anchor="middle">${workers}</text>`);
  }
  podCounts.forEach((pods, i) => {
    const series = results.filter((r) => r.pods === pods).sort((a, b) => a.workers - b.workers);
    const color = COLORS[i % COLORS.length];
    const line = (pick: (r: ScenarioResult) => number, dash: string) =>
      `<polyline fill="none" stroke="${color}" stroke-width="2" ${dash} points="${series.map((r) => `${x(r.workers)},${y(pick(r))}`).join(' ')}"/>`;
    parts.push(line((r) => r.allRunningMs, ''), line((r) => r.p99Ms, 'stroke-dasharray="6 4"'));
    parts.push(`<text x="${WIDTH - MARGIN - 80}" y="${MARGIN + 16 * i}" fill="${color}">${pods} pods</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
