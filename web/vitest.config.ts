import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import viteConfig from "./vite.config";

const include = ["src/**/*.test.{ts,tsx}"];

// Test files that replace a module (vi.mock): they need a module graph of their own, or the mock would miss a module
// an earlier file loaded, or leak into a later one. Found by reading the files, so a new one is never forgotten.
const mocking = (readdirSync("src", { recursive: true }) as string[])
  .filter((f) => /\.test\.tsx?$/.test(f) && /\bvi\.(do)?mock\(/.test(readFileSync(`src/${f}`, "utf8")))
  .map((f) => `src/${f}`);

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: "jsdom",
      globals: true,
      setupFiles: ["./src/test/setup.ts"],
      css: false,
      // Form tests type into many fields with userEvent, each a few seconds on a loaded 2-core machine: the default
      // 5 s limit failed them there although nothing was wrong. A real hang still fails, after 20 s.
      testTimeout: 20_000,
      // One worker per core: Vitest's default leaves one core free, which on the 2-core CI machine is half of it
      // (the suite took 198 s on one worker, 128 s on two).
      maxWorkers: availableParallelism(),
      projects: [
        {
          // The other files share a worker's jsdom and modules instead of building their own (isolate: false):
          // a new jsdom and a fresh import of React, Radix and the app per file were two thirds of the suite's time
          // (152 s -> 58 s on 2 cores). What a file changes in the shared window is put back after each test and
          // each file by src/test/setup.ts; CI's order is Vitest's, `npx vitest run --sequence.shuffle` tries others.
          extends: true,
          test: { name: "shared", include, exclude: mocking, isolate: false },
        },
        { extends: true, test: { name: "isolated", include: mocking.length ? mocking : ["no-such-file"] } },
      ],
    },
  }),
);
