/**
 * Navigation outside React (the API client's 401 handling). The app registers the router's
 * navigate; until then (or in a bare script) a full page load is used.
 */
export type NavigateOutside = (to: string, state?: unknown) => void;

const fullPageLoad: NavigateOutside = (to) => window.location.assign(to);
let navigator: NavigateOutside = fullPageLoad;

export function setNavigator(navigate: NavigateOutside | null): void {
  navigator = navigate ?? fullPageLoad;
}

export function navigateOutside(to: string, state?: unknown): void {
  navigator(to, state);
}
