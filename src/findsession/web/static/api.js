// The page's reads: same-origin GETs (the cookie carries the token), JSON back.

export class ApiError extends Error {}

export async function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) query.set(key, value);
  }
  const url = query.toString() ? `${path}?${query}` : path;
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  let data = null;
  try {
    data = await response.json();
  } catch {
    throw new ApiError(`the page server answered ${response.status}`);
  }
  if (!response.ok) throw new ApiError(data.error || `error ${response.status}`);
  return data;
}
