// Waiting on a promise for at most a while: whether it settled in time, with the
// timer cleared either way so a wait that ended early keeps no timer alive.

/** True when `work` settled within `ms`; false when the time ran out first. */
export async function finishedWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
