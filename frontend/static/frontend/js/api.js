// The REST API from the browser: JSON in and out, the session cookie, Django's CSRF token,
// and errors as thrown ApiError objects carrying the server's {code, message}.

export class ApiError extends Error {
  constructor(status, code, message, extra) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra || {};
  }
}

export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function api(path, { method = "GET", body, headers = {}, params } = {}) {
  let url = path.startsWith("/") ? path : `/api/${path}`;
  if (params) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined && value !== null && value !== "") query.set(key, value);
    }
    const text = query.toString();
    if (text) url += (url.includes("?") ? "&" : "?") + text;
  }
  // The API answers in the page's language (it puts Accept-Language before the reader's choice).
  const language = document.documentElement.lang;
  const init = {
    method, credentials: "same-origin",
    headers: { Accept: "application/json", ...(language ? { "Accept-Language": language } : {}), ...headers },
  };
  if (method !== "GET" && method !== "HEAD") {
    init.headers["X-CSRFToken"] = csrfToken();
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError(0, "network", "The server cannot be reached. Check your connection.");
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.code || `http_${response.status}`,
      error.message || response.statusText || "The request failed.", error.extra);
  }
  return data;
}

export const get = (path, params) => api(path, { params });
/** Every row of a paged list, read a page at a time (the server's pages hold at most 100 rows). */
export async function getAll(path, params = {}, { most = Infinity } = {}) {
  const rows = [];
  for (;;) {
    const page = await get(path, { ...params, limit: 100, offset: rows.length });
    rows.push(...page.results);
    if (!page.next || !page.results.length || rows.length >= most) return rows.slice(0, most);
  }
}
export const post = (path, body) => api(path, { method: "POST", body: body === undefined ? {} : body });

/** Reads a JSON blob that a template put on the page with Django's json_script filter. */
export function pageData(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}
