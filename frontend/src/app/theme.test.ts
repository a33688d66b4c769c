import { DEFAULT_THEME, mergeMantineTheme } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { contrastRatio, cssVariablesResolver, theme } from './theme';

const full = mergeMantineTheme(DEFAULT_THEME, theme);
const { light } = cssVariablesResolver(full);
const { white } = full;
const gray = full.colors.gray;

describe('theme colours reach WCAG AA (4.5:1)', () => {
  it.each(Object.keys(full.colors))('%s: white on filled, text on white and gray 0, light-variant text on shades 1 and 2', (name) => {
    const shades = full.colors[name];
    expect(contrastRatio(white, light[`--mantine-color-${name}-filled`])).toBeGreaterThanOrEqual(4.5);
    for (const background of [white, gray[0]]) expect(contrastRatio(light[`--mantine-color-${name}-text`], background)).toBeGreaterThanOrEqual(4.5);
    for (const background of [shades[1], shades[2]])
      expect(contrastRatio(light[`--mantine-color-${name}-light-color`], background)).toBeGreaterThanOrEqual(4.5);
  });

  it('dimmed text, links and errors', () => {
    for (const background of [white, gray[0], gray[1]]) expect(contrastRatio(light['--mantine-color-dimmed'], background)).toBeGreaterThanOrEqual(4.5);
    for (const background of [white, gray[0]]) {
      expect(contrastRatio(light['--mantine-color-anchor'], background)).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(light['--mantine-color-error'], background)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('keeps the shades that already pass', () => {
    expect(light['--mantine-color-violet-filled']).toBe(full.colors.violet[6]);
    expect(light['--mantine-color-blue-filled']).toBe(full.colors.blue[8]);
    expect(light['--mantine-color-teal-filled']).toBe(full.colors.teal[9]);
    expect(light['--mantine-color-gray-light-color']).toBe(full.colors.gray[9]);
  });
});
