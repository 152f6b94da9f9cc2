// Starts the real binary (bin/valuator, built by `make build`) on a free loopback port with a fresh SQLite
// database in development mode, so the demo market, the demo account and its residents are seeded.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export interface TestServer {
  baseUrl: string;
  /** A Bearer session token of the demo account. */
  token: string;
  /** Creates an API key of the demo account and returns it. */
  createKey(name: string, rateLimit?: number): Promise<string>;
  /** Signs up a new (Free) account and creates its API key. */
  newAccountKey(name: string): Promise<string>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      if (addr && typeof addr === "object") {
        const port = addr.port;
        srv.close(() => resolve(port));
      } else reject(new Error("no port"));
    });
  });
}

export async function startServer(): Promise<TestServer> {
  const binary = process.env.VALUATOR_BIN ?? path.resolve(import.meta.dirname, "..", "..", "..", "..", "bin", "valuator");
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run make build (or set VALUATOR_BIN)`);
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "valuator-sdk-ts-"));
  const baseUrl = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(binary, ["serve"], {
    env: {
      ...process.env,
      VALUATOR_ADDR: `127.0.0.1:${port}`,
      VALUATOR_BASE_URL: baseUrl,
      VALUATOR_DATA_DIR: dataDir,
      VALUATOR_DATABASE_URL: `sqlite://${path.join(dataDir, "valuator.db")}`,
      VALUATOR_ENV: "development",
      VALUATOR_LOG_LEVEL: "warn",
      // The server runs on the tests' day, not the calendar's (internal/testclock.Default unless the Makefile's
      // VALUATOR_TEST_TODAY says otherwise).
      VALUATOR_CLOCK: process.env.VALUATOR_TEST_TODAY || "2026-11-28",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d) => (stderr += String(d)));
  let exited = false;
  child.on("exit", () => (exited = true));

  const stop = async () => {
    if (!exited) {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
      clearTimeout(timer);
      if (!exited) child.kill("SIGKILL");
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  // The first start generates the demo market and trains the engine: allow a few minutes on a busy machine.
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`valuator exited before it was ready:\n${stderr}`);
    }
    try {
      const r = await fetch(`${baseUrl}/readyz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`valuator was not ready in time:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  const login = await fetch(`${baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "demo@valuator.dev", password: "valuator-demo" }),
  });
  if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
  const { token } = (await login.json()) as { token: string };

  const keyOf = async (session: string, name: string, rateLimit?: number) => {
    const r = await fetch(`${baseUrl}/api/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${session}` },
      body: JSON.stringify(rateLimit === undefined ? { name } : { name, rateLimit }),
    });
    if (r.status !== 201) throw new Error(`create key: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { keyValue: string }).keyValue;
  };
  const createKey = (name: string, rateLimit?: number) => keyOf(token, name, rateLimit);
  const newAccountKey = async (name: string) => {
    const email = `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const r = await fetch(`${baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "sdk-test-passphrase", fullName: "SDK Test" }),
    });
    if (r.status !== 201) throw new Error(`register: ${r.status} ${await r.text()}`);
    return keyOf(((await r.json()) as { token: string }).token, name);
  };

  return { baseUrl, token, createKey, newAccountKey, stop };
}
