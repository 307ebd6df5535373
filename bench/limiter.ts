// At most N tasks at once, the rest started in the order they were handed in.

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function limiter(concurrency: number): Limiter {
  let running = 0;
  const queued: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= concurrency) await new Promise<void>((resolve) => queued.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      // A queued task inherits the slot, so `running` only drops when none waits.
      const waiter = queued.shift();
      if (waiter) waiter();
      else running--;
    }
  };
}
