// A list's filters as its address keeps them and as its route takes them (the templates list, an organization
// list…): only the filters chosen, the search trimmed; each page's `filtersOf` reads them back from the address.

/** The filters chosen (no empty ones), under the same names: what a list's route takes. */
export function chosenFilters<T extends Record<string, string>>(
  filters: T,
): { [K in keyof T]?: Exclude<T[K], ''> } {
  return Object.fromEntries(
    Object.entries(filters).flatMap(([name, value]) => {
      const chosen = name === 'search' ? value.trim() : value;
      return chosen ? [[name, chosen]] : [];
    }),
  ) as { [K in keyof T]?: Exclude<T[K], ''> };
}

/** The list's address with the filters chosen and the others removed. */
export function addressWithFilters(current: URL, filters: Record<string, string>): URL {
  const url = new URL(current);
  const chosen = chosenFilters(filters);
  for (const name of Object.keys(filters)) {
    const value = chosen[name];
    if (value) url.searchParams.set(name, value);
    else url.searchParams.delete(name);
  }
  return url;
}
