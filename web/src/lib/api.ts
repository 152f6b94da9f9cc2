// The one place where the app talks to the server (spec, product-and-account section 7) and turns failures into
// errors (section 8). Every call goes through apiRequest or the default query function below.

export const TOKEN_KEY = "token";

export function getToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/** The server's JSON error shape (api/openapi.yaml, components.schemas.Error). */
export interface ErrorBody {
  error: string;
  code: string;
  requestId: string;
  field?: string;
  fields?: Record<string, string>;
  retryAfter?: number;
  /** A short heading for the message, where a screen shows one (file checks: 'Invalid File Type'). */
  title?: string;
}

/**
 * A non-successful response. Its message is exactly "<status>: <body text>" (or the status text when the body is
 * empty), as the spec requires; `body` holds the parsed JSON error when the server sent one, so screens can show
 * the server's own sentence instead of raw JSON.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody | null;

  constructor(status: number, text: string) {
    super(`${status}: ${text}`);
    this.name = "ApiError";
    this.status = status;
    this.body = parseErrorBody(text);
  }
}

function parseErrorBody(text: string): ErrorBody | null {
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === "object" && typeof (v as ErrorBody).error === "string") return v as ErrorBody;
  } catch {
    // Not JSON (a proxy's HTML page, say): the message keeps the raw text.
  }
  return null;
}

/** The sentence to show a person for a failed call: the server's message when there is one, else the fallback. */
export function errorMessage(err: unknown, fallback: string): string {
  if (err instanceof ApiError) return err.body?.error || fallback;
  if (err instanceof TypeError) return "Cannot reach the server. Check your connection and try again.";
  return fallback;
}

type UnauthorizedHandler = () => void;
let onUnauthorized: UnauthorizedHandler | null = null;

/**
 * Registers what happens when a call made with a stored token answers 401 (the session expired or was revoked
 * elsewhere): the auth provider signs the visitor out.
 */
export function setUnauthorizedHandler(handler: UnauthorizedHandler | null): void {
  onUnauthorized = handler;
}

function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function throwIfResNotOk(res: Response, hadToken: boolean): Promise<void> {
  if (res.ok) return;
  const text = (await res.text()) || res.statusText;
  if (res.status === 401 && hadToken && onUnauthorized) onUnauthorized();
  throw new ApiError(res.status, text);
}

/**
 * Sends one request: the bearer header when a token is stored, a JSON body with a JSON content type when a payload
 * is given (FormData is sent as multipart, the browser setting the boundary), and always credentials. Throws
 * ApiError on any non-successful status.
 */
export async function apiRequest(method: string, url: string, data?: unknown): Promise<Response> {
  const headers: Record<string, string> = authHeaders();
  const isForm = data instanceof FormData;
  if (data !== undefined && !isForm) headers["Content-Type"] = "application/json";
  const hadToken = "Authorization" in headers;
  const res = await fetch(url, {
    method,
    headers,
    body: isForm ? data : data !== undefined ? JSON.stringify(data) : undefined,
    credentials: "include",
  });
  await throwIfResNotOk(res, hadToken);
  return res;
}

/** Sends a request and reads the JSON answer. */
export async function apiJson<T>(method: string, url: string, data?: unknown): Promise<T> {
  const res = await apiRequest(method, url, data);
  return (await res.json()) as T;
}

export type UnauthorizedBehavior = "returnNull" | "throw";

/**
 * The default read: a GET whose path is the query key parts joined with slashes. With on401 "returnNull" a 401
 * reads as an empty result instead of an error.
 */
export function getQueryFn<T>({ on401 }: { on401: UnauthorizedBehavior }) {
  return async ({ queryKey }: { queryKey: readonly unknown[] }): Promise<T | null> => {
    const headers = authHeaders();
    const res = await fetch(queryKey.join("/"), { headers, credentials: "include" });
    if (on401 === "returnNull" && res.status === 401) return null;
    await throwIfResNotOk(res, "Authorization" in headers);
    return (await res.json()) as T;
  };
}
