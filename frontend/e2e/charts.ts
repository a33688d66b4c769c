import { type Locator, expect } from '@playwright/test';

/** What a bar chart shows: for each category (in order), the value of each series (by legend name). */
export type BarValues = Record<string, Record<string, number>>;

type Drawn = {
  /** The category axis' line, from its first point to its second. */
  axis: { x1: number; y1: number; x2: number; y2: number } | null;
  texts: { text: string; anchor: string; x: number; y: number }[];
  legend: { name: string; color: string }[];
  /** Rectangles "M x y l w 0 l 0 h l -w 0 Z", in place (no transform). */
  rects: { x: number; y: number; w: number; h: number; color: string }[];
};

const NUMBER = /^-?[\d.,\u202f\u00a0]+$/;

/**
 * A tick as the app writes it in either language (charts follow the interface language): `1,500.5`
 * in English, `1 500,5` in French (a narrow no-break space groups the thousands).
 */
function tickValue(text: string): number {
  const digits = text.replace(/[\u202f\u00a0]/g, '');
  if (digits.includes('.')) return Number(digits.replace(/,/g, ''));
  return Number(/,\d{3}$/.test(digits) && !text.includes('\u202f') ? digits.replace(/,/g, '') : digits.replace(',', '.'));
}

/**
 * Expects the bar chart to show `expected` (see `readBarChart`). ECharts animates bars as they
 * grow, and a busy machine can hold a frame still for longer than any "the drawing stopped
 * moving" pause: the chart is read again until it shows the values or the expect timeout ends
 * (the failure then says what it last showed).
 */
export async function expectBarChart(chart: Locator, categories: string[], expected: BarValues): Promise<void> {
  await expect(chart.locator('svg').first()).toBeVisible();
  // A chart still being drawn (no axis yet) is read again too: its error becomes the value shown.
  const read = () => readBarChart(chart, categories).catch((error: unknown) => String(error));
  await expect.poll(read, { message: 'the bar chart shows the expected values' }).toEqual(expected);
}

/**
 * Reads an ECharts bar chart drawn as SVG (the app's renderer) the way a reader does: the value
 * axis gives the scale, each bar's length its value, its place on the category axis its category
 * (labels that ECharts hides for lack of room are placed by their band), its colour the series
 * named in the legend (`value` when there is no legend). `categories` are the expected category
 * labels in order, left to right, or top to bottom when the bars lie down; every visible label
 * must be one of them, at its place.
 */
async function readBarChart(chart: Locator, categories: string[]): Promise<BarValues> {
  const { axis, texts, legend, rects } = await draw(chart.locator('svg').first());
  if (!axis) throw new Error('readBarChart: no category axis line');
  // Bars standing up have their categories along a horizontal axis; lying down, along a vertical one.
  const lying = axis.x1 === axis.x2;
  const numeric = (text: { text: string }) => NUMBER.test(text.text);
  // Value-axis ticks: right-aligned left of an upright chart, centred under a lying one.
  const ticks = texts
    .filter((text) => numeric(text) && text.anchor === (lying ? 'middle' : 'end'))
    .map((text) => ({ value: tickValue(text.text), at: lying ? text.x : text.y }))
    .sort((a, b) => a.value - b.value);
  const labels = texts
    .filter((text) => !numeric(text) && text.anchor === (lying ? 'end' : 'middle'))
    .map((text) => ({ text: text.text, at: lying ? text.y : text.x }));
  if (ticks.length < 2) throw new Error('readBarChart: fewer than two value-axis ticks');
  const [first, last] = [ticks[0], ticks[ticks.length - 1]];
  const perUnit = Math.abs(last.at - first.at) / (last.value - first.value);
  const [start, end] = lying ? [Math.min(axis.y1, axis.y2), Math.max(axis.y1, axis.y2)] : [Math.min(axis.x1, axis.x2), Math.max(axis.x1, axis.x2)];
  const band = (end - start) / categories.length;
  const categoryAt = (at: number) => Math.floor((at - start) / band);

  for (const label of labels) {
    const index = categoryAt(label.at);
    if (categories[index] !== label.text) throw new Error(`readBarChart: the label "${label.text}" stands where "${categories[index]}" was expected`);
  }
  const seriesName = (color: string) => legend.find((entry) => entry.color === color)?.name ?? (legend.length === 0 ? 'value' : `?${color}`);
  const values: BarValues = Object.fromEntries(categories.map((category) => [category, {}]));
  for (const rect of rects) {
    // Its thickness across the category axis, its length along the value axis.
    const [middle, thickness, length] = lying ? [rect.y + rect.h / 2, rect.h, rect.w] : [rect.x + rect.w / 2, rect.w, -rect.h];
    if (thickness <= 0) continue;
    const category = categories[categoryAt(middle)];
    if (category === undefined) throw new Error(`readBarChart: a bar at ${middle} is outside the ${categories.length} categories`);
    const name = seriesName(rect.color);
    values[category][name] = (values[category][name] ?? 0) + Math.round((length / perUnit) * 100) / 100;
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
    const textElements = [...root.querySelectorAll('text')];
    const texts = textElements
      .map((text) => ({ text: text.textContent ?? '', anchor: text.getAttribute('text-anchor') ?? '', place: translate(text) }))
      .filter((text) => text.place !== null)
      .map(({ text, anchor, place }) => ({ text, anchor, x: place!.x, y: place!.y }));
    const paths = [...root.querySelectorAll('path')];
    // The legend: a coloured icon and its name, drawn at the same place.
    const legend = textElements
      .filter((text) => text.getAttribute('text-anchor') === 'start')
      .map((text) => {
        const icon = paths.find((path) => path.getAttribute('transform') === text.getAttribute('transform') && path.getAttribute('d')?.includes('A'));
        return { name: text.textContent ?? '', color: icon?.getAttribute('fill') ?? '' };
      });
    const line = paths.find(
      (path) => path.getAttribute('stroke-linecap') === 'round' && new RegExp(`^M${number} ${number}L${number} ${number}$`).test(path.getAttribute('d') ?? ''),
    );
    const lineMatch = line ? new RegExp(`^M${number} ${number}L${number} ${number}$`).exec(line.getAttribute('d')!) : null;
    const axis = lineMatch ? { x1: Number(lineMatch[1]), y1: Number(lineMatch[2]), x2: Number(lineMatch[3]), y2: Number(lineMatch[4]) } : null;
    const rect = new RegExp(`^M${number} ${number}l${number} 0l0 ${number}l-?[\\d.]+ 0Z$`);
    const rects = paths
      .filter((path) => !path.hasAttribute('transform') && path.getAttribute('fill') !== 'none')
      .map((path) => ({ match: rect.exec(path.getAttribute('d') ?? ''), color: path.getAttribute('fill') ?? '' }))
      .filter((entry): entry is { match: RegExpExecArray; color: string } => entry.match !== null)
      .map(({ match, color }) => ({ x: Number(match[1]), y: Number(match[2]), w: Number(match[3]), h: Number(match[4]), color }));
    return { axis, texts, legend, rects };
  });
}
