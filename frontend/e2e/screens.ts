import { type Locator, type Page, expect } from '@playwright/test';

/**
 * What the accessibility and overflow walks do on every screen they visit: wait until it is
 * settled, and find any text that runs out of its box. An element whose content is wider than the
 * element (scrollWidth > clientWidth) is reported, unless it is a scroll container (overflow-x auto
 * or scroll: the overflow is meant to be scrolled), visually hidden, or drawn by a chart or the
 * map. The page itself must not scroll sideways.
 */

/** Everything on the page that is wider inside than outside, described for the failure message. */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) found.push(`the page scrolls sideways (${root.scrollWidth} > ${root.clientWidth})`);
    const describe = (element: Element) => {
      const id = element.id ? `#${element.id}` : '';
      const classes = [...element.classList]
        .slice(0, 2)
        .map((name) => `.${name}`)
        .join('');
      const testId = element.getAttribute('data-testid');
      return `<${element.tagName.toLowerCase()}${id}${classes}${testId ? ` data-testid=${testId}` : ''}> "${(element.textContent ?? '').trim().slice(0, 60)}"`;
    };
    const scrolls = (element: Element) => ['auto', 'scroll'].includes(getComputedStyle(element).overflowX);
    for (const element of document.body.querySelectorAll<HTMLElement>('*')) {
      if (!(element instanceof HTMLElement) || element.clientWidth === 0) continue;
      // A text field scrolls its own text; the value is not lost.
      if (element.matches('input, textarea, select')) continue;
      // Drawn content (charts, the map) and what is there for screen readers only.
      if (element.closest('svg, canvas, .leaflet-container, [role="img"]')) continue;
      // Visually hidden (for screen readers only): inside a box of a pixel or less.
      let ancestor: HTMLElement | null = element;
      while (ancestor && ancestor.getBoundingClientRect().width > 1) ancestor = ancestor.parentElement;
      if (ancestor) continue;
      const style = getComputedStyle(element);
      if (scrolls(element)) continue;
      // Content that spills into a scroll container (a table's wrapper inside it) is scrolled, not lost.
      if (style.overflowX === 'visible') {
        let parent = element.parentElement;
        while (parent && getComputedStyle(parent).overflowX === 'visible') parent = parent.parentElement;
        if (parent && scrolls(parent)) continue;
      }
      if (style.display === 'inline' || style.visibility === 'hidden') continue;
      // The element sits outside of the viewport (a closed drawer): not seen.
      const box = element.getBoundingClientRect();
      if (box.right <= 0 || box.left >= root.clientWidth) continue;
      if (element.scrollWidth > element.clientWidth + 1) {
        found.push(`${describe(element)}: ${element.scrollWidth} > ${element.clientWidth}`);
      }
    }
    return found;
  });
}

/**
 * Opens `path` as the app's own links do, without loading the page again, when the app is open at
 * another path: the router's history entry and its popstate, so the screen is the route's, drawn
 * by the app already running. Loading the whole app again for each screen cost Chromium about
 * 0.6 s of CPU more per screen (9 screens: 8.8 s against 2.7 s, docs/performance.md), and the walks
 * visit over 150. Returns once a heading the previous screen did not have is shown; the first
 * screen, and one at the same path (other query), are loaded; the screen already shown stays.
 */
export async function visit(page: Page, path: string) {
  const current = page.url().startsWith('http') ? new URL(page.url()) : null;
  if (current && current.href === new URL(path, current).href) return;
  if (!current || current.pathname === new URL(path, current).pathname) {
    await page.goto(path);
    return;
  }
  // The pointer rests where the last click left it, and would hover what the next screen draws
  // there (a table row's grey behind its badges): a screen is scanned as a page load shows it.
  await page.mouse.move(0, 0);
  await page.evaluate((target) => {
    document.querySelectorAll('h1').forEach((heading) => heading.setAttribute('data-left-behind', ''));
    window.history.pushState(null, '', target);
    window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
  }, path);
  await expect(page.locator('h1:not([data-left-behind])').first()).toBeVisible();
}

/** Waits until the screen has its heading and nothing is loading any more. */
export async function settle(page: Page) {
  await expect(page.locator('h1').first()).toBeVisible();
  await expect(page.locator('.mantine-Skeleton-root')).toHaveCount(0);
  await expect(page.locator('.mantine-Loader-root')).toHaveCount(0);
  // Web fonts and late layout (charts sizing themselves) first: the page keeps one size for five
  // frames in a row (a condition, not a fixed wait: a loaded machine takes longer).
  await page.evaluate(() => document.fonts.ready);
  // Transitions over (a dialog fading in: axe would read its colours half-way, a loaded machine
  // draws them longer); endless ones (a live dot's pulse) do not count.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        let last = '';
        let same = 0;
        const tick = () => {
          const size = `${document.documentElement.scrollWidth}x${document.documentElement.scrollHeight}`;
          same = size === last ? same + 1 : 0;
          last = size;
          if (same >= 5) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
}

/** Where an element's text is drawn (not its box: a table cell is as wide as its column). */
export async function textBox(element: Locator): Promise<{ left: number; right: number }> {
  return element.evaluate((root) => {
    const range = document.createRange();
    range.selectNodeContents(root);
    const { left, right } = range.getBoundingClientRect();
    return { left, right };
  });
}

/**
 * The lines of text an element shows, as read on screen (each line's characters in order,
 * white space collapsed): where the text wraps, not only how often.
 */
export async function textLines(element: Locator): Promise<string[]> {
  return element.evaluate((root) => {
    const lines: { top: number; bottom: number; text: string }[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      let line: (typeof lines)[number] | undefined;
      for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = [...range.getClientRects()].find((box) => box.height > 0);
        // A collapsed space (at the end of a line) has no box of its own: it joins the line before.
        if (!rect) {
          if (line) line.text += text[i];
          continue;
        }
        line = lines.find((seen) => rect.top < seen.bottom - 1 && rect.bottom > seen.top + 1);
        if (!line) {
          line = { top: rect.top, bottom: rect.bottom, text: '' };
          lines.push(line);
        }
        line.text += text[i];
      }
    }
    return lines.sort((a, b) => a.top - b.top).map((line) => line.text.replace(/\s+/g, ' ').trim());
  });
}
