/**
 * `run` at once, then at most once every `ms`: the calls in between are gathered into one at
 * the end of the wait, so the last change is never missed. `cancel` drops a pending run.
 */
export function throttle(run: () => void, ms: number): { call: () => void; cancel: () => void } {
  let waiting: ReturnType<typeof setTimeout> | undefined;
  let pending = false;
  const wait = () => {
    waiting = setTimeout(() => {
      waiting = undefined;
      if (!pending) return;
      pending = false;
      run();
      wait();
    }, ms);
  };
  return {
    call: () => {
      if (waiting !== undefined) {
        pending = true;
        return;
      }
      run();
      wait();
    },
    cancel: () => {
      clearTimeout(waiting);
      waiting = undefined;
      pending = false;
    },
  };
}
