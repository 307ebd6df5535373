// A small dependency-free SVG line chart: axes with round ticks, one polyline per
// series (optionally dashed, optionally with a dot per point), a legend under the
// plot where no line can hide it. Charts are laid out as panels of one SVG document.

const PANEL_WIDTH_PX = 480;
const PANEL_HEIGHT_PX = 320;
const MARGIN = { left: 58, right: 16, top: 34, bottom: 44 };
const LEGEND_LINE_PX = 16;
const LEGEND_ITEM_WIDTH_PX = 140;
/** Between the x axis label and the legend. */
const LEGEND_GAP_PX = 10;
const LEGEND_ITEMS_PER_LINE = 3;
const TARGET_TICKS = 5;

export interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  /** Draw a dot on each point (few points, e.g. a sweep). */
  dots?: boolean;
  points: Array<[number, number]>;
}

export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** Evenly spaced categories instead of a numeric x axis (e.g. --workers 0, 1, 2, 4, 8). */
  xCategories?: number[];
  /** Fixed top of the y axis (e.g. 1 for a CDF); otherwise from the data. */
  yMax?: number;
}

/** An SVG document of the charts in a grid of `columns`. */
export function renderPanels(charts: Chart[], columns: number): string {
  const cols = Math.min(columns, Math.max(charts.length, 1));
  const rows = Math.ceil(charts.length / cols);
  const legendLines = Math.max(...charts.map((chart) => Math.ceil(chart.series.length / LEGEND_ITEMS_PER_LINE)), 0);
  const panelHeight = PANEL_HEIGHT_PX + LEGEND_GAP_PX + legendLines * LEGEND_LINE_PX;
  const width = cols * PANEL_WIDTH_PX;
  const height = rows * panelHeight;
  const panels = charts.map((chart, i) => renderChart(chart, (i % cols) * PANEL_WIDTH_PX, Math.floor(i / cols) * panelHeight));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...panels,
    '</svg>',
    '',
  ].join('\n');
}

function renderChart(chart: Chart, offsetX: number, offsetY: number): string {
  const plotWidth = PANEL_WIDTH_PX - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT_PX - MARGIN.top - MARGIN.bottom;
  const allPoints = chart.series.flatMap((s) => s.points);
  const xTicks = chart.xCategories ?? niceTicks(Math.max(...allPoints.map(([x]) => x), 0));
  const yTicks = niceTicks(chart.yMax ?? Math.max(...allPoints.map(([, y]) => y), 0));
  const xMax = xTicks[xTicks.length - 1];
  const yMax = yTicks[yTicks.length - 1];
  const xOf = (x: number): number => {
    if (chart.xCategories) {
      const index = chart.xCategories.indexOf(x);
      return MARGIN.left + (chart.xCategories.length > 1 ? (index / (chart.xCategories.length - 1)) * plotWidth : plotWidth / 2);
    }
    return MARGIN.left + (x / xMax) * plotWidth;
  };
  const yOf = (y: number): number => MARGIN.top + plotHeight - (y / yMax) * plotHeight;
  const parts = [
    `<g transform="translate(${offsetX},${offsetY})">`,
    `<text x="${PANEL_WIDTH_PX / 2}" y="18" text-anchor="middle" font-size="12" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  for (const tick of yTicks) {
    const y = round(yOf(tick));
    parts.push(`<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + plotWidth}" y2="${y}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end">${formatTick(tick)}</text>`);
  }
  for (const tick of xTicks) {
    const x = round(xOf(tick));
    parts.push(`<line x1="${x}" y1="${MARGIN.top + plotHeight}" x2="${x}" y2="${MARGIN.top + plotHeight + 4}" stroke="black"/>`);
    parts.push(`<text x="${x}" y="${MARGIN.top + plotHeight + 16}" text-anchor="middle">${formatTick(tick)}</text>`);
  }
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="black"/>`,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${PANEL_HEIGHT_PX - 8}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    `<text x="14" y="${MARGIN.top + plotHeight / 2}" transform="rotate(-90 14 ${MARGIN.top + plotHeight / 2})" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
  );
  const dashOf = (series: Series) => (series.dashed ? ' stroke-dasharray="6 4"' : '');
  for (const series of chart.series) {
    const points = series.points.map(([x, y]) => [round(xOf(x)), round(yOf(y))]);
    parts.push(
      `<polyline fill="none" stroke="${series.color}" stroke-width="2"${dashOf(series)} points="${points.map((p) => p.join(',')).join(' ')}"><title>${escapeXml(series.label)}</title></polyline>`,
    );
    if (series.dots) for (const [cx, cy] of points) parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${series.color}"/>`);
  }
  chart.series.forEach((series, i) => {
    const legendX = MARGIN.left + (i % LEGEND_ITEMS_PER_LINE) * LEGEND_ITEM_WIDTH_PX;
    const legendY = PANEL_HEIGHT_PX + LEGEND_GAP_PX + Math.floor(i / LEGEND_ITEMS_PER_LINE) * LEGEND_LINE_PX;
    parts.push(`<line x1="${legendX}" y1="${legendY - 4}" x2="${legendX + 18}" y2="${legendY - 4}" stroke="${series.color}" stroke-width="2"${dashOf(series)}/>`);
    parts.push(`<text x="${legendX + 22}" y="${legendY}">${escapeXml(series.label)}</text>`);
  });
  parts.push('</g>');
  return parts.join('\n');
}

/** 0 and round steps (1, 2 or 5 × 10^k) up to at least `max`. */
function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / TARGET_TICKS;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= rough)!;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step * 1e-9; tick += step) ticks.push(round(tick));
  if (ticks[ticks.length - 1] < max) ticks.push(round(ticks[ticks.length - 1] + step));
  return ticks;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(Math.min(3, Math.max(1, -Math.floor(Math.log10(Math.abs(value) || 1)) + 1)));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
