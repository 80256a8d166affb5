// The request-level courtesy gate (docs/OPERATIONS.md "Courtesy"): every HTTP request of a probe, redirect hops
// included, holds its endpoint's gate (one request at a time per endpoint URL, so two registry names
// listing the same URL never overlap) and then one of its host's slots (at most `limit(host)` requests
// at a time per URL host, port included). The schedule (schedule.ts) already keeps a host's probes
// within its limit; this gate also holds the line for hosts a redirect leads to, which the schedule
// never sees (a host outside the roster gets 1). FIFO per key; idle keys are forgotten.
export class HostGate {
  readonly #hosts = new Map<string, Slots>();
  readonly #endpoints = new Map<string, Slots>();

  /** `limit(host)`: requests at a time on that host (default: one). */
  constructor(readonly limit: (host: string) => number = () => 1) {}

  /** Run fn holding the gate of `host` (and of `endpoint`, when given: a URL without its fragment). */
  async run<T>(host: string, fn: () => Promise<T>, endpoint?: string): Promise<T> {
    const releaseEndpoint = endpoint === undefined ? null : await acquire(this.#endpoints, endpoint, 1);
    try {
      const releaseHost = await acquire(this.#hosts, host, Math.max(1, this.limit(host)));
      try {
        return await fn();
      } finally {
        releaseHost();
      }
    } finally {
      releaseEndpoint?.();
    }
  }
}

interface Slots {
  busy: number;
  waiting: Array<() => void>;
}

function acquire(map: Map<string, Slots>, key: string, limit: number): Promise<() => void> {
  let s = map.get(key);
  if (!s) map.set(key, (s = { busy: 0, waiting: [] }));
  const slots = s;
  const release = () => {
    const next = slots.waiting.shift();
    if (next) next(); // the slot passes on, busy unchanged
    else if (--slots.busy === 0) map.delete(key);
  };
  if (slots.busy < limit) {
    slots.busy++;
    return Promise.resolve(release);
  }
  return new Promise((resolve) => slots.waiting.push(() => resolve(release)));
}
