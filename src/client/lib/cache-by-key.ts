/** The value cached under `key`, made once: the tab-long caches (Intl formatters, media query lists) share it. */
export function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}
