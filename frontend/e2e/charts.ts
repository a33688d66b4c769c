import { type Locator, expect } from '@playwright/test';

/** What a bar chart shows: for each category (in order), the value of each series (by legend name). */
export type BarValues = Record<string, Record<string, number>>;

type Drawn = {
  axis: { left: number; right: number; bottom: number } | null;
  ticks: { value: number; y: number }[];
  labels: { text: string; x: number }[];
  legend: { name: string; color: string }[];
  bars: { x: number; width: number; height: number; color: string }[];
};

/**
 * Reads an ECharts bar chart drawn as SVG (the app's renderer) the way a reader does: the value
 * axis gives the scale, each bar's height its value, its place on the category axis its category
 * (labels that ECharts hides for lack of room are placed by their band), its colour the series
 * named in the legend (`value` when there is no legend). `categories` are the expected category
 * labels in order; every visible label must be one of them, at its place.
 */
export async function readBarChart(chart: Locator, categories: string[]): Promise<BarValues> {
  const svg = chart.locator('svg').first();
  await expect(svg).toBeVisible();
  // ECharts animates bars as they grow: read once the drawing is still.
  let drawn = await draw(svg);
  for (let i = 0; i < 20; i++) {
    await chart.page().waitForTimeout(150);
    const next = await draw(svg);
    if (JSON.stringify(next) === JSON.stringify(drawn)) break;
    drawn = next;
  }
  const { axis, ticks, labels, legend, bars } = drawn;
  if (!axis) throw new Error('readBarChart: no category axis line');
  if (ticks.length < 2) throw new Error('readBarChart: fewer than two value-axis ticks');
  const [first, last] = [ticks[0], ticks[ticks.length - 1]];
  const perUnit = (first.y - last.y) / (last.value - first.value);
  const band = (axis.right - axis.left) / categories.length;
  const categoryAt = (x: number) => Math.floor((x - axis.left) / band);

  for (const label of labels) {
    const index = categoryAt(label.x);
    if (categories[index] !== label.text) throw new Error(`readBarChart: the label "${label.text}" stands where "${categories[index]}" was expected`);
  }
  const seriesName = (color: string) => legend.find((entry) => entry.color === color)?.name ?? (legend.length === 0 ? 'value' : `?${color}`);
  const values: BarValues = Object.fromEntries(categories.map((category) => [category, {}]));
  for (const bar of bars) {
    const category = categories[categoryAt(bar.x + bar.width / 2)];
    if (category === undefined) throw new Error(`readBarChart: a bar at x=${bar.x} is outside the ${categories.length} categories`);
    const name = seriesName(bar.color);
    values[category][name] = (values[category][name] ?? 0) + Math.round((bar.height / perUnit) * 100) / 100;
  }
  return values;
}

function draw(svg: Locator): Promise<Drawn> {
  return svg.evaluate((root) => {
    const number = String.raw`(-?\d+(?:\.\d+)?(?:e-?\d+)?)`;
    const translate = (element: Element) => {
      const match = new RegExp(String.raw`translate\(${number}[ ,]+${number}\)`).exec(element.getAttribute('transform') ?? '');
      return match ? { x: Number(match[1]), y: Number(match[2]) } : null;
    };
    const texts = [...root.querySelectorAll('text')];
    const ticks = texts
      .filter((text) => text.getAttribute('text-anchor') === 'end' && /^-?[\d.,]+$/.test(text.textContent ?? ''))
      .map((text) => ({ value: Number((text.textContent ?? '').replace(/,/g, '')), y: translate(text)!.y }))
      .sort((a, b) => a.value - b.value);
    const labels = texts
      .filter((text) => text.getAttribute('text-anchor') === 'middle')
      .map((text) => ({ text: text.textContent ?? '', x: translate(text)!.x }));
    const paths = [...root.querySelectorAll('path')];
    // The legend: a coloured icon and its name, drawn at the same place.
    const legend = texts
      .filter((text) => text.getAttribute('text-anchor') === 'start')
      .map((text) => {
        const icon = paths.find((path) => path.getAttribute('transform') === text.getAttribute('transform') && path.getAttribute('d')?.includes('A'));
        return { name: text.textContent ?? '', color: icon?.getAttribute('fill') ?? '' };
      });
    const line = paths.find((path) => path.getAttribute('stroke-linecap') === 'round' && /^M[\d.]+ [\d.]+L[\d.]+ [\d.]+$/.test(path.getAttribute('d') ?? ''));
    const lineMatch = line ? new RegExp(`^M${number} ${number}L${number} ${number}$`).exec(line.getAttribute('d')!) : null;
    const axis = lineMatch ? { left: Number(lineMatch[1]), right: Number(lineMatch[3]), bottom: Number(lineMatch[2]) } : null;
    // Bars: rectangles drawn up from the axis, "M x y l w 0 l 0 -h l -w 0 Z", in place (no transform).
    const bar = new RegExp(`^M${number} ${number}l${number} 0l0 ${number}l-?[\\d.]+ 0Z$`);
    const bars = paths
      .filter((path) => !path.hasAttribute('transform') && path.getAttribute('fill') !== 'none')
      .map((path) => ({ match: bar.exec(path.getAttribute('d') ?? ''), color: path.getAttribute('fill') ?? '' }))
      .filter((entry): entry is { match: RegExpExecArray; color: string } => entry.match !== null)
      .map(({ match, color }) => ({ x: Number(match[1]), width: Number(match[3]), height: -Number(match[4]), color }))
      .filter((entry) => entry.width > 0);
    return { axis, ticks, labels, legend, bars };
  });
}
