import { type CSSVariablesResolver, type MantineColorsTuple, type MantineThemeOverride, createTheme, darken, luminance } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  // `md` is the sidebar breakpoint: 64em = 1024 px (SPEC §9).
  breakpoints: { xs: '36em', sm: '48em', md: '64em', lg: '75em', xl: '88em' },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
});

/**
 * The name of every dialog's and toast's close button, and of every field's clear button (icons
 * alone, unnamed by Mantine: axe's critical "button-name"), in the interface language: laid over
 * the theme by the frame that renders them (MantineThemeProvider), so no screen needs its own.
 */
export function closeButtonLabels(close: string, clear?: string): MantineThemeOverride {
  const closeButtonProps = { 'aria-label': close };
  return {
    components: {
      Modal: { defaultProps: { closeButtonProps } },
      Notification: { defaultProps: { closeButtonProps } },
      ...(clear ? { InputClearButton: { defaultProps: { 'aria-label': clear } } } : {}),
    },
  };
}

/** WCAG 2 AA for normal text (1.4.3). */
const MIN_CONTRAST = 4.5;

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** `color`, darkened in small steps until it reads on every one of `backgrounds`. */
export function readableOn(color: string, backgrounds: string[]): string {
  let result = color;
  for (let step = 0; step < 40 && backgrounds.some((background) => contrastRatio(result, background) < MIN_CONTRAST); step++) {
    result = darken(result, 0.04);
  }
  return result;
}

/**
 * Mantine's default palette fails WCAG contrast in several places: white on the filled shade 6
 * (blue 3.6:1, green 2.4:1), shade 9 text on the light shade 1 (orange 3.6:1, teal 4.3:1) and the
 * dimmed gray 6 (3.3:1 on white, 3.2:1 on gray 0). These variables keep each colour's look but
 * pick, or darken to, the shade that reaches 4.5:1 where it is used:
 * - filled backgrounds (buttons, theme icons): the first shade from 6 that white text reads on;
 * - coloured text, links and outlines: that shade, readable on white and on the gray 0 surfaces;
 * - light variants (badges, alerts, light buttons): shade 9 text readable on shades 1 and 2 (hover);
 * - dimmed text and placeholders: gray 6 darkened until it reads on white, gray 0 and gray 1.
 */
export const cssVariablesResolver: CSSVariablesResolver = (current) => {
  const { white } = current;
  const surfaces = [white, current.colors.gray[0]];
  const light: Record<string, string> = {};

  for (const [name, shades] of Object.entries(current.colors) as [string, MantineColorsTuple][]) {
    const filled = shades.slice(6).find((shade) => contrastRatio(white, shade) >= MIN_CONTRAST) ?? readableOn(shades[9], [white]);
    const text = readableOn(filled, surfaces);
    light[`--mantine-color-${name}-filled`] = filled;
    light[`--mantine-color-${name}-filled-hover`] = darken(filled, 0.1);
    light[`--mantine-color-${name}-text`] = text;
    light[`--mantine-color-${name}-outline`] = text;
    light[`--mantine-color-${name}-light-color`] = readableOn(shades[9], [shades[1], shades[2]]);
  }

  const primaryText = light[`--mantine-color-${current.primaryColor}-text`];
  const dimmed = readableOn(current.colors.gray[6], [...surfaces, current.colors.gray[1]]);
  Object.assign(light, {
    '--mantine-color-anchor': primaryText,
    '--mantine-color-dimmed': dimmed,
    '--mantine-color-placeholder': dimmed,
    '--mantine-color-error': light['--mantine-color-red-text'],
    '--mantine-color-success': light['--mantine-color-teal-text'],
  });

  return { variables: {}, light, dark: {} };
};
