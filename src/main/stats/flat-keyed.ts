// The "key value" line format of the kernel's counter files: /proc/vmstat and the
// cgroup files cpu.stat and memory.stat.

/** Every key whose value is a non-negative integer, by key. */
export function parseFlatKeyed(text: string): Map<string, number> {
  const valueByKey = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.split(' ');
    if (key && value !== undefined && /^\d+$/.test(value)) valueByKey.set(key, Number(value));
  }
  return valueByKey;
}
