// The page's reads: same-origin GETs (the cookie carries the session), JSON back. Paths
// are relative to the page's own (random) folder: "/api/x" is asked as "api/x".

export class ApiError extends Error {}

export async function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) query.set(key, value);
  }
  const relative = path.replace(/^\/+/, "");
  const url = query.toString() ? `${relative}?${query}` : relative;
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (response.status === 403) {
    throw new ApiError("this page's session is over: run `findsession ui` for a new link");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    throw new ApiError(`the page server answered ${response.status}`);
  }
  if (!response.ok) throw new ApiError(data.error || `error ${response.status}`);
  return data;
}
